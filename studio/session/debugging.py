"""The debugging tools' work, apart from the window: watches, conditional breakpoints,
field history, history search, recorded replay and export.

Like `TimeTravel`, `DebugTools` shares the session's state and says what it found through
its own Qt signals (plain rows of strings, ready for the Debug panel); the window's Debug
dock only wires those signals to the panel and the panel's requests to these methods.

Every checkpoint is read on the session's reader thread; expressions are evaluated here, in
the process that runs the graph's code, and never come from the database. History search
scans every thread of the store (or the open one) a page at a time: the window keeps
painting, matches arrive as they are found, `cancel_search` stops it, and it pauses after
`search_limit` matches, so neither the list nor the memory grows with the store.
"""
from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from studio.core.conditions import BreakCondition, Conditions
from studio.core.expressions import MISSING_VALUE, Expression, ExpressionError
from studio.core.fieldhistory import field_history
from studio.core.jsonable import jsonable
from studio.core.search import SearchHit, StoreSearch, search_note
from studio.core.state import SessionState

__all__ = ["DebugTools", "WATCH_ROWS", "SEARCH_LIMIT", "SEARCH_ROWS", "show_value"]

WATCH_ROWS = 400
"""The watch table shows at most this many checkpoints of the branch (the newest)."""
SEARCH_LIMIT = 500
"""Matches one run of a search shows before it pauses (Continue finds the next ones)."""
SEARCH_ROWS = 10_000
"""The most matches the result list holds (then the search says to narrow it)."""

Row = tuple[str, list[str], str]
"""(checkpoint id, cells, tooltip): one row of a Debug table."""


def show_value(value: Any, limit: int = 80) -> str:
    """A watch or field value in one short line."""
    if value is MISSING_VALUE:
        return "—"
    try:
        text = json.dumps(jsonable(value), ensure_ascii=False, sort_keys=True)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _read_many(saver: Any, thread_id: str, ids: Sequence[str]) -> list[Any]:
    return [saver.load(thread_id, cid) for cid in ids]


MARKED_ROWS = 3000
"""Checkpoints (the newest listed) read for the replay marks of the timeline."""


def _search_page(store: Any, search: StoreSearch, max_hits: int) -> list[SearchHit]:
    return search.next_page(store, max_hits=max_hits)


def _recorded_marks(saver: Any, thread_id: str, rows: Sequence[tuple[str, str]]) -> dict[str, tuple[str, ...]]:
    """Checkpoint id -> nodes a recorded replay answered from records (its task records),
    for the listed `rows` ((namespace, checkpoint id); the subgraphs' checkpoints are in
    their own namespaces of the thread)."""
    from engine.checkpoint.base import ns_thread_key

    marks: dict[str, tuple[str, ...]] = {}
    for ns, cid in rows:
        ckpt = saver.load(ns_thread_key(thread_id, ns) if ns else thread_id, cid)
        records = ckpt.metadata.get("record") if ckpt is not None and isinstance(ckpt.metadata, dict) else None
        if isinstance(records, list):
            nodes = tuple(str(r.get("node")) for r in records if isinstance(r, dict) and r.get("recorded"))
            if nodes:
                marks[cid] = nodes
    return marks


def _hit_row(hit: SearchHit) -> Row:
    where = hit.thread_id + (f" › {hit.namespace.split(':', 1)[0]}" if hit.namespace else "")
    tip = f"thread {hit.thread_id}" + (f", subgraph {hit.namespace}" if hit.namespace else "") + \
        f"\ncheckpoint {hit.checkpoint_id}"
    return hit.checkpoint_id, [where, str(hit.step), hit.source, ", ".join(hit.nodes) or "—", hit.excerpt], tip


