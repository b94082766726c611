"""Loading: importing graph files, opening checkpoint databases and threads, and picking
up checkpoints other processes write.

Importing a graph file runs the user's code, which may take any time (a model download,
a slow import, a `sleep`), so it runs on a worker thread of the loop's executor; the
window keeps painting meanwhile. A load is one task (see `ViewTasks`): views asked for
while it runs wait for it instead of cancelling it, and stepping commands wait for it
before they start.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import sys
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QTimer

from engine import CheckpointError
from studio.core import convert
from studio.core.loader import (
    LoadedGraph,
    LoadError,
    load_graph,
    new_thread_id,
    parse_spec,
)
from studio.core.collector import let_go
from studio.core.records import ErrorReport, ThreadSummary
from studio.core.runsettings import RunSettings, example_of, saved_context
from studio.core.state import SessionState
from studio.core.store import CheckpointReader, db_target, open_saver

from .paging import FIRST_PAGE, HistoryPages, unreadable_report
from .paging import read_history as _read_history
from .presenter import Presenter
from .signals import SessionSignals
from .tasks import ViewTasks
from .travel import TimeTravel

__all__ = ["Loading", "FIRST_PAGE", "unreadable_report", "import_store_modules_aside"]

log = logging.getLogger(__name__)

OWNER_CHECKS = 500
"""Threads (newest first) whose latest checkpoint is read to tell whose graph they are."""


def _latest_nodes(saver: Any, thread_ids: list[str]) -> dict[str, tuple[str, ...]]:
    """On the reader's thread: the nodes each thread's latest checkpoint ran or plans next."""
    out: dict[str, tuple[str, ...]] = {}
    for thread_id in thread_ids:
        try:
            header = next(iter(saver.list_headers(thread_id, limit=1)), None)
        except Exception:  # an unreadable thread says so when it is opened
            continue
        if header is not None:
            names = (*header.nodes_ran, *header.next)
            out[thread_id] = tuple(dict.fromkeys(n for n in names if not n.startswith("__")))
    return out


def _load_drawable(spec: str) -> LoadedGraph | LoadError:
    """On a worker thread: `load_graph(spec)`, and the engine's drawing module imported
    (networkx, ~0.4 s, loads on first use): drawing the graph on the UI thread then
    imports nothing."""
    result = load_graph(spec)
    if isinstance(result, LoadedGraph):
        import engine.graph.drawing  # noqa: F401
    return result


def _read_opening(saver: Any, thread_id: str, limit: int) -> tuple[Any, tuple[Any, ...], list[tuple[str, str]],
                                                                    list[Any]]:
    """On the reader's thread: `read_history` of a thread's newest page, and the events
    its rows tell (made here, not on the UI thread: a page of 1,000 rows takes ~15 ms)."""
    history, rows, unreadable = _read_history(saver, thread_id, limit)
    events = convert.history_events(rows, more_before=history.more_before) if rows else []
    return history, rows, unreadable, events


def _alien_nodes(graph: Any, rows: Any) -> list[str]:
    """The nodes a thread's root checkpoints name that `graph` lacks (none without a graph)."""
    if graph is None:
        return []
    known = set(graph.node_names)
    seen = dict.fromkeys(n for r in rows if not r.namespace for n in (*r.nodes, *r.next) if not n.startswith("__"))
    return [n for n in seen if n not in known]


STORE_MODULES = ("engine.checkpoint.reading", "engine.checkpoint.sqlite")
"""What opening a checkpoint file imports: ~30 ms on a UI thread (PySide's import hook reads
each new module's source), so a session imports them on a thread of their own as it is made."""


def _import_store_modules() -> None:
    for name in STORE_MODULES:
        try:
            __import__(name)
        except Exception:  # the open that needs it imports it again, and says why it cannot
            log.debug("could not import %s ahead of an open", name, exc_info=True)


def import_store_modules_aside() -> threading.Thread | None:
    """Start importing `STORE_MODULES` off the UI thread (None: imported already): an
    open_database() in a window on screen then imports nothing on the UI thread."""
    if all(name in sys.modules for name in STORE_MODULES):
        return None
    thread = threading.Thread(target=_import_store_modules, name="store-modules", daemon=True)
    thread.start()
    return thread


