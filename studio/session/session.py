"""The one bridge between the window and the engine.

The session owns the compiled graph (put on the studio's SQLite file), the thread, the
current `Run` (through `RunDriver`), the breakpoints, the checkpoint history and which
checkpoint is viewed. It turns the Run's events into Qt signals carrying the plain
records of `studio.core.viewmodel`; panels never see the engine.

Commands are coroutines scheduled on the qasync loop. One stepping command runs at a
time: another one asked for meanwhile is refused with a message (the window also
disables its buttons while `busy`). Pause and stop act on the command in flight.
Viewing commands (select, back/forward, compare) read through `CheckpointReader` on a
worker thread and may run while a node is busy. Importing the graph file (open, reload)
and `update_state` (edit and fork) run on worker threads too (`studio.session.loading`).

Events reach the panels in small batches (`SOON_MS`): a quick step repaints the window
once, not once per event; a slow node still shows as running within those few ms.

Restart starts a new thread with the same input, so the old run stays browsable.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from studio.core import convert
from studio.core.driver import Outcome, Refused, RunDriver
from studio.core.history import History
from studio.core.loader import LoadedGraph, new_thread_id
from studio.core.records import ErrorView
from .events import InnerView, SessionEvents
from .loading import SessionLoading
from .views import SessionViews
from studio.core.store import CheckpointReader
from studio.core.viewmodel import GraphView, NodeDetails

__all__ = ["Session", "new_thread_id"]

log = logging.getLogger(__name__)


SOON_MS = 40
"""Event rows and the running mark wait at most this long, so that the events of a quick
step reach the panels together (one repaint) while a slow node still shows at once."""

FIRST_PAGE = 1000
"""Checkpoints shown at once when a thread opens; the rest of a long history follows."""


def _read_history(saver: Any, thread_id: str, limit: int | None = None) -> tuple[History, tuple[Any, ...]]:
    """On the reader's thread: the thread's (newest `limit`) headers as a History and its
    rows, oldest first."""
    headers = list(saver.list_headers(thread_id, limit=limit))  # newest first
    history = History(convert.timeline_row(h) for h in reversed(headers))
    return history, history.rows()


class Session(SessionLoading, SessionEvents, SessionViews, QObject):
    """Owns the graph, the run, the thread's history and the view; emits records."""

    graphLoaded = Signal(object)        # GraphView
    stateChanged = Signal(object)       # Mapping of the viewed checkpoint's values
    diffChanged = Signal(object)        # StepDiff | None
    marksChanged = Signal(object)       # GraphMarks
    timelineReset = Signal(object)      # tuple[TimelineRow, ...] (oldest first)
    timelineRowAdded = Signal(object)   # TimelineRow
    headChanged = Signal(object)        # checkpoint id | None
    viewChanged = Signal(object)        # checkpoint id being viewed (the head when live)
    eventsAdded = Signal(object)        # list[EventRow]: live ones in small batches, or a history's
    eventsCleared = Signal()
    interruptsChanged = Signal(object)  # tuple[InterruptView, ...]
    detailsChanged = Signal(object)     # NodeDetails
    subgraphShown = Signal(object, object)  # node name, GraphView of its inner graph
    compareReady = Signal(object)       # CompareView
    threadsChanged = Signal(object)     # tuple[ThreadView, ...]
    statusChanged = Signal(object)      # StatusView
    busyChanged = Signal(bool)
    errorChanged = Signal(object)       # ErrorView | None
    message = Signal(str)               # a transient status-bar line
    commandFinished = Signal(str, object)  # command name, Outcome | Exception | None
    graphOpened = Signal(object, bool)  # the graph file's Path, whether it loaded

    def __init__(self, db_path: str | Path, parent: QObject | None = None, *, poll_ms: int = 1500) -> None:
        QObject.__init__(self, parent)
        self.db_path = Path(db_path)
        self.saver: Any = None
        self.reader: CheckpointReader | None = None
        self.loaded: LoadedGraph | None = None
        self.spec: str | None = None
        self.graph: Any = None
        self.graph_view: GraphView | None = None
        self._base_view: GraphView | None = None
        self._observed: GraphView | None = None
        """Without the code: the graph as the thread's history shows it."""
        """The graph as compiled; `graph_view` may add routes taken at run time to it."""
        self._nx: Any = None
        self._known_edges: set[tuple[str, str]] = set()
        self.thread_id: str | None = None
        self.history = History()
        self.driver = RunDriver(self._on_run_event)
        self.driver.latest_id = lambda: self.history.latest_id
        self.driver.head_finished = self._head_finished
        self.viewed_id: str | None = None
        self.selected_node: str | None = None
        self.error: ErrorView | None = None
        self.status = "no graph"
        self._task: asyncio.Task[Any] | None = None
        self._task_name = ""
        self._view_task: asyncio.Task[Any] | None = None
        self._history_task: asyncio.Task[Any] | None = None
        self._load_task: asyncio.Task[Any] | None = None
        self._reload_pending = False
        self._running: set[str] = set()
        self._failed: set[str] = set()
        self._taken: set[tuple[str, str]] = set()
        self._trail: list[str] = []
        self._dropped: dict[str, list[tuple[str, Any]]] = {}
        self._diffs: dict[str, Any] = {}
        self._last_io: dict[str, dict[str, Any]] = {}
        self._values: dict[str, Any] = {}
        self._inner: InnerView | None = None
        self._closed = False
        self._static_details: dict[str, NodeDetails] = {}
        self._pending_events = False
        self._event_queue: list[Any] = []
        self._soon = QTimer(self)
        self._soon.setSingleShot(True)
        self._soon.setInterval(SOON_MS)
        self._soon.timeout.connect(self._on_soon)
        """The next head shown adds its saved errors and interrupts to the events."""
        self._poll = QTimer(self)
        self._poll.setInterval(poll_ms)
        self._poll.timeout.connect(self._on_poll)

    # -- properties ----------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def run(self) -> Any:
        return self.driver.run

    @property
    def head_id(self) -> str | None:
        return self.driver.head_id or self.history.latest_id

    @property
    def read_only(self) -> bool:
        return self.graph is None

    @property
    def breakpoints(self) -> tuple[frozenset[str], frozenset[str]]:
        return frozenset(self.driver.before), frozenset(self.driver.after)

    def _head_finished(self) -> bool:
        row = self.history.get(self.head_id)
        return row is not None and not row.next

    # -- threads ---------------------------------------------------------------------------
    def open_thread(self, thread_id: str) -> None:
        """Show `thread_id` (its history loads off the UI thread)."""
        self._schedule_view(self._load_thread(thread_id))

    async def _load_thread(self, thread_id: str) -> None:
        if self._history_task is not None and not self._history_task.done():
            self._history_task.cancel()
        self.driver.drop_run()
        self.driver.thread_id = self.thread_id = thread_id
        self.driver.head_id = None
        self.driver.interrupts = []
        self.viewed_id = None
        self._reset_marks()
        self._diffs.clear()
        self._event_queue.clear()
        self.eventsCleared.emit()
        assert self.reader is not None
        await self.refresh_threads()
        history, rows = await self.reader.call(_read_history, thread_id, FIRST_PAGE)
        self.history = history
        self.timelineReset.emit(rows)
        if rows:  # a thread recorded earlier: its events, as the history tells them
            self.eventsAdded.emit(convert.history_events(rows, more_before=len(rows) >= FIRST_PAGE))
            self._pending_events = True
        if self.graph is None:  # post-mortem without the code: the graph as the history shows it
            self._observed = convert.observed_graph(rows, thread_id)
            self.graphLoaded.emit(self._observed)
        if len(rows) >= FIRST_PAGE:  # a long history: the rest loads in the background
            self._history_task = asyncio.ensure_future(self._load_full_history(thread_id))
        self.headChanged.emit(self.head_id)
        if self.history.latest_id is not None:
            await self._show_checkpoint(self.history.latest_id, live=True)
        else:
            self._values = {}
            self.stateChanged.emit({})
            self.diffChanged.emit(None)
            self.interruptsChanged.emit(())
            self.viewChanged.emit(None)
            self._emit_marks()
        self._follow_next_details()
        self._emit_status()

    async def _load_full_history(self, thread_id: str) -> None:
        assert self.reader is not None
        try:
            full, _ = await self.reader.call(_read_history, thread_id, None)
        except asyncio.CancelledError:
            return
        except Exception as exc:
            self.message.emit(f"Could not read the whole history: {exc}")
            return
        if self.thread_id != thread_id or self._closed:
            return
        for row in self.history.rows():  # rows committed while the rest was loading
            full.add(row)
        self.history = full
        self.timelineReset.emit(full.rows())
        self.headChanged.emit(self.head_id)
        self.viewChanged.emit(self.viewed_id or self.head_id)

    def set_input(self, value: Any) -> None:
        """The input of the next new run (and of Restart)."""
        self.driver.input = value

    @property
    def input(self) -> Any:
        return self.driver.input

    # -- command guard ---------------------------------------------------------------------
    def _submit(self, name: str, factory: Callable[[], Awaitable[Outcome | None]]) -> bool:
        if self._closed:
            return False
        if self.busy:
            self.message.emit(f"Busy with {self._task_name}: wait, or Pause (stop after it) / Stop (Shift+F5).")
            return False
        self._task_name = name
        self._task = asyncio.ensure_future(self._guarded(name, factory))
        self.busyChanged.emit(True)
        self._emit_status()
        return True

    async def _guarded(self, name: str, factory: Callable[[], Awaitable[Outcome | None]]) -> None:
        result: Outcome | Exception | None = None
        try:
            await self._wait_for_load()  # a command asked for while the file imports runs after it
            if self.viewed_id is not None and self.viewed_id != self.head_id:
                await self._show_checkpoint(self.head_id, live=True)
            result = await factory()
            if isinstance(result, Outcome):
                self._on_outcome(result)
        except asyncio.CancelledError:
            result = None
            self._on_cancelled()
        except Refused as exc:
            result = exc
            self.message.emit(str(exc))
        except Exception as exc:  # an engine error (bad update, recursion limit, ...): shown, never fatal
            result = exc
            log.debug("command %s failed", name, exc_info=True)
            self._set_error(ErrorView(kind="command", title=f"{name.capitalize()} failed",
                                      message=f"{type(exc).__name__}: {exc}", node=None,
                                      hint="The history is unchanged; rewind, edit the state, or fix the code "
                                           "and reload."))
        finally:
            self._task = None
            self._running.clear()
            if self._inner is not None and self.driver.inside is None:
                self._leave_subgraph_view()
            if self.status == "running":
                self.status = "ready"
            self._flush_events()
            if not self._closed:
                self.busyChanged.emit(False)
                self._follow_next_details()
                self._emit_marks()
                self._emit_status()
                self.commandFinished.emit(name, result)
                if self._reload_pending:
                    self._reload_pending = False
                    self.reload()

    def _on_outcome(self, outcome: Outcome) -> None:
        if outcome.message:
            self.message.emit(outcome.message)
        if outcome.reason in ("breakpoint", "paused", "target"):
            self.status = "paused"
        elif outcome.reason == "inside":
            self.status = f"inside {outcome.nodes[0]}"

    def _on_cancelled(self) -> None:
        still = sorted(self._running)
        self.driver.cancel()
        self.status = "stopped"
        text = "Stopped."
        if still:
            text += (f" `{', '.join(still)}` was running; a sync node keeps running in its worker thread "
                     "until it returns, and its result is discarded.")
        self._add_event(convert.EventRow(kind="error", step=self._step(), node=", ".join(still), text=text,
                                         at=convert.clock()))
        self._flush_events()
        self.message.emit(text)

    # -- stepping commands -----------------------------------------------------------------
    def step(self) -> bool:
        """F10: run one node; when it was the superstep's last task, commit (the diff shows)."""
        return self._submit("step", self.driver.step_node)

    def step_superstep(self) -> bool:
        return self._submit("step superstep", self.driver.step_superstep)

    def continue_run(self) -> bool:
        """F5: run until a breakpoint, an interrupt, an error or the end."""
        return self._submit("continue", self.driver.continue_)

    def run_to(self, node: str | None = None) -> bool:
        """Ctrl+F10: continue until `node` (default: the selected node) is about to run."""
        node = node or self.selected_node
        if not node or (self.graph is not None and node not in self.graph.node_names):
            self.message.emit("Run to node: select a node in the graph first.")
            return False
        return self._submit("run to node", lambda: self.driver.continue_(target=node))

    def step_into(self) -> bool:
        """F11: on a subgraph node, step its inner nodes one by one (the graph view shows
        the subgraph until its task ends); elsewhere the same as F10."""
        return self._submit("step into", self.driver.step_into)

    def pause(self) -> None:
        """Stop after the running task(s) finish (continue and run-to)."""
        if self.busy:
            self.driver.pause_requested = True
            self.message.emit("Pausing after the running step…")

    def stop(self) -> None:
        """Shift+F5: cancel the command in flight and the run; what was committed stays."""
        if self.busy and self._task is not None:
            self._task.cancel()
        elif self.run is not None:
            self.driver.cancel()
            self._running.clear()
            if self._inner is not None:
                self._leave_subgraph_view()
            self.status = "stopped"
            self.message.emit("Stopped. F10 starts again from the head checkpoint.")
            self._emit_status()

    def restart(self) -> bool:
        """A new thread with the same input (the old thread keeps its history)."""
        if self.busy:
            self.message.emit("Stop the running command first (Shift+F5).")
            return False
        if self.graph is None:
            self.message.emit("No graph code loaded: nothing to restart.")
            return False
        stem = self.loaded.path.stem if self.loaded is not None else "run"
        self.status = "ready"
        self.open_thread(new_thread_id(stem))
        self.message.emit("Restarted on a new thread with the same input; F10 steps, F5 runs.")
        return True

    def new_run(self, value: Any) -> bool:
        """Start a fresh thread with `value` as the input."""
        self.set_input(value)
        return self.restart()

    def resume(self, value: Any, interrupt_id: str | None = None) -> bool:
        """Answer the pending interrupt with `value`; the interrupted node runs again."""
        return self._submit("resume", lambda: self.driver.resume(value, interrupt_id))

    def resume_all(self, values: Mapping[str, Any]) -> bool:
        """The Interrupts panel's Resume: `{interrupt_id: value}` for the pending interrupts."""
        if len(values) == 1:
            [(interrupt_id, value)] = values.items()
            return self.resume(value, interrupt_id)
        return self._submit("resume", lambda: self.driver.resume(dict(values), None))

    def toggle_breakpoint(self, node: str | None = None, where: str = "before") -> None:
        """F9: toggle a breakpoint before (or after) `node` (default: the selected node)."""
        node = node or self.selected_node
        if not node or self.graph is None or node not in self.graph.node_names:
            self.message.emit("Toggle breakpoint: select a node in the graph first.")
            return
        points = self.driver.before if where == "before" else self.driver.after
        if node in points:
            points.discard(node)
            self.message.emit(f"Breakpoint {where} `{node}` removed.")
        else:
            points.add(node)
            self.message.emit(f"Breakpoint {where} `{node}` set.")
        self._refresh_details(node)
        self._emit_marks()

    def set_breakpoints(self, before: set[str], after: set[str]) -> None:
        self.driver.before, self.driver.after = set(before), set(after)
        self._emit_marks()

    # -- polling and closing ---------------------------------------------------------------
    def _on_poll(self) -> None:
        """Pick up checkpoints written by another process (a running script, a second studio)."""
        if self.busy or self.reader is None or self.thread_id is None or self._closed:
            return
        if self._view_task is not None and not self._view_task.done():
            return
        self._view_task = asyncio.ensure_future(self._poll_once())

    async def _poll_once(self) -> None:
        try:
            headers = await self.reader.headers(self.thread_id, limit=50)  # type: ignore[union-attr]
        except Exception:
            return
        added = [convert.timeline_row(h) for h in reversed(headers) if h.id not in self.history]
        for row in added:
            self.history.add(row)
            self.timelineRowAdded.emit(row)
        if added and self.viewed_id is None and self.driver.head_id in (None, added[0].parent_id):
            self.driver.drop_run()
            self.driver.head_id = None
            self.headChanged.emit(self.head_id)
            await self._show_checkpoint(self.history.latest_id, live=True)
            self.message.emit(f"{len(added)} new checkpoint(s) written by another process.")

    def close(self) -> None:
        """Stop everything this session started: the command, the poll, the reader's thread."""
        if self._closed:
            return
        self._closed = True
        self._poll.stop()
        self._soon.stop()
        for task in (self._task, self._view_task, self._history_task, self._load_task):
            if task is not None and not task.done():
                task.cancel()
        self.driver.drop_run()
        if self.reader is not None:
            self.reader.close(wait=True)
        if self.saver is not None:
            self.saver.close()