class DebugTools(QObject):
    """The debugging tools of one session (see the module docstring)."""

    watchesChanged = Signal(object, object)    # expression texts, list[Row] (newest first)
    problem = Signal(str, str)                 # which tool ("watch", "condition", "field", "search"), text ("" clears)
    conditionsChanged = Signal(object)         # list[str]: each condition described
    fieldChanged = Signal(str, object)         # title, list[Row]
    hitsReset = Signal(str)                    # the list is emptied; a status line
    hitsAdded = Signal(object)                 # list[Row]
    searchStatus = Signal(str, bool, bool)     # text, running, more to find
    recordedMarks = Signal(object)             # checkpoint id -> nodes answered from the recording
    viewedChanged = Signal(object)             # checkpoint id the tables should highlight

    def __init__(self, state: SessionState, session: Any) -> None:
        super().__init__(session)
        self.state = state
        self.session = session
        self.watches: list[Expression] = []
        self.conditions = Conditions()
        state.driver.conditions = self.conditions
        self.last_replay: Any = None
        self.search_run: StoreSearch | None = None
        self.search_hits: list[SearchHit] = []
        self.search_limit = SEARCH_LIMIT
        self._refresh = QTimer(self, singleShot=True, interval=150)
        self._refresh.timeout.connect(self._schedule_watches)
        self._marks = QTimer(self, singleShot=True, interval=300)
        self._marks.timeout.connect(self._schedule_marks)
        self.pending: set[asyncio.Future[Any]] = set()
        for signal in (session.viewChanged, session.headChanged, session.timelineRowAdded):
            signal.connect(lambda *_: self._refresh.start())
        session.timelineReset.connect(lambda *_: (self._refresh.start(), self._marks.start()))

    # -- helpers -----------------------------------------------------------------------
    @property
    def viewed(self) -> str | None:
        return self.state.viewed_id or self.state.head_id

    def node_names(self) -> list[str]:
        graph = self.state.graph
        return [n for n in graph.node_names if not n.startswith("__")] if graph is not None else []

    def replay_nodes(self) -> list[str]:
        """What Replay can answer: every node, those inside subgraphs as `sub:node`."""
        from engine.replay import node_paths

        graph = self.state.graph
        return node_paths(graph) if graph is not None else []

    def _branch(self, limit: int | None = None) -> list[str]:
        """The viewed branch's checkpoint ids, oldest first."""
        s = self.state
        tip = s.viewed_id or s.head_id or s.history.latest_id
        return list(reversed(s.history.ancestors(tip, limit))) if tip else []

    def _spawn(self, make: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run `make()` as a task that `close` cancels."""
        async def guarded() -> None:
            try:
                await make()
            except asyncio.CancelledError:
                pass
            except Exception as e:  # a reader closed under us, a store error: said, never fatal
                if not self.state.closed:
                    self.session.message.emit(f"Debug: {type(e).__name__}: {e}")

        future = asyncio.ensure_future(guarded())
        self.pending.add(future)
        future.add_done_callback(self.pending.discard)

    def close(self) -> None:
        """Stop the timers, the search and every read in flight (the window closes)."""
        self._refresh.stop()
        self._marks.stop()
        if self.search_run is not None:
            self.search_run.cancel()
        for future in list(self.pending):
            future.cancel()

    @property
    def idle(self) -> bool:
        return not self.pending and not self._refresh.isActive() and not self._marks.isActive()

    async def wait_idle(self) -> None:
        """Wait until every read started here has ended (tests, screenshots)."""
        while not self.idle:
            await asyncio.sleep(0.02)

    async def _read(self, ids: Sequence[str]) -> list[Any]:
        s = self.state
        if s.reader is None or s.thread_id is None or not ids:
            return []
        return await s.reader.call(_read_many, s.thread_id, list(ids))

    # -- watches -------------------------------------------------------------------------
    def add_watch(self, text: str) -> None:
        try:
            expression = Expression.parse(text)
        except ExpressionError as e:
            self.problem.emit("watch", str(e))
            return
        self.problem.emit("watch", "")
        self.watches.append(expression)
        self._refresh.start()

    def remove_watch(self, index: int) -> None:
        if 0 <= index < len(self.watches):
            del self.watches[index]
        self._refresh.start()

    def _schedule_watches(self) -> None:
        self._spawn(self._compute_watches)

    async def _compute_watches(self) -> None:
        texts = [w.text for w in self.watches]
        if not self.watches:
            self.watchesChanged.emit([], [])
            return
        rows: list[Row] = []
        problems: list[str] = []
        for ckpt in await self._read(self._branch()[-WATCH_ROWS:]):
            if ckpt is None:
                continue
            cells = [str(ckpt.step), ", ".join(ckpt.nodes_ran) if ckpt.source != "fork" else ckpt.source]
            for w in self.watches:
                try:
                    cells.append(show_value(w.evaluate(ckpt.values)))
                except ExpressionError as e:
                    cells.append("error")
                    problems.append(f"step {ckpt.step}: {e}")
            rows.append((ckpt.id, cells, f"checkpoint {ckpt.id}"))
        rows.reverse()  # newest first, as the timeline reads
        self.watchesChanged.emit(texts, rows)
        self.problem.emit("watch", problems[0] if problems else "")
        self.viewedChanged.emit(self.viewed)

    # -- conditional breakpoints ----------------------------------------------------------
    def add_condition(self, kind: str, text: str, node: str | None, when: str) -> None:
        try:
            condition = BreakCondition.make(kind, text, node=node or None, when=when,
                                            nodes=self.node_names() if self.state.graph is not None else None)
        except (ExpressionError, ValueError) as e:
            self.problem.emit("condition", str(e))
            return
        self.problem.emit("condition", "")
        self.conditions.add(condition)
        self.conditionsChanged.emit([c.describe() for c in self.conditions.items])

    def remove_condition(self, index: int) -> None:
        if 0 <= index < len(self.conditions.items):
            self.conditions.remove(index)
        self.conditionsChanged.emit([c.describe() for c in self.conditions.items])

    # -- field history -------------------------------------------------------------------
    def ask_field(self, path: str) -> None:
        self._spawn(lambda: self._field(path))

    async def _field(self, path: str) -> None:
        ids = self._branch()
        try:
            Expression.parse(path)
            ckpts = {c.id: c for c in await self._read(ids) if c is not None}
            changes = field_history(path, ids, ckpts.get)
        except ExpressionError as e:
            self.problem.emit("field", str(e))
            return
        self.problem.emit("field", "")
        rows: list[Row] = [
            (c.checkpoint_id, [str(c.step), c.source, ", ".join(c.nodes) or "—", show_value(c.before),
                               show_value(c.after)],
             f"checkpoint {c.checkpoint_id}\nbefore: {show_value(c.before, 2000)}\nafter: {show_value(c.after, 2000)}")
            for c in changes]
        title = f"`{path}` changed {len(rows)} time{'s' if len(rows) != 1 else ''} on this branch" + \
            (" (click a row to jump there)" if rows else "")
        self.fieldChanged.emit(title, rows)
        self.viewedChanged.emit(self.viewed)

    # -- history search --------------------------------------------------------------------
    def search(self, query: str, mode: str, scope: str = "all") -> None:
        """Start a search of every thread (`scope` "all") or the open one ("thread"); its
        pages run on the reader's thread and its matches arrive as they are found."""
        self.cancel_search()
        s = self.state
        if scope not in ("all", "thread"):
            raise ValueError(f"unknown search scope {scope!r}: use 'all' or 'thread'")
        if s.reader is None:
            self.problem.emit("search", "Open a run or a checkpoint database first.")
            return
        try:
            search = StoreSearch(query, mode, first=s.thread_id,
                                 threads=[s.thread_id] if scope == "thread" and s.thread_id else None)
        except (ExpressionError, ValueError) as e:
            self.problem.emit("search", str(e))
            return
        self.problem.emit("search", "")
        self.search_run, self.search_hits = search, []
        self.hitsReset.emit("Searching…")
        self._spawn(lambda: self._run_search(search))

    def continue_search(self) -> None:
        """Search on for the next `search_limit` matches."""
        search = self.search_run
        if search is not None and not search.done and len(self.search_hits) < SEARCH_ROWS:
            self._spawn(lambda: self._run_search(search))

    def cancel_search(self) -> None:
        """Stop the running search (the page being read ends at its next checkpoint)."""
        if self.search_run is not None and not self.search_run.done:
            self.search_run.cancel()
            self.searchStatus.emit(f"{len(self.search_hits):,} matches shown; search cancelled after "
                                   f"{self.search_run.scanned:,} checkpoints.", False, False)

    def pick_hit(self, row: int) -> None:
        """Jump to a search result: select it, opening its thread first when it is another."""
        if not 0 <= row < len(self.search_hits):
            return
        hit, s = self.search_hits[row], self.session
        if hit.thread_id == s.thread_id:
            s.select_checkpoint(hit.checkpoint_id)
            return

        async def jump() -> None:
            s.open_thread(hit.thread_id)
            for _ in range(1000):  # the thread's history loads on the reader's thread
                await asyncio.sleep(0.02)
                if s.thread_id == hit.thread_id and s.settled:
                    break
            if s.thread_id == hit.thread_id:
                s.select_checkpoint(hit.checkpoint_id)

        self._spawn(jump)

    async def _run_search(self, search: StoreSearch) -> None:
        reader = self.state.reader
        if reader is None:
            return
        limit = min(self.search_limit, SEARCH_ROWS - len(self.search_hits))
        found = 0
        if not search.cancelled:
            self.searchStatus.emit(f"Searching… {search.describe()}", True, False)
        try:
            while not search.done and found < limit:
                hits = await reader.call(_search_page, search, limit - found)
                if search is not self.search_run:
                    return  # a newer search replaced this one
                found += len(hits)
                self.search_hits.extend(hits)
                self.hitsAdded.emit([_hit_row(h) for h in hits])
                self.searchStatus.emit(f"Searching… {search.describe()}", True, False)
        except asyncio.CancelledError:
            search.cancel()
            raise
        except Exception as e:  # the store went away (another database opened), a read failed
            search.cancel()
            if search is self.search_run and not self.state.closed:
                self.searchStatus.emit(f"{len(self.search_hits):,} matches shown; the search stopped after "
                                       f"{search.scanned:,} checkpoints: {type(e).__name__}: {e}", False, False)
            return
        if search is not self.search_run:
            return
        note, error = search_note(search, len(self.search_hits), SEARCH_ROWS)
        if error:
            self.problem.emit("search", error)
        self.searchStatus.emit(note, False, not search.done and len(self.search_hits) < SEARCH_ROWS)
        self.viewedChanged.emit(self.viewed)

    # -- recorded marks in the timeline ---------------------------------------------------
    def _schedule_marks(self) -> None:
        s = self.state
        if s.reader is None or s.thread_id is None:
            return
        reader, thread_id = s.reader, s.thread_id
        # the listed checkpoints, newest first (3000 at most), then their subgraphs'
        rows = [("", r.id) for r in reversed(s.history.rows()[-MARKED_ROWS:])]
        rows += [(r.namespace, r.id) for r in s.history.subgraph_rows()][: max(MARKED_ROWS - len(rows), 0)]

        async def read() -> None:
            marks = await reader.call(_recorded_marks, thread_id, rows)
            if marks:
                self.recordedMarks.emit(marks)

        self._spawn(read)

    # -- replay and export ---------------------------------------------------------------
    def replay(self, start: str, record: Sequence[str]) -> bool:
        """Replay the thread from `start` answering `record` nodes from the recording."""
        from engine.replay import ReplayError, areplay

        s, state = self.session, self.state
        thread, graph, saver = state.thread_id, state.graph, state.saver

        async def go() -> None:
            state.driver.drop_run()
            try:
                result = await areplay(graph, thread, start, record=record, saver=saver,
                                       context=state.driver.settings.context,
                                       metadata=state.driver.context_metadata(),
                                       fork_same_step=True)  # numbered as a rewind's branch: N, then N+1
            except ReplayError as e:
                s.message.emit(f"Replay refused: {e}")
                raise
            self.last_replay = result
            s.open_thread(thread)
            self.recordedMarks.emit(dict(result.marks))  # subgraphs' checkpoints too
            answered = ", ".join(record) or "no node"
            s.message.emit(f"Replayed {len(result.steps)} steps on a new branch ({result.status}); "
                           f"{answered} answered from the recording.")

        return bool(s.submit("replay", go))

    def export(self, path: str, redact: Sequence[str] = (), *, branch: str | None = None) -> None:
        """Export the open thread (every subgraph namespace included), or the branch ending
        at `branch`, on the reader's thread."""
        from engine.checkpoint.export import export_thread

        s = self.state
        if s.reader is None or s.thread_id is None:
            return
        reader, thread = s.reader, s.thread_id

        async def write() -> None:
            try:
                summary = await reader.call(
                    lambda saver: export_thread(saver, thread, path, branch=branch, redact=redact))
            except Exception as e:
                self.session.message.emit(f"Export failed: {e}")
                return
            subgraphs = f" and {summary.subgraph_checkpoints} subgraph checkpoints" if summary.subgraph_checkpoints else ""
            self.session.message.emit(f"Exported {summary.checkpoints} checkpoints{subgraphs} of {thread} to {path}.")

        self._spawn(write)
