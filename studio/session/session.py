"""The one bridge between the window and the engine.

`Session` is Qt signals plus the one-command-at-a-time guard. What it knows lives in one
Qt-free `SessionState` (the compiled graph put on the studio's SQLite file, the thread,
the current `Run` through `RunDriver`, the breakpoints, the checkpoint history, which
checkpoint is viewed); the work is done by collaborators that share that state:

- `Loading`: import graph files, open databases and threads, reload, poll for news;
- `TimeTravel`: view, rewind, edit-and-fork, compare checkpoints;
- `RunEvents`: the Run's events -> state and records;
- `Presenter`: state -> the plain records of `studio.core.records` the panels get;
- `DebugTools`: watches, conditional breakpoints, field history, search, recorded replay, export.

Commands are coroutines scheduled on the qasync loop. One stepping command runs at a
time: another one asked for meanwhile is refused with a message (the window also
disables its buttons while `busy`). Pause and stop act on the command in flight.
Viewing commands (select, back/forward, compare) read through `CheckpointReader` on a
worker thread and may run while a node is busy. Importing the graph file (open, reload)
and `update_state` (edit and fork) run on worker threads too.

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

from PySide6.QtCore import QObject

from studio.core import convert
from studio.core.driver import Outcome, Refused
from studio.core.runsettings import RunSettings, RunTexts, read_texts, run_texts
from studio.core.history import History
from studio.core.loader import LoadedGraph, new_thread_id
from studio.core.records import (
    ErrorReport,
    GraphMarks,
    GraphShape,
    NodeDetails,
    SessionStatus,
    StopReport,
    ThreadSummary,
)
from studio.core.state import SessionState, ran_nodes
from studio.core.stops import KEYS, error_stop, stop_report

from .debugging import DebugTools
from .run_events import RunEvents
from .explaining import Explaining
from .loading import Loading
from .presenter import Presenter
from .signals import SessionSignals
from .tasks import ViewTasks
from .paging import HistoryPages
from .travel import TimeTravel

__all__ = ["Session", "new_thread_id"]

log = logging.getLogger(__name__)


class Session(SessionSignals):
    """Qt signals and the command guard over the shared state and its collaborators."""

    def __init__(self, db_path: str | Path, parent: QObject | None = None, *, poll_ms: int = 1500) -> None:
        super().__init__(parent)
        self.state = state = SessionState.new(db_path, self._on_run_event)
        self.presenter = Presenter(state, self)
        self.tasks = ViewTasks(self.presenter)
        self.travel = TimeTravel(state, self, self.presenter, self.tasks, self._submit)
        self.loading = Loading(state, self, self.presenter, self.tasks, self.travel, poll_ms=poll_ms)
        self.events = RunEvents(state, self, self.presenter)
        self.explaining = Explaining(state, self)
        self.debugging = DebugTools(state, self)

    def _on_run_event(self, event: Any) -> None:
        self.explaining.on_run_event(event)
        self.events.on_run_event(event)

    # -- what the window reads ---------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.state.busy

    @property
    def settled(self) -> bool:
        """No view or load in flight (nor the read of a checkpoint's explanation)."""
        return self.tasks.idle and self.explaining.idle and not self.loading.pages.loading

    @property
    def run(self) -> Any:
        return self.state.driver.run

    @property
    def head_id(self) -> str | None:
        return self.state.head_id

    @property
    def viewed_id(self) -> str | None:
        return self.state.viewed_id

    @property
    def thread_id(self) -> str | None:
        return self.state.thread_id

    @property
    def history(self) -> History:
        return self.state.history

    @property
    def graph(self) -> Any:
        return self.state.graph

    @property
    def graph_view(self) -> GraphShape | None:
        return self.state.graph_view

    @property
    def loaded(self) -> LoadedGraph | None:
        return self.state.loaded

    @property
    def spec(self) -> str | None:
        return self.state.spec

    @property
    def db_path(self) -> Path | str:
        return self.state.db_path

    @property
    def store_read_only(self) -> bool:
        return self.state.store_read_only

    @property
    def store_label(self) -> str:
        return self.state.store_label

    @property
    def status(self) -> str:
        return self.state.status

    @property
    def error(self) -> ErrorReport | None:
        return self.state.error

    @property
    def selected_node(self) -> str | None:
        return self.state.selected_node

    @property
    def inside_subgraph(self) -> str | None:
        """The subgraph node whose inner steps the panels show now, if any."""
        return self.state.focus.node if self.state.focus is not None else None

    @property
    def read_only(self) -> bool:
        return self.state.read_only

    def key_notes(self) -> dict[str, str]:
        """A word on some state keys for the state panel (a key "not checkpointed")."""
        return self.state.key_notes()

    @property
    def breakpoints(self) -> tuple[frozenset[str], frozenset[str]]:
        return self.state.breakpoints

    @property
    def input(self) -> Any:
        return self.state.driver.input

    def set_input(self, value: Any) -> None:
        """The input of the next new run (and of Restart)."""
        self.state.driver.set_input(value)

    def marks(self) -> GraphMarks:
        return self.state.marks()

    def status_view(self) -> SessionStatus:
        return self.state.status_view()

    def node_details(self, name: str) -> NodeDetails:
        return self.presenter.node_details(name)

    def select_node(self, name: str | None) -> None:
        """The node clicked in the graph: its inspector details, and the run-to/F9 target."""
        self.presenter.select_node(name)

    def clear_error(self) -> None:
        self.presenter.set_error(None)

    # -- loading -----------------------------------------------------------------------
    def open_graph(self, spec: str, *, thread_id: str | None = None, input: Any = None,
                   example_input: bool = True) -> bool:
        return self.loading.open_graph(spec, thread_id=thread_id, input=input, example_input=example_input)

    def open_database(self, path: str | Path, graph_spec: str | None = None, *,
                      thread_id: str | None = None) -> bool:
        return self.loading.open_database(path, graph_spec, thread_id=thread_id)

    def open_thread(self, thread_id: str) -> None:
        self.loading.open_thread(thread_id)

    def open_thread_read_only(self, thread_id: str) -> None:
        """Another graph's thread, post-mortem: its history shown, the open graph's code not run."""
        self.loading.open_thread_read_only(thread_id)

    async def refresh_threads(self) -> tuple[ThreadSummary, ...]:
        return await self.loading.refresh_threads()

    def reload(self) -> bool:
        return self.loading.reload()

    @property
    def pages(self) -> HistoryPages:
        """The open thread's older checkpoints, read a page at a time (see paging.py)."""
        return self.loading.pages

    def load_older(self, everything: bool = False) -> bool:
        """Read the next older page of the thread's history (`everything`: all of it);
        False when the whole history is listed already."""
        return self.loading.pages.request(everything)

    # -- time travel -------------------------------------------------------------------
    def select_checkpoint(self, checkpoint_id: str | None) -> None:
        self.travel.select_checkpoint(checkpoint_id)
        history = self.state.history
        if checkpoint_id is not None and checkpoint_id not in history and history.subgraph_row(checkpoint_id) is None:
            # older than the listed pages (a search hit): list it too, then select it there
            self.loading.pages.then(checkpoint_id, lambda: self.viewChanged.emit(self.state.viewed_id))

    def back(self) -> None:
        s = self.state
        row = s.history.get(s.viewed_id or s.head_id)
        if row is not None and row.parent_id is not None and s.history.back(row.id) is None \
                and self.loading.pages.then(row.parent_id, self.travel.back):
            return  # the parent is on an older page: read it, then go back
        self.travel.back()

    def forward(self) -> None:
        self.travel.forward()

    def rewind(self, checkpoint_id: str) -> None:
        self.travel.rewind(checkpoint_id)

    def edit_and_fork(self, checkpoint_id: str, values: Mapping[str, Any], as_node: str | None = None,
                      how: Mapping[str, Any] | None = None) -> None:
        self.travel.edit_and_fork(checkpoint_id, values, as_node, how)

    def edit_planner(self, checkpoint_id: str, callback: Callable[[dict[str, Any], Any], None]) -> None:
        self.travel.planner(checkpoint_id, callback)

    def fetch_values(self, checkpoint_id: str, callback: Callable[[dict[str, Any]], None]) -> None:
        self.travel.fetch_values(checkpoint_id, callback)

    def compare(self, left_id: str, right_id: str) -> None:
        self.travel.compare(left_id, right_id)

    # -- command guard -----------------------------------------------------------------
    def submit(self, name: str, factory: Callable[[], Awaitable[Outcome | None]]) -> bool:
        """Run `factory()` as a command under the one-command guard (the debugging tools'
        replay uses it); False when busy or read-only (a message says why)."""
        return self._submit(name, factory)

    def _submit(self, name: str, factory: Callable[[], Awaitable[Outcome | None]]) -> bool:
        s = self.state
        if s.closed:
            return False
        if s.busy:
            self.message.emit(f"Busy with {s.command_name}: wait, or Pause (stop after it) / Stop (Shift+F5).")
            return False
        if s.store_read_only:
            self.message.emit(f"{s.store_label}: Retrograph never writes to LangGraph's stores, so runs cannot "
                              "go on here. Browse, compare and copy values instead.")
            return False
        s.command_name = name
        s.command = asyncio.ensure_future(self._guarded(name, factory))
        self.stopChanged.emit(None)  # it no longer holds once the run moves again
        self.busyChanged.emit(True)
        self.presenter.emit_status()
        return True

    async def _guarded(self, name: str, factory: Callable[[], Awaitable[Outcome | None]]) -> None:
        s, p = self.state, self.presenter
        result: Outcome | Exception | None = None
        try:
            await self.tasks.wait_for_load()  # a command asked for while the file imports runs after it
            if s.viewed_id is not None and s.viewed_id != s.head_id:
                await self.travel.show_checkpoint(s.head_id, live=True)
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
            p.set_error(ErrorReport(kind="command", title=f"{name.capitalize()} failed",
                                  message=f"{type(exc).__name__}: {exc}", node=None,
                                  hint="The history is unchanged; rewind, edit the state, or fix the code "
                                       "and reload."))
            self.stopChanged.emit(error_stop(s.error, ()))
        finally:
            s.command = None
            s.running.clear()
            if s.focus is not None and s.driver.inside is None:
                p.leave_subgraph()
            if s.status == "running":
                s.status = "ready"
            p.flush_events()
            if not s.closed:
                self.busyChanged.emit(False)
                p.follow_next_details()
                p.emit_marks()
                p.emit_status()
                self.commandFinished.emit(name, result)
                if s.reload_pending:
                    s.reload_pending = False
                    self.reload()

    def _on_outcome(self, outcome: Outcome) -> None:
        s = self.state
        pending = [(p.node, p.interrupt.value) for p in s.driver.interrupts]
        self.stopChanged.emit(stop_report(outcome, interrupts=pending, error=s.error,
                                          next_nodes=ran_nodes(s.next_nodes())))
        if outcome.message:
            self.message.emit(outcome.message)
        if outcome.reason in ("breakpoint", "paused", "target"):
            self.state.status = "paused"
        elif outcome.reason == "inside":
            self.state.status = "inside"
            self.events.on_parked()

    def _on_cancelled(self) -> None:
        s, p = self.state, self.presenter
        still = sorted(s.running)
        s.driver.cancel()
        s.status = "stopped"
        text = "Stopped."
        if still:
            text += (f" `{', '.join(still)}` was running; a sync node keeps running in its worker thread "
                     "until it returns, and its result is discarded.")
        p.add_event(convert.EventRow(kind="error", step=s.step(), node=", ".join(still), text=text,
                                     at=convert.clock()))
        p.flush_events()
        self.message.emit(text)
        self.stopChanged.emit(StopReport(kind="stopped", title="Stopped", detail=text, keys=(
            KEYS["step"], KEYS["restart"], KEYS["new"])))

    # -- stepping commands -------------------------------------------------------------
    def step(self) -> bool:
        """F10: run one node; when it was the superstep's last task, commit (the diff shows)."""
        return self._submit("step", self.state.driver.step_node)

    def step_superstep(self) -> bool:
        return self._submit("step superstep", self.state.driver.step_superstep)

    def continue_run(self) -> bool:
        """F5: run until a breakpoint, an interrupt, an error or the end."""
        return self._submit("continue", self.state.driver.continue_)

    def run_to(self, node: str | None = None) -> bool:
        """Ctrl+F10: continue until `node` (default: the selected node) is about to run."""
        s = self.state
        node = node or s.selected_node
        if not node or (s.graph is not None and node not in s.graph.node_names):
            self.message.emit("Run to node: select a node in the graph first.")
            return False
        return self._submit("run to node", lambda: s.driver.continue_(target=node))

    def step_into(self) -> bool:
        """F11: on a subgraph node, step its inner nodes one by one (the graph view shows
        the subgraph until its task ends); elsewhere the same as F10."""
        return self._submit("step into", self.state.driver.step_into)

    def step_out(self) -> bool:
        """Shift+F11: inside a subgraph, run the rest of it and stop in the parent."""
        if self.state.driver.inside is None:
            self.message.emit("Step out: not inside a subgraph (F11 on a subgraph node steps into it).")
            return False
        return self._submit("step out", self.state.driver.step_out)

    def pause(self) -> None:
        """Stop after the running task(s) finish (continue and run-to)."""
        if self.state.busy:
            self.state.driver.request_pause()
            self.message.emit("Pausing after the running step…")

    def stop(self) -> None:
        """Shift+F5: cancel the command in flight and the run; what was committed stays."""
        s, p = self.state, self.presenter
        if s.busy and s.command is not None:
            s.command.cancel()
        elif s.driver.run is not None:
            s.driver.cancel()
            s.running.clear()
            if s.focus is not None:
                p.leave_subgraph()
            s.status = "stopped"
            self.message.emit("Stopped. F10 starts again from the head checkpoint.")
            self.stopChanged.emit(StopReport(kind="stopped", title="Stopped",
                                             detail="F10 starts again from the head checkpoint.",
                                             keys=(KEYS["step"], KEYS["restart"], KEYS["new"])))
            p.emit_status()

    def restart(self) -> bool:
        """A new thread with the same input (the old thread keeps its history)."""
        s = self.state
        if s.busy:
            self.message.emit("Stop the running command first (Shift+F5).")
            return False
        if s.graph is None:
            self.message.emit("No graph code loaded: nothing to restart.")
            return False
        stem = s.loaded.path.stem if s.loaded is not None else "run"
        s.status = "ready"
        self.open_thread(new_thread_id(stem))
        self.message.emit("Restarted on a new thread with the same input; F10 steps, F5 runs.")
        return True

    def new_run(self, value: Any, settings: RunSettings | None = None) -> bool:
        """Start a fresh thread with `value` as the input (and `settings`: its context,
        config and durability; None keeps the current ones)."""
        self.set_input(value)
        if settings is not None:
            self.state.driver.set_settings(settings)
        return self.restart()

    def new_run_texts(self) -> RunTexts:
        """What the new-run dialog starts from: this run's input, context and config, else
        the file's examples, else its schemas' fields."""
        s = self.state
        return run_texts(s.loaded.module if s.loaded is not None else None, s.graph, s.driver.input,
                         s.driver.settings)

    def read_run_texts(self, texts: RunTexts) -> tuple[Any, RunSettings | None, str | None]:
        """The dialog's texts checked against this graph: (input, settings, None) or a problem."""
        return read_texts(texts, self.state.graph)

    def resume(self, value: Any, interrupt_id: str | None = None) -> bool:
        """Answer the pending interrupt with `value`; the interrupted node runs again."""
        return self._submit("resume", lambda: self.state.driver.resume(value, interrupt_id))

    def resume_all(self, values: Mapping[str, Any]) -> bool:
        """The Interrupts panel's Resume: `{interrupt_id: value}` for the pending interrupts."""
        if len(values) == 1:
            [(interrupt_id, value)] = values.items()
            return self.resume(value, interrupt_id)
        return self._submit("resume", lambda: self.state.driver.resume(dict(values), None))

    def toggle_breakpoint(self, node: str | None = None, where: str = "before") -> None:
        """F9: toggle a breakpoint before (or after) `node` (default: the selected node)."""
        s = self.state
        node = node or s.selected_node
        if not node or s.graph is None or node not in s.graph.node_names:
            self.message.emit("Toggle breakpoint: select a node in the graph first.")
            return
        if s.driver.toggle_breakpoint(node, where):
            self.message.emit(f"Breakpoint {where} `{node}` set.")
        else:
            self.message.emit(f"Breakpoint {where} `{node}` removed.")
        self.presenter.refresh_details(node)
        self.presenter.emit_marks()

    # -- closing -----------------------------------------------------------------------
    def close(self) -> None:
        """Stop everything this session started: the command, the poll, the reader's thread."""
        s = self.state
        if s.closed:
            return
        self.debugging.close()
        s.closed = True
        self.loading.close()
        self.presenter.soon.stop()
        if s.command is not None and not s.command.done():
            s.command.cancel()
        self.tasks.cancel()
        s.driver.drop_run()
        if s.reader is not None:
            s.reader.close(wait=True)
        if s.saver is not None:
            s.saver.close()
