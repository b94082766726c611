"""The session's state -> the panels' records: marks, status, errors, node details, and the
event rows (batched, so that a quick step repaints the window once)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QTimer

from engine.specs import is_subgraph
from studio.core import convert
from studio.core.funcview import shown_values
from studio.core.records import ErrorReport, EventRow, NodeDetails
from studio.core.state import SessionState, ran_nodes

from .signals import SessionSignals

__all__ = ["Presenter", "SOON_MS"]

SOON_MS = 40
"""Event rows and the running mark wait at most this long, so that the events of a quick
step reach the panels together (one repaint) while a slow node still shows at once."""


class Presenter:
    """Emits what the panels show, worked out from the shared state."""

    def __init__(self, state: SessionState, signals: SessionSignals) -> None:
        self.state = state
        self.signals = signals
        self._queue: list[EventRow] = []
        self.soon = QTimer(signals)
        self.soon.setSingleShot(True)
        self.soon.setInterval(SOON_MS)
        self.soon.timeout.connect(self._on_soon)

    # -- marks, status, errors ---------------------------------------------------------
    def emit_marks(self) -> None:
        s = self.state
        if s.focus is not None:
            self.signals.marksChanged.emit(s.focus.marks())
        elif s.viewed_id is None:
            self.signals.marksChanged.emit(s.marks())

    def emit_status(self) -> None:
        if not self.state.closed:
            self.signals.statusChanged.emit(self.state.status_view())

    def emit_interrupts(self) -> None:
        pending = self.state.driver.interrupts
        self.signals.interruptsChanged.emit(convert.interrupt_views((p.node, p.interrupt) for p in pending))

    def set_error(self, error: ErrorReport | None) -> None:
        self.state.error = error
        self.signals.errorChanged.emit(error)

    def show_live(self, values: Any, diff: Any, checkpoint_id: str | None) -> None:
        """The head's state and diff, as the run makes them."""
        self.state.viewed_id = None
        values = shown_values(values)  # an @entrypoint's: what it returned, as get_state() gives
        self.state.values = values
        self.signals.stateChanged.emit(values)
        self.signals.diffChanged.emit(diff)
        self.signals.viewChanged.emit(checkpoint_id)

    def reset_marks(self) -> None:
        """The head moved (rewind, fork, another thread): forget the old run's marks."""
        s = self.state
        s.running.clear()
        s.failed.clear()
        s.taken.clear()
        if s.base_view is not None and s.graph_view is not s.base_view:
            s.graph_view = s.base_view  # routes taken on another branch are not drawn
            self.signals.graphLoaded.emit(s.graph_view)
        s.trail = []
        s.last_ran = frozenset()
        s.dropped = {}
        if s.error is not None and s.error.kind in ("node", "recorded"):
            self.set_error(None)
        self.signals.interruptsChanged.emit(())
        self.signals.stopChanged.emit(None)  # the stop was the old head's

    def leave_subgraph(self) -> None:
        """Back from a subgraph: the parent's graph and marks again."""
        self.state.focus = None
        if self.state.graph_view is not None:
            self.signals.graphLoaded.emit(self.state.graph_view)
        self.emit_marks()

    def show_taken_routes(self, new: set[tuple[str, str]]) -> None:
        """Routes of a router without a path map are drawn as they are taken (a mark on
        the graph); one to a node the drawing lacks (END) lays the graph out again with it."""
        s = self.state
        view = s.graph_view
        if view is None or s.focus is not None:
            return
        drawn = {n.id for n in view.nodes}
        if all(target in drawn for _, target in new):
            return
        s.graph_view = convert.with_taken_routes(s.base_view or view, s.taken)
        self.signals.graphLoaded.emit(s.graph_view)

    # -- event rows: bursts reach the panels once ----------------------------------------
    def add_event(self, row: EventRow) -> None:
        """Queue a row for the events panel; it shows with the next flush (at the latest
        `SOON_MS` later), so a quick step repaints the window once, not once per event."""
        self._queue.append(row)
        if not self.soon.isActive():
            self.soon.start()

    def flush_events(self) -> None:
        if self._queue:
            rows, self._queue = self._queue, []
            self.signals.eventsAdded.emit(rows)

    def clear_events(self) -> None:
        self._queue.clear()
        self.signals.eventsCleared.emit()

    def _on_soon(self) -> None:
        """What was held back for a moment (event rows, the running mark) shows now."""
        self.flush_events()
        if self.state.running:
            self.emit_marks()

    # -- node details ------------------------------------------------------------------
    def select_node(self, name: str | None) -> None:
        self.state.selected_node = name
        if name:
            self.refresh_details(name, force=True)
        self.emit_marks()

    def node_details(self, name: str) -> NodeDetails:
        s = self.state
        io = s.last_io.get(name, {})
        extra: dict[str, Any] = {}
        before, after = s.breakpoints
        where = [w for w, points in (("before", before), ("after", after)) if name in points]
        if where:
            extra["breakpoint"] = " and ".join(where)
        fn = getattr(s.graph.nodes.get(name), "bound", None) if s.graph is not None else None
        if is_subgraph(fn):
            extra["subgraph nodes (F11 steps into them)"] = tuple(getattr(fn, "node_names", ()))
        if s.graph is None and s.observed is not None:
            return convert.observed_details(s.observed, name, values=s.values,
                                            due=name in s.next_nodes(), failed=name in s.failed)
        static = s.static_details.get(name)
        if static is None:  # source and edges: read once per node and graph (inspect is slow)
            static = s.static_details[name] = convert.node_details(s.graph, s.nx, name)
        return replace(static, last_input=io.get("input", convert.UNSET),
                       last_output=io.get("output", convert.UNSET), extra=extra)

    def refresh_details(self, name: str, force: bool = False) -> None:
        """Show `name` in the inspector when the user picked it (`force`) or it is the one
        on screen. Cheap: the inspector renders a folded preview of big values."""
        if force or name == self.state.selected_node:
            self.signals.detailsChanged.emit(self.node_details(name))

    def follow_next_details(self) -> None:
        """With no node selected, the inspector shows the node that failed, or runs next
        (or ran last). Without the code (post-mortem), what the history tells of it."""
        s = self.state
        if s.selected_node is not None or s.focus is not None:
            return
        if s.failed:
            name: str | None = sorted(s.failed)[0]
        else:
            upcoming = ran_nodes(s.next_nodes())
            name = upcoming[0] if upcoming else (s.trail[-1] if s.trail else None)
        if name is not None and (s.graph is not None or s.observed is not None):
            self.signals.detailsChanged.emit(self.node_details(name))
