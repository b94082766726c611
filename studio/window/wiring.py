"""Creating the panels and connecting them to the session.

Session signals carry `studio.core.records` records into the panels; panel intents (a node
clicked, a checkpoint picked, "rewind here", a resume value) go to session commands.
This is the only module that knows both the panels' methods and the session's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QMainWindow

from studio.panels import (
    CompareDialog,
    DiffPanel,
    EventsPanel,
    GraphPanel,
    InspectorPanel,
    InterruptPanel,
    StateEditorDialog,
    StatePanel,
    TimelinePanel,
)
from studio.core.records import SessionStatus
from studio.session.session import Session

__all__ = ["Panels", "make_panels", "connect_panels"]


@dataclass
class Panels:
    graph: GraphPanel
    state: StatePanel
    diff: DiffPanel
    timeline: TimelinePanel
    events: EventsPanel
    inspector: InspectorPanel
    interrupts: InterruptPanel
    window: QMainWindow
    values: Any = None
    """The values on screen in the state panel (what "edit state and fork" starts from)."""
    viewed: str | None = None
    """The checkpoint on screen (None before the thread has one)."""
    editor: Any = None
    """The "edit state and fork" dialog while it is open."""

    @property
    def session(self) -> Session:
        return self.window.session  # type: ignore[attr-defined,no-any-return]

    def ready(self) -> bool:
        """The graph's layout (which runs off the UI thread) is drawn."""
        return not self.graph.is_layout_pending()

    def open_state_editor(self, checkpoint_id: str | None = None) -> None:
        """"Edit state and fork": the checkpoint's state as JSON; OK forks through update_state."""
        session = self.session
        checkpoint_id = checkpoint_id or self.viewed or session.head_id
        if checkpoint_id is None:
            session.message.emit("Edit state and fork: there is no checkpoint yet (F10 makes one).")
            return
        if session.graph is None:
            session.message.emit("Editing needs the graph's code (open the database with --graph FILE).")
            return
        # the engine's checkpoint (message ids, versions) and a planner that previews the edit
        session.edit_planner(checkpoint_id, lambda values, planner: self._edit(checkpoint_id, values, planner))

    def _edit(self, checkpoint_id: str, values: dict[str, Any], planner: Any = None) -> None:
        dialog = StateEditorDialog(values, self.window, planner=planner)
        self.editor = dialog
        try:
            if dialog.exec() == QDialog.DialogCode.Accepted:
                self.session.edit_and_fork(checkpoint_id, dialog.changed_values(), as_node=dialog.as_node(),
                                           how=dialog.how())
        finally:
            self.editor = None

    def start_compare(self) -> None:
        session = self.session
        picked = self.timeline.selected_ids()
        if len(picked) >= 2:
            session.compare(picked[0], picked[-1])
        elif session.viewed_id and session.head_id:
            session.compare(session.viewed_id, session.head_id)
        else:
            session.message.emit("Compare: select two checkpoints in the timeline (Ctrl+click).")

    def close(self) -> None:
        self.graph.shutdown()


def resume_blocked(session: Session, status: SessionStatus) -> str:
    """Why the Interrupts panel cannot resume now ("" when it can)."""
    if session.store_read_only:
        return (f"Read-only: {session.store_label}. Retrograph never writes to LangGraph's stores, so this "
                "run cannot go on here.")
    if session.graph is None:
        return ("Read-only: this database was opened without the graph's code, so its run cannot go on. "
                "Open it with the code (retrograph open DB --graph FILE.py) to resume.")
    if status.viewing:
        return ("Viewing an older checkpoint (read-only). Go back to the head (Ctrl+] or click it in the "
                "Timeline) to answer the interrupt.")
    if status.busy:
        return "A command is running: wait for it, or stop it (Shift+F5)."
    return ""


def make_panels(window: QMainWindow) -> Panels:
    panels = Panels(graph=GraphPanel(), state=StatePanel(), diff=DiffPanel(), timeline=TimelinePanel(),
                    events=EventsPanel(), inspector=InspectorPanel(), interrupts=InterruptPanel(), window=window)
    for panel in (panels.timeline, panels.events):
        panel.title.hide()  # the dock's title bar already names it
    return panels


