"""Creating the panels and connecting them to the session.

Session signals carry `studio.viewmodel` records into the panels; panel intents (a node
clicked, a checkpoint picked, "rewind here", a resume value) go to session commands.
This is the only module that knows both the panels' methods and the session's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import QDialog, QMainWindow, QWidget

from .session import Session

__all__ = ["Panels", "make_panels", "connect_panels"]


@dataclass
class Panels:
    graph: QWidget
    state: QWidget
    diff: QWidget
    timeline: QWidget
    events: QWidget
    inspector: QWidget
    interrupts: QWidget
    window: QMainWindow
    values: Any = None
    """The values of the checkpoint on screen (what "edit state and fork" starts from)."""
    viewed: str | None = None

    def ready(self) -> bool:
        """The graph's layout is drawn (it runs off the UI thread)."""
        busy = getattr(self.graph, "is_layout_pending", None)
        return not busy() if callable(busy) else True

    def open_state_editor(self, checkpoint_id: str) -> None:
        """"Edit state and fork": the checkpoint's state as JSON; OK forks through update_state."""
        session: Session = self.window.session  # type: ignore[attr-defined]
        if session.graph is None:
            session.message.emit("Editing needs the graph's code (open with --graph FILE).")
            return
        on_screen = self.viewed or session.head_id
        if checkpoint_id == on_screen and self.values is not None:
            self._edit(checkpoint_id, dict(self.values))
        else:
            session.fetch_values(checkpoint_id, lambda values: self._edit(checkpoint_id, values))

    def _edit(self, checkpoint_id: str, values: dict[str, Any]) -> None:
        session: Session = self.window.session  # type: ignore[attr-defined]
        dialog = _panels_module().StateEditorDialog(values, self.window)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            session.edit_and_fork(checkpoint_id, dialog.values())

    def start_compare(self) -> None:
        session: Session = self.window.session  # type: ignore[attr-defined]
        picked = tuple(getattr(self.timeline, "selected_ids", lambda: ())())
        if len(picked) >= 2:
            session.compare(picked[0], picked[1])
        elif session.viewed_id and session.head_id:
            session.compare(session.viewed_id, session.head_id)
        else:
            session.message.emit("Compare: select two checkpoints in the timeline (Ctrl+click).")

    def close(self) -> None:
        stop = getattr(self.graph, "shutdown", None)
        if callable(stop):
            stop()


def _panels_module() -> Any:
    try:
        from . import panels

        panels.GraphPanel  # noqa: B018 (fails while the package is still empty)
        return panels
    except (ImportError, AttributeError):
        from . import _fallback_panels

        return _fallback_panels


def make_panels(window: QMainWindow) -> Panels:
    p = _panels_module()
    DiffPanel, EventsPanel, GraphPanel = p.DiffPanel, p.EventsPanel, p.GraphPanel
    InspectorPanel, InterruptPanel, StatePanel, TimelinePanel = (p.InspectorPanel, p.InterruptPanel, p.StatePanel,
                                                                 p.TimelinePanel)

    return Panels(graph=GraphPanel(), state=StatePanel(), diff=DiffPanel(), timeline=TimelinePanel(),
                  events=EventsPanel(), inspector=InspectorPanel(), interrupts=InterruptPanel(), window=window)


def connect_panels(panels: Panels, session: Session, window: QMainWindow) -> None:
    """Session -> panels, and panel intents -> session."""
    g, st, d, tl, ev, ins, intr = (panels.graph, panels.state, panels.diff, panels.timeline, panels.events,
                                   panels.inspector, panels.interrupts)

    def on_state(values: Any) -> None:
        panels.values = values
        st.set_state(values)

    def on_view(checkpoint_id: str | None) -> None:
        panels.viewed = checkpoint_id
        tl.set_current(checkpoint_id)

    session.graphLoaded.connect(g.set_graph)
    session.marksChanged.connect(g.set_marks)
    session.stateChanged.connect(on_state)
    session.diffChanged.connect(d.set_diff)
    session.timelineReset.connect(tl.set_rows)
    session.timelineRowAdded.connect(tl.add_row)
    session.headChanged.connect(tl.set_head)
    session.viewChanged.connect(on_view)
    session.eventAdded.connect(ev.add_event)
    session.eventsCleared.connect(ev.clear)
    session.interruptsChanged.connect(intr.set_interrupts)
    session.detailsChanged.connect(ins.set_details)
    session.compareReady.connect(lambda view: _show_compare(window, view))

    g.nodeSelected.connect(session.select_node)
    g.breakpointToggled.connect(lambda node, where="before": session.toggle_breakpoint(node, where))
    tl.checkpointSelected.connect(session.select_checkpoint)
    tl.rewindRequested.connect(session.rewind)
    tl.editRequested.connect(panels.open_state_editor)
    tl.compareRequested.connect(session.compare)
    ev.checkpointSelected.connect(session.select_checkpoint)
    intr.resumeRequested.connect(lambda value, interrupt_id=None: session.resume(value, interrupt_id))


def _show_compare(window: QMainWindow, view: Any) -> None:
    CompareDialog = _panels_module().CompareDialog

    dialog = CompareDialog(view, window)
    dialog.show()