def _same_target(a: str | Path, b: str | Path) -> bool:
    if isinstance(a, Path) and isinstance(b, Path):
        return a.resolve() == b.resolve()
    return str(a) == str(b)


SLOW_IMPORT_S = 5.0  # after this long an import is said to be still running


class Loading:
    """Open a graph file or a database, open a thread, reload the file, poll for news."""

    def __init__(self, state: SessionState, signals: SessionSignals, presenter: Presenter,
                 tasks: ViewTasks, travel: TimeTravel, *, poll_ms: int) -> None:
        self.state = state
        self.signals = signals
        self.presenter = presenter
        self.tasks = tasks
        self.travel = travel
        self.pages = HistoryPages(state, signals, presenter)
        self._stuck: asyncio.Task[Any] | None = None
        """The load task waiting on an import whose top-level code has not returned."""
        self._owners: dict[tuple[str, int], tuple[str, ...]] = {}
        """(thread, checkpoints) -> the nodes its latest checkpoint names (whose thread it is)."""
        self.poll = QTimer(signals)
        self.poll.setInterval(poll_ms)
        self.poll.timeout.connect(self._on_poll)
        import_store_modules_aside()  # done while the window is built, before a file is opened

    # -- importing ---------------------------------------------------------------------
    async def _import(self, spec: str) -> LoadedGraph | LoadError:
        """`load_graph(spec)` on a worker thread (the user's module code runs there). When
        it has not returned after SLOW_IMPORT_S (a Qt timer, owned by the session), the
        banner says so and a reload or another file stops waiting for it."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        said = ErrorReport(
            kind="load", title="The graph file is still importing",
            message=(f"{parse_spec(spec)[0].name}: its top-level code has run for {SLOW_IMPORT_S:g} s and "
                     "not returned (a loop, a network call, input()?)."),
            hint="The window stays usable: fix the file and press Ctrl+R, or open another file.")
        task = asyncio.current_task()

        def stuck() -> None:
            self._stuck = task
            self.presenter.set_error(said)

        timer = QTimer(self.signals)
        timer.setSingleShot(True)
        timer.timeout.connect(stuck)
        timer.start(int(SLOW_IMPORT_S * 1000))
        try:
            result = await loop.run_in_executor(None, _load_drawable, spec)
        finally:
            timer.stop()
            timer.deleteLater()
            if self._stuck is task:
                self._stuck = None
            if self.state.error is said:  # it returned, or a reload stopped waiting for it
                self.presenter.set_error(None)
        took = loop.time() - started
        if took > 1.0:
            self.signals.message.emit(f"Importing {parse_spec(spec)[0].name} took {took:.1f} s.")
        return result

    def _loaded(self, spec: str, result: LoadedGraph | LoadError) -> None:
        """Tell the window which file to watch (also a broken one, so saving a fix reloads it)."""
        path = result.path if isinstance(result, LoadedGraph) else (result.path or parse_spec(spec)[0])
        self.signals.graphOpened.emit(path, isinstance(result, LoadedGraph))

    def _on_load_error(self, error: LoadError) -> None:
        hint = "Fix the file and save it (the studio reloads it), or press Ctrl+R."
        self.presenter.set_error(ErrorReport(kind="load", title=error.title, message=error.message,
                                           detail=error.detail, hint=hint))

    def _install(self, loaded: LoadedGraph) -> None:
        s, p = self.state, self.presenter
        s.loaded = loaded
        s.static_details.clear()
        # On a read-only store (LangGraph's) the code only draws the graph and shows node
        # source: nothing runs, so the graph gets no checkpointer.
        s.graph = loaded.graph if s.store_read_only else loaded.graph.with_checkpointer(s.saver)
        if s.reader is not None:
            s.reader.register(s.graph.schema.registrable_types())
        s.driver.set_graph(s.graph)
        try:
            s.graph_view = s.base_view = convert.graph_view(s.graph, loaded.path.stem)
            s.nx = s.graph.get_graph().nx
        except Exception as exc:  # drawing must never stop the debugger
            log.exception("drawing the graph failed")
            s.graph_view = s.base_view = s.nx = None
            self.signals.message.emit(f"Could not draw the graph: {exc}")
        s.known_edges = {(e.source, e.target) for e in (s.graph_view.edges if s.graph_view else ())
                         if e.kind not in ("dynamic",)}
        if s.status in ("loading", "no graph", "read-only"):
            s.status = "read-only" if s.store_read_only else "ready"
        if s.graph_view is not None:
            self.signals.graphLoaded.emit(s.graph_view)
        p.emit_marks()
        self._refresh_inspector()

    def _refresh_inspector(self) -> None:
        """The inspector shows the code and the run now loaded, never a stale one."""
        s, p = self.state, self.presenter
        if s.selected_node is not None and (s.graph is None or s.selected_node in s.graph.node_names):
            p.refresh_details(s.selected_node, force=True)
        else:
            p.follow_next_details()

    # -- opening -----------------------------------------------------------------------
    def _open_saver(self, opened: Any = None) -> bool:
        """The state's saver (and reader) for its database, opened now unless `opened`
        (the same, opened off the UI thread) is given."""
        s = self.state
        if s.saver is not None:
            return True
        try:
            s.saver = opened if opened is not None else open_saver(s.db_path, browse=s.browse)
        except (CheckpointError, OSError) as exc:
            self.presenter.set_error(ErrorReport(kind="database", title="Cannot open the checkpoint database",
                                                 message=str(exc),
                                                 hint="Choose another file or postgresql:// URL with --db."))
            return False
        s.reader = CheckpointReader(s.db_path, browse=s.browse)
        self.poll.start()
        return True

    async def _open_saver_aside(self) -> bool:
        """`_open_saver()` with the file opened on a worker thread (its schema checked, its
        fork index made: ~25 ms the UI thread is spared when a graph file opens)."""
        s = self.state
        if s.saver is not None:
            return True
        target, browse = s.db_path, s.browse
        try:
            opened = await asyncio.get_running_loop().run_in_executor(None, lambda: open_saver(target, browse=browse))
        except (CheckpointError, OSError):
            opened = None  # opened again below, to say why it cannot be
        if s.saver is not None or (target, browse) != (s.db_path, s.browse):  # another file meanwhile
            if opened is not None:
                opened.close()
            opened = None
        return self._open_saver(opened)

    def open_graph(self, spec: str, *, thread_id: str | None = None, input: Any = None,
                   example_input: bool = True) -> bool:
        """Import the graph file (its code runs, as `python file.py` would) on a worker
        thread, then open a thread. The input of new runs is `input`, else the file's
        `example_input` (unless `example_input` is False). False when nothing was started."""
        if self.state.closed:
            return False
        self.state.spec = spec
        self._abandon_stuck_import()
        self.tasks.start_load(self._open_graph(spec, thread_id, input, example_input))
        return True

    async def _open_graph(self, spec: str, thread_id: str | None, input: Any, example_input: bool) -> None:
        s = self.state
        result = await self._import(spec)
        self._loaded(spec, result)
        if isinstance(result, LoadError):
            self._on_load_error(result)
            s.status = "no graph"
            self.presenter.emit_status()
            return
        if not await self._open_saver_aside():
            return
        self._install(result)
        s.driver.set_settings(RunSettings(context=example_of(result.module, "example_context", None)))
        if input is not None:
            s.driver.set_input(input)
        elif example_input and result.example_input is not None:
            s.driver.set_input(result.example_input)
        await self.load_thread(thread_id or new_thread_id(result.path.stem))

    def open_database(self, path: str | Path, graph_spec: str | None = None, *,
                      thread_id: str | None = None) -> bool:
        """Post-mortem: browse every thread of a checkpoint file (opening it runs no code);
        with the graph's code given too, its runs can go on."""
        s = self.state
        path = db_target(path)
        if isinstance(path, Path) and not path.exists():
            self.presenter.set_error(ErrorReport(kind="database", title="No such database",
                                               message=f"{path}: no such file", hint="Check the path."))
            return False
        if not _same_target(path, s.db_path):
            self._close_database()
        s.db_path = path
        if s.saver is None:
            s.browse = True  # whatever the store holds, LangGraph's too (read-only)
        if not self._open_saver():
            return False
        if graph_spec is not None:
            s.spec = graph_spec
            self.tasks.start_load(self._load_code(graph_spec))
        self.tasks.schedule(self._open_first_thread(thread_id))  # after the code, when given
        return True

    async def _load_code(self, spec: str) -> None:
        result = await self._import(spec)
        self._loaded(spec, result)
        if isinstance(result, LoadError):
            self._on_load_error(result)
        elif self._open_saver():
            self._install(result)

    def _close_database(self) -> None:
        """Let go of the current file (another one is being opened)."""
        s = self.state
        s.driver.drop_run()
        if s.reader is not None:
            s.reader.close(wait=True)
            s.reader = None
        if s.saver is not None:
            s.saver.close()
            s.saver = None
        s.graph = None
        s.driver.set_graph(None)
        s.loaded = None
        s.thread_id = None
        self._owners.clear()

    async def _open_first_thread(self, thread_id: str | None) -> None:
        threads = await self.refresh_threads()
        if thread_id is not None or threads:
            await self.load_thread(thread_id or threads[0].thread_id)
        else:
            self.signals.message.emit(f"{self.state.db_path} holds no threads yet.")
            self.presenter.emit_status()

    async def refresh_threads(self) -> tuple[ThreadSummary, ...]:
        """The database's threads, the open graph's first (newest first in each part); the
        others name the nodes the open graph lacks."""
        s = self.state
        assert s.reader is not None
        infos = await s.reader.threads()
        known = frozenset(s.graph.node_names) if s.graph is not None else None
        named: dict[str, tuple[str, ...]] = {}
        if known is not None:
            wanted = [t.thread_id for t in infos[:OWNER_CHECKS] if (t.thread_id, t.checkpoints) not in self._owners]
            named = await s.reader.call(_latest_nodes, wanted) if wanted else {}
            self._owners.update({(t.thread_id, t.checkpoints): named[t.thread_id] for t in infos
                                 if t.thread_id in named})
        views = []
        for t in infos:
            nodes = self._owners.get((t.thread_id, t.checkpoints), ()) if known is not None else ()
            views.append(ThreadSummary(thread_id=t.thread_id, checkpoints=t.checkpoints, updated_at=t.updated_at,
                                       foreign_nodes=tuple(n for n in nodes if n not in (known or ()))))
        ordered = tuple(sorted(views, key=lambda v: v.foreign))  # stable: newest first in each part
        self.signals.threadsChanged.emit(ordered)
        return ordered

    # -- threads -----------------------------------------------------------------------
    def open_thread(self, thread_id: str) -> None:
        """Show `thread_id` (its history loads off the UI thread)."""
        self.tasks.schedule(self.load_thread(thread_id))

    async def load_thread(self, thread_id: str) -> None:
        s, p = self.state, self.presenter
        self.pages.cancel()
        let_go()  # the old thread's history may be collected (see studio/core/collector.py)
        s.driver.open_thread(thread_id)
        s.thread_id = thread_id
        s.viewed_id = None
        p.reset_marks()
        s.last_io.clear()  # another thread: the last input and output shown were the old run's
        s.diffs.clear()
        p.clear_events()
        assert s.reader is not None
        threads = await self.refresh_threads()
        history, rows, unreadable, events = await s.reader.call(_read_opening, thread_id, FIRST_PAGE)
        history.total = next((t.checkpoints for t in threads if t.thread_id == thread_id), None)
        s.history = history
        alien = _alien_nodes(s.graph, rows)
        if alien:  # another graph's thread: its history is shown, but this code must not run it
            self._let_go_of_code()
            self.signals.message.emit(
                f"Thread {thread_id} was run by another graph ({', '.join(alien[:4])} are not nodes of this one): "
                "shown read-only. Open its graph file to go on with it.")
        self.signals.timelineReset.emit(history.all_rows())
        self.pages.opened()  # older checkpoints are read as the timeline is scrolled back
        await asyncio.sleep(0)  # each panel filled in a turn of its own: the window repaints between
        if rows:  # a thread recorded earlier: its events, as the history tells them
            self.signals.eventsAdded.emit(events)
            s.pending_events = True
            await asyncio.sleep(0)
        if s.graph is None:  # post-mortem without the code: the graph as the history shows it
            wide = convert.wide_rows(rows)[:200]
            triggers = await s.reader.triggers(thread_id, wide) if wide else {}
            s.observed = convert.observed_graph(rows, thread_id, triggers)
            self.signals.graphLoaded.emit(s.observed)
        self.signals.headChanged.emit(s.head_id)
        if s.history.latest_id is not None:
            await self._adopt_context(thread_id)
            await self.travel.show_checkpoint(s.history.latest_id, live=True)
        else:
            s.values = {}
            self.signals.stateChanged.emit({})
            self.signals.diffChanged.emit(None)
            self.signals.interruptsChanged.emit(())
            self.signals.viewChanged.emit(None)
            p.emit_marks()
        self._refresh_inspector()
        p.emit_status()
        if unreadable:
            p.set_error(unreadable_report(unreadable))

    def _let_go_of_code(self) -> None:
        """Show what follows post-mortem: no graph code runs (Reload brings it back)."""
        s = self.state
        s.driver.drop_run()
        s.graph = None
        s.driver.set_graph(None)
        s.loaded = None
        s.status = "read-only"
        self.presenter.emit_marks()

    def open_thread_read_only(self, thread_id: str) -> None:
        """Show `thread_id` post-mortem: its history, without running the open graph's code."""
        self._let_go_of_code()
        self.tasks.schedule(self.load_thread(thread_id))

    async def _adopt_context(self, thread_id: str) -> None:
        """A thread started with a context goes on with it (a restart, a resume, a replay)."""
        s = self.state
        assert s.reader is not None
        try:
            latest = await s.reader.checkpoint(thread_id)
        except Exception:  # the history's own read reports an unreadable thread
            return
        context = saved_context(getattr(latest, "metadata", None))
        if context is not None and s.thread_id == thread_id:
            s.driver.set_settings(dataclasses.replace(s.driver.settings, context=context))

    # -- reload ------------------------------------------------------------------------
    def reload(self) -> bool:
        """Import the graph file again (on a worker thread); the thread, its history and
        the breakpoints stay. The next step retries from the head: a failed task runs again
        with the new code, tasks of that superstep that had finished are not re-run."""
        s = self.state
        if s.spec is None:
            self.signals.message.emit("No graph file to reload.")
            return False
        if s.busy:
            s.reload_pending = True
            self.signals.message.emit("The graph file changed: reloading once the running command ends.")
            return False
        self._abandon_stuck_import()
        self.tasks.start_load(self._reload(s.spec, s.status))
        return True

    def _abandon_stuck_import(self) -> None:
        """Stop waiting for an import that never returned (its thread runs on: Python
        cannot stop it), so the next load starts now instead of queueing behind it."""
        if self._stuck is not None and not self._stuck.done():
            self._stuck.cancel()

    async def _reload(self, spec: str, status: str) -> None:
        s, p = self.state, self.presenter
        result = await self._import(spec)
        self._loaded(spec, result)
        s.status = status
        if isinstance(result, LoadError):
            self._on_load_error(result)
            p.emit_status()
            return
        if not self._open_saver():
            return
        s.driver.drop_run()
        self._install(result)
        if s.driver.input is None:
            s.driver.set_input(result.example_input)
        s.failed.clear()
        p.set_error(None)
        row = s.history.get(s.head_id)
        where = f" from step {row.step}" if row is not None else ""
        self.signals.message.emit(f"Reloaded {result.path.name}: F10 or F5 goes on{where}.")
        if s.thread_id is None or _alien_nodes(s.graph, s.history.all_rows()):
            await self.load_thread(new_thread_id(result.path.stem))
        p.emit_marks()
        p.emit_status()

    # -- checkpoints written by another process ------------------------------------------
    def _on_poll(self) -> None:
        """Pick up checkpoints written by another process (a running script, a second studio)."""
        s = self.state
        if s.busy or s.reader is None or s.thread_id is None or s.closed:
            return
        self.tasks.schedule_if_idle(self._poll_once)

    async def _poll_once(self) -> None:
        s = self.state
        assert s.reader is not None and s.thread_id is not None
        try:
            headers = await s.reader.new_headers(s.thread_id, s.history.__contains__)
        except Exception:
            return
        added = [convert.timeline_row(h) for h in reversed(headers) if h.id not in s.history]
        for row in added:
            s.history.add(row)
            self.signals.timelineRowAdded.emit(row)
        if added and s.viewed_id is None and s.driver.head_id in (None, added[0].parent_id):
            s.driver.move_head(None)
            self.signals.headChanged.emit(s.head_id)
            await self.travel.show_checkpoint(s.history.latest_id, live=True)
            self.signals.message.emit(f"{len(added)} new checkpoint(s) written by another process.")

    def close(self) -> None:
        self.poll.stop()
        self.pages.cancel()