def connect_panels(panels: Panels, session: Session, window: QMainWindow) -> None:
    """Session -> panels, and panel intents -> session."""
    g, st, tl, ev, intr = panels.graph, panels.state, panels.timeline, panels.events, panels.interrupts

    def on_state(values: Any) -> None:
        panels.values = values
        row = session.history.get(session.viewed_id or session.head_id)
        where = f"step {row.step}" if row is not None else ""
        inside = session.inside_subgraph
        if inside is not None:
            title = f"State · inside `{inside}`"
        elif session.viewed_id is not None:
            title = f"State · {where} (viewing, read-only)"
        else:
            title = f"State · {where}" if where else "State"
        st.set_state(values, title=title, read_only=session.read_only or inside is not None,
                     notes=session.key_notes() if inside is None else None)

    def on_view(checkpoint_id: str | None) -> None:
        panels.viewed = checkpoint_id
        tl.set_current(checkpoint_id)
        if checkpoint_id is not None and session.viewed_id is not None:
            tl.select(checkpoint_id)

    session.graphLoaded.connect(g.set_graph)
    session.marksChanged.connect(g.set_marks)
    session.stateChanged.connect(on_state)
    session.diffChanged.connect(panels.diff.set_diff)
    session.timelineReset.connect(tl.set_rows)
    session.timelineRowAdded.connect(tl.add_row)
    session.timelineExtended.connect(tl.extend_rows)
    session.timelineMore.connect(tl.set_older)
    session.debugging.recordedMarks.connect(tl.mark_recorded)
    session.headChanged.connect(tl.set_head)
    session.viewChanged.connect(on_view)
    session.eventsCleared.connect(ev.clear)
    session.eventsAdded.connect(ev.append)
    session.interruptsChanged.connect(intr.set_interrupts)

    def bring_interrupts_forward(views: Any) -> None:
        """A node asks: the Interrupts dock comes forward (it may be tabbed or closed)."""
        dock = getattr(getattr(window, "docks", None), "interrupts", None)
        if views and dock is not None:
            dock.show()
            dock.raise_()
            inspector = getattr(window.docks, "inspector", None)  # type: ignore[attr-defined]
            if dock.height() < 320 and inspector is not None and inspector.isVisible() \
                    and window.dockWidgetArea(inspector) == window.dockWidgetArea(dock):
                # room for the question, the editor and its error: most of the column
                both = dock.height() + inspector.height()
                window.resizeDocks([inspector, dock], [both // 3, both - both // 3], Qt.Orientation.Vertical)

    session.interruptsChanged.connect(bring_interrupts_forward)
    session.statusChanged.connect(lambda status: intr.set_read_only(resume_blocked(session, status)))
    # a read-only history (post-mortem, a read-only store) offers no Rewind and no Fork
    session.statusChanged.connect(lambda _status: tl.set_writable(not session.read_only))
    session.detailsChanged.connect(panels.inspector.set_node)
    session.compareReady.connect(lambda record: CompareDialog.for_record(record, window).show())

    g.node_clicked.connect(session.select_node)
    g.breakpoint_toggled.connect(session.toggle_breakpoint)
    g.run_to_requested.connect(session.run_to)
    st.edit_requested.connect(lambda: panels.open_state_editor(None))
    tl.checkpoint_selected.connect(session.select_checkpoint)
    tl.older_requested.connect(session.load_older)
    tl.rewind_requested.connect(session.rewind)
    tl.fork_edit_requested.connect(panels.open_state_editor)
    tl.compare_requested.connect(session.compare)
    ev.checkpoint_selected.connect(session.select_checkpoint)
    intr.resume_requested.connect(session.resume_all)
    panels.inspector.open_in_editor.connect(
        lambda path, _line: QDesktopServices.openUrl(QUrl.fromLocalFile(path)))
