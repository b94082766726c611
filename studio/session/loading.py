"""The session's loading side: importing graph files and opening checkpoint databases.

A mixin of `Session` (kept apart to keep each module small). Importing a graph file runs
the user's code, which may take any time (a model download, a slow import, a `sleep`), so
it runs on a worker thread of the loop's executor; the window keeps painting meanwhile.
A load is one task (`_load_task`): views asked for while it runs wait for it instead of
cancelling it, and stepping commands wait for it before they start.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import CheckpointError

from studio.core import convert
from studio.core.loader import LoadedGraph, LoadError, load_graph, parse_spec
from studio.core.records import ErrorView, ThreadView
from studio.core.store import CheckpointReader, open_saver

if TYPE_CHECKING:
    from .session import Session

__all__ = ["SessionLoading"]

log = logging.getLogger(__name__)


class SessionLoading:
    """Open a graph file or a database, reload the file (mixed into Session)."""

    # -- the load task -----------------------------------------------------------------
    def _start_load(self: Session, coro: Awaitable[Any]) -> None:
        """Run `coro` (an import, then whatever needs the graph) as the load task, after
        any load still running; it also stands as the view task, so "ready" waits for it."""
        previous = self._load_task

        async def load() -> None:
            if previous is not None and not previous.done():
                await asyncio.wait({previous})
            await self._viewing(coro)

        view = self._view_task
        if view is not None and view is not previous and not view.done():
            view.cancel()  # a view of the old graph: no longer wanted
        self._load_task = self._view_task = asyncio.ensure_future(load())
        self.status = "loading"
        self._emit_status()

    async def _wait_for_load(self: Session) -> None:
        """Let a load in flight finish first (never cancelling it from here)."""
        task = self._load_task
        if task is not None and not task.done() and task is not asyncio.current_task():
            await asyncio.shield(task)

    async def _import(self: Session, spec: str) -> LoadedGraph | LoadError:
        """`load_graph(spec)` on a worker thread (the user's module code runs there)."""
        started = asyncio.get_running_loop().time()
        result = await asyncio.get_running_loop().run_in_executor(None, load_graph, spec)
        took = asyncio.get_running_loop().time() - started
        if took > 1.0:
            self.message.emit(f"Importing {parse_spec(spec)[0].name} took {took:.1f} s.")
        return result

    def _loaded(self: Session, spec: str, result: LoadedGraph | LoadError) -> None:
        """Tell the window which file to watch (also a broken one, so saving a fix reloads it)."""
        path = result.path if isinstance(result, LoadedGraph) else (result.path or parse_spec(spec)[0])
        self.graphOpened.emit(path, isinstance(result, LoadedGraph))

    # -- opening -----------------------------------------------------------------------
    def _open_saver(self: Session) -> bool:
        if self.saver is not None:
            return True
        try:
            self.saver = open_saver(self.db_path)
        except (CheckpointError, OSError) as exc:
            self._set_error(ErrorView(kind="database", title="Cannot open the checkpoint database",
                                      message=str(exc), hint="Choose another file with --db FILE."))
            return False
        self.reader = CheckpointReader(self.db_path)
        self._poll.start()
        return True

    def open_graph(self: Session, spec: str, *, thread_id: str | None = None, input: Any = None,
                   example_input: bool = True) -> bool:
        """Import the graph file (its code runs, as `python file.py` would) on a worker
        thread, then open a thread. The input of new runs is `input`, else the file's
        `example_input` (unless `example_input` is False). False when nothing was started."""
        if self._closed:
            return False
        self.spec = spec
        self._start_load(self._open_graph(spec, thread_id, input, example_input))
        return True

    async def _open_graph(self: Session, spec: str, thread_id: str | None, input: Any, example_input: bool) -> None:
        result = await self._import(spec)
        self._loaded(spec, result)
        if isinstance(result, LoadError):
            self._on_load_error(result)
            self.status = "no graph"
            self._emit_status()
            return
        if not self._open_saver():
            return
        self._install(result)
        if input is not None:
            self.driver.input = input
        elif example_input and result.example_input is not None:
            self.driver.input = result.example_input
        from .session import new_thread_id

        await self._load_thread(thread_id or new_thread_id(result.path.stem))

    def open_database(self: Session, path: str | Path, graph_spec: str | None = None, *,
                      thread_id: str | None = None) -> bool:
        """Post-mortem: browse every thread of a checkpoint file (opening it runs no code);
        with the graph's code given too, its runs can go on."""
        path = Path(path)
        if not path.exists():
            self._set_error(ErrorView(kind="database", title="No such database",
                                      message=f"{path}: no such file", hint="Check the path."))
            return False
        if path.resolve() != self.db_path.resolve():
            self._close_database()
        self.db_path = path
        if not self._open_saver():
            return False
        if graph_spec is not None:
            self.spec = graph_spec
            self._start_load(self._load_code(graph_spec))
        self._schedule_view(self._open_first_thread(thread_id))  # after the code, when given
        return True

    async def _load_code(self: Session, spec: str) -> None:
        result = await self._import(spec)
        self._loaded(spec, result)
        if isinstance(result, LoadError):
            self._on_load_error(result)
        elif self._open_saver():
            self._install(result)

    def _close_database(self: Session) -> None:
        """Let go of the current file (another one is being opened)."""
        self.driver.drop_run()
        if self.reader is not None:
            self.reader.close(wait=True)
            self.reader = None
        if self.saver is not None:
            self.saver.close()
            self.saver = None
        self.graph = self.driver.graph = None
        self.loaded = None
        self.thread_id = None

    async def _open_first_thread(self: Session, thread_id: str | None) -> None:
        threads = await self.refresh_threads()
        if thread_id is not None or threads:
            await self._load_thread(thread_id or threads[0].thread_id)
        else:
            self.message.emit(f"{self.db_path} holds no threads yet.")
            self._emit_status()

    async def refresh_threads(self: Session) -> tuple[ThreadView, ...]:
        assert self.reader is not None
        infos = await self.reader.threads()
        views = tuple(ThreadView(thread_id=t.thread_id, checkpoints=t.checkpoints, updated_at=t.updated_at)
                      for t in infos)
        self.threadsChanged.emit(views)
        return views

    def _install(self: Session, loaded: LoadedGraph) -> None:
        self.loaded = loaded
        self._static_details.clear()
        self.graph = loaded.graph.with_checkpointer(self.saver)
        if self.reader is not None:
            self.reader.register(self.graph.schema.registrable_types())
        self.driver.graph = self.graph
        try:
            self.graph_view = self._base_view = convert.graph_view(self.graph, loaded.path.stem)
            self._nx = self.graph.get_graph().nx
        except Exception as exc:  # drawing must never stop the debugger
            log.exception("drawing the graph failed")
            self.graph_view = self._base_view = self._nx = None
            self.message.emit(f"Could not draw the graph: {exc}")
        self._known_edges = {(e.source, e.target) for e in (self.graph_view.edges if self.graph_view else ())
                             if e.kind not in ("dynamic",)}
        nodes = set(self.graph.node_names)
        self.driver.before &= nodes
        self.driver.after &= nodes
        if self.status in ("loading", "no graph", "read-only"):
            self.status = "ready"
        if self.graph_view is not None:
            self.graphLoaded.emit(self.graph_view)
        self._emit_marks()

    # -- reload ------------------------------------------------------------------------
    def reload(self: Session) -> bool:
        """Import the graph file again (on a worker thread); the thread, its history and
        the breakpoints stay. The next step retries from the head: a failed task runs again
        with the new code, tasks of that superstep that had finished are not re-run."""
        if self.spec is None:
            self.message.emit("No graph file to reload.")
            return False
        if self.busy:
            self._reload_pending = True
            self.message.emit("The graph file changed: reloading once the running command ends.")
            return False
        status = self.status
        self._start_load(self._reload(self.spec, status))
        return True

    async def _reload(self: Session, spec: str, status: str) -> None:
        result = await self._import(spec)
        self._loaded(spec, result)
        self.status = status
        if isinstance(result, LoadError):
            self._on_load_error(result)
            self._emit_status()
            return
        if not self._open_saver():
            return
        self.driver.drop_run()
        self._install(result)
        if self.driver.input is None:
            self.driver.input = result.example_input
        self._failed.clear()
        self._set_error(None)
        row = self.history.get(self.head_id)
        where = f" from step {row.step}" if row is not None else ""
        self.message.emit(f"Reloaded {result.path.name}: F10 or F5 goes on{where}.")
        if self.thread_id is None:
            from .session import new_thread_id

            await self._load_thread(new_thread_id(result.path.stem))
        self._emit_marks()
        self._emit_status()

    def _on_load_error(self: Session, error: LoadError) -> None:
        hint = "Fix the file and save it (the studio reloads it), or press Ctrl+R."
        self._set_error(ErrorView(kind="load", title=error.title, message=error.message,
                                  detail=error.detail, hint=hint))
