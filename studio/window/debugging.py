"""The debugging tools in the window: the Debug dock (watches, conditional breakpoints,
field history, history search), and Debug ▸ Replay from here… / Export thread….

History search scans every thread of the store (or the open one) a page at a time on the
reader's thread (studio/core/search.py): the window keeps painting, matches appear as
they are found, Cancel stops it, and it pauses after `search_limit` matches with a
Continue button, so neither the list nor the memory grows with the store.

Kept apart from main_window.py: the window builds one `DebugTools` and forgets it. Every
checkpoint is read on the session's reader thread; expressions are evaluated here, in the
process that runs the graph's code, and never come from the database.
"""
from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFileDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QVBoxLayout,
    QWidget,
)

from studio.core.conditions import BreakCondition, Conditions
from studio.core.expressions import MISSING_VALUE, Expression, ExpressionError
from studio.core.fieldhistory import field_history
from studio.core.search import SearchHit, StoreSearch
from studio.panels.debug import DebugPanel

__all__ = ["DebugTools", "ReplayDialog", "WATCH_ROWS", "SEARCH_LIMIT", "SEARCH_ROWS"]

WATCH_ROWS = 400
"""The watch table shows at most this many checkpoints of the branch (the newest)."""
SEARCH_LIMIT = 500
"""Matches one run of a search shows before it pauses (Continue finds the next ones)."""
SEARCH_ROWS = 10_000
"""The most matches the result list holds (then the search says to narrow it)."""


def show_value(value: Any, limit: int = 80) -> str:
    """A watch or field value in one short line."""
    if value is MISSING_VALUE:
        return "—"
    from studio.cli.history import jsonable

    try:
        text = json.dumps(jsonable(value), ensure_ascii=False, sort_keys=True)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _read_many(saver: Any, thread_id: str, ids: Sequence[str]) -> list[Any]:
    return [saver.get(thread_id, cid) for cid in ids]


def _search_page(store: Any, search: StoreSearch, max_hits: int) -> list[SearchHit]:
    return search.next_page(store, max_hits=max_hits)


def _recorded_marks(saver: Any, thread_id: str, limit: int = 3000) -> dict[str, tuple[str, ...]]:
    """Checkpoint id -> nodes a recorded replay answered from records (its task records),
    the subgraphs' checkpoints included (their own namespaces of the thread)."""
    from engine.checkpoint.base import ns_thread_key

    marks: dict[str, tuple[str, ...]] = {}
    namespaces = getattr(saver, "namespaces", None)
    keys = [thread_id] + ([ns_thread_key(thread_id, ns) for ns in namespaces(thread_id)] if namespaces else [])
    seen = 0
    for key in keys:
        for header in saver.list_headers(key):
            seen += 1
            if seen > limit:
                return marks
            ckpt = saver.get(key, header.id)
            records = ckpt.metadata.get("record") if ckpt is not None and isinstance(ckpt.metadata, dict) else None
            if isinstance(records, list):
                nodes = tuple(str(r.get("node")) for r in records if isinstance(r, dict) and r.get("recorded"))
                if nodes:
                    marks[header.id] = nodes
    return marks


class ReplayDialog(QDialog):
    """Pick the nodes answered from the recording (the others re-run with the current code)."""

    def __init__(self, nodes: Sequence[str], where: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Replay from here")
        self.setObjectName("replayDialog")
        column = QVBoxLayout(self)
        column.addWidget(QLabel(f"Replay from {where} on a new branch.\nTick the nodes to answer from the "
                                "recording (no LLM or API call); the others run with the current code.", self))
        self.boxes: dict[str, QCheckBox] = {}
        for name in nodes:
            box = QCheckBox(name, self, objectName=f"replay-{name}")
            self.boxes[name] = box
            column.addWidget(box)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Replay")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)

    def chosen(self) -> list[str]:
        return [n for n, box in self.boxes.items() if box.isChecked()]


TALL_WINDOW = 900
"""Window height (px) from which the Debug dock goes beside Events rather than in the right column."""


class DebugTools(QObject):
    """The Debug dock and menu of one window (see the module docstring)."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.session = session = window.session  # type: ignore[attr-defined]
        self.panel = DebugPanel(window)
        self.dock = QDockWidget("Debug", window)
        self.dock.setObjectName("dock-debug")
        self.dock.setWidget(self.panel)
        # hidden until asked for (Debug menu, View menu); placed when first shown (_place)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        window.tabifyDockWidget(window.docks.diff, self.dock)  # type: ignore[attr-defined]
        self.dock.hide()
        self._placed = False
        toggle = self.dock.toggleViewAction()
        toggle.triggered.connect(lambda checked: self._place() if checked else None)
        window.menus["View"].addAction(toggle)  # type: ignore[attr-defined]
        menu = window.menuBar().addMenu("&Debug")
        self.replay_action = QAction("Replay from here…", window, objectName="replayAction")
        self.replay_action.setToolTip("Re-run from the selected checkpoint, answering chosen nodes from the recording")
        self.replay_action.triggered.connect(self.ask_replay)
        self.export_action = QAction("Export thread…", window, objectName="exportAction")
        self.export_action.triggered.connect(self.ask_export)
        menu.addAction(self.replay_action)
        menu.addAction(self.export_action)
        menu.addSeparator()
        for title, tab in (("Watches", 0), ("Conditional breakpoints", 1), ("Field history", 2), ("Search", 3)):
            action = QAction(title, window)
            action.triggered.connect(lambda _=False, t=tab: self.show_tab(t))
            menu.addAction(action)
        self.watches: list[Expression] = []
        self.conditions = Conditions()
        session.state.driver.conditions = self.conditions
        self.last_replay: Any = None
        self.search_run: StoreSearch | None = None
        self.search_hits: list[SearchHit] = []
        self.search_limit = SEARCH_LIMIT
        self._refresh = QTimer(self, singleShot=True, interval=150)
        self._refresh.timeout.connect(self._schedule_watches)
        self._marks = QTimer(self, singleShot=True, interval=300)
        self._marks.timeout.connect(self._schedule_marks)
        self.pending: set[asyncio.Future[Any]] = set()
        window.installEventFilter(self)
        p = self.panel
        p.watch_added.connect(self.add_watch)
        p.watch_removed.connect(self.remove_watch)
        p.condition_added.connect(self.add_condition)
        p.condition_removed.connect(self.remove_condition)
        p.field_requested.connect(self.ask_field)
        p.search_requested.connect(self.search)
        p.search_continued.connect(self.continue_search)
        p.search_cancelled.connect(self.cancel_search)
        p.hit_picked.connect(self.pick_hit)
        p.checkpoint_picked.connect(session.select_checkpoint)
        for signal in (session.viewChanged, session.headChanged, session.timelineRowAdded):
            signal.connect(lambda *_: self._refresh.start())
        session.viewChanged.connect(p.set_current)
        session.timelineReset.connect(lambda *_: (self._refresh.start(), self._marks.start()))
        session.graphLoaded.connect(lambda *_: p.set_nodes(self._nodes()))

    # -- helpers -----------------------------------------------------------------------
    def _place(self) -> None:
        """Where the dock goes the first time it is shown: on a tall window, a tab beside
        Events, whose width lets the tables show before and after side by side; on a short
        one (under TALL_WINDOW px, e.g. 1280x720), a tab beside Reducer diffs in the right
        column, whose full height shows several rows where the bottom row shows one."""
        if self._placed:
            return
        self._placed = True
        window, docks = self.window, self.window.docks  # type: ignore[attr-defined]
        if window.height() < TALL_WINDOW or window.dockWidgetArea(self.dock) != Qt.DockWidgetArea.RightDockWidgetArea:
            return  # short, or the user's saved layout put it elsewhere
        shown = self.dock.isVisible()
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        window.tabifyDockWidget(docks.events, self.dock)
        if shown:
            self.dock.show()
            self.dock.raise_()

    def show_tab(self, index: int) -> None:
        self._place()
        self.dock.show()
        self.dock.raise_()
        self.panel.tabs.setCurrentIndex(index)

    def _replay_nodes(self) -> list[str]:
        """What Replay can answer: every node, those inside subgraphs as `sub:node`."""
        from engine.replay import node_paths

        graph = self.session.graph
        return node_paths(graph) if graph is not None else []

    def _nodes(self) -> list[str]:
        graph = self.session.graph
        return [n for n in graph.node_names if not n.startswith("__")] if graph is not None else []

    def _branch(self, limit: int | None = None) -> list[str]:
        """The viewed branch's checkpoint ids, oldest first."""
        s = self.session
        tip = s.viewed_id or s.head_id or s.history.latest_id
        return list(reversed(s.history.ancestors(tip, limit))) if tip else []

    def _spawn(self, make: Any) -> None:
        """Run `make()` (a coroutine function) as a task that a window close cancels."""
        async def guarded() -> None:
            try:
                await make()
            except asyncio.CancelledError:
                pass
            except Exception as e:  # a reader closed under us, a store error: said, never fatal
                if not self.session.state.closed:
                    self.session.message.emit(f"Debug: {type(e).__name__}: {e}")

        future = asyncio.ensure_future(guarded())
        self.pending.add(future)
        future.add_done_callback(self.pending.discard)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.Close:
            self._refresh.stop()
            self._marks.stop()
            if self.search_run is not None:
                self.search_run.cancel()
            for future in list(self.pending):
                future.cancel()
        return False

    async def idle(self) -> None:
        """Wait until every read started here has ended (tests, screenshots)."""
        while self.pending or self._refresh.isActive() or self._marks.isActive():
            await asyncio.sleep(0.02)

    async def _read(self, ids: Sequence[str]) -> list[Any]:
        s = self.session.state
        if s.reader is None or s.thread_id is None or not ids:
            return []
        return await s.reader.call(_read_many, s.thread_id, list(ids))

    # -- watches -------------------------------------------------------------------------
    def add_watch(self, text: str) -> None:
        try:
            expression = Expression.parse(text)
        except ExpressionError as e:
            self.panel.show_error("watch", str(e))
            return
        self.panel.show_error("watch", "")
        self.watches.append(expression)
        self._refresh.start()

    def remove_watch(self, index: int) -> None:
        if self.watches:
            del self.watches[index]
        self._refresh.start()

    def _schedule_watches(self) -> None:
        self._spawn(self._compute_watches)

    async def _compute_watches(self) -> None:
        texts = [w.text for w in self.watches]
        if not self.watches:
            self.panel.set_watches([], [])
            return
        ids = self._branch()[-WATCH_ROWS:]
        rows = []
        problems: list[str] = []
        for ckpt in await self._read(ids):
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
        self.panel.set_watches(texts, rows)
        self.panel.show_error("watch", problems[0] if problems else "")
        self.panel.set_current(self.session.viewed_id or self.session.head_id)

    # -- conditional breakpoints ----------------------------------------------------------
    def add_condition(self, kind: str, text: str, node: str, when: str) -> None:
        try:
            condition = BreakCondition.make(kind, text, node=node or None, when=when,
                                            nodes=self._nodes() if self.session.graph is not None else None)
        except (ExpressionError, ValueError) as e:
            self.panel.show_error("condition", str(e))
            return
        self.panel.show_error("condition", "")
        self.conditions.add(condition)
        self.panel.set_conditions([c.describe() for c in self.conditions.items])

    def remove_condition(self, index: int) -> None:
        if 0 <= index < len(self.conditions.items):
            self.conditions.remove(index)
        self.panel.set_conditions([c.describe() for c in self.conditions.items])

    # -- field history and search ----------------------------------------------------------
    def ask_field(self, path: str) -> None:
        self._spawn(lambda: self._field(path))

    async def _field(self, path: str) -> None:
        ids = self._branch()
        try:
            Expression.parse(path)
            ckpts = {c.id: c for c in await self._read(ids) if c is not None}
            changes = field_history(path, ids, ckpts.get)
        except ExpressionError as e:
            self.panel.show_error("field", str(e))
            return
        self.panel.show_error("field", "")
        rows = [(c.checkpoint_id, [str(c.step), c.source, ", ".join(c.nodes) or "—", show_value(c.before),
                                   show_value(c.after)],
                 f"checkpoint {c.checkpoint_id}\nbefore: {show_value(c.before, 2000)}\nafter: {show_value(c.after, 2000)}")
                for c in changes]
        title = f"`{path}` changed {len(rows)} time{'s' if len(rows) != 1 else ''} on this branch" + \
            (" (click a row to jump there)" if rows else "")
        self.panel.set_changes(title, rows)
        self.panel.set_current(self.session.viewed_id or self.session.head_id)

    def search(self, query: str, mode: str, scope: str = "all") -> None:
        """Start a search of every thread (`scope` "all") or the open one ("thread"); its
        pages run on the reader's thread and its matches appear as they are found."""
        self.cancel_search()
        s = self.session
        if scope not in ("all", "thread"):
            raise ValueError(f"unknown search scope {scope!r}: use 'all' or 'thread'")
        if s.state.reader is None:
            self.panel.show_error("search", "Open a run or a checkpoint database first.")
            return
        try:
            search = StoreSearch(query, mode, first=s.thread_id,
                                 threads=[s.thread_id] if scope == "thread" and s.thread_id else None)
        except (ExpressionError, ValueError) as e:
            self.panel.show_error("search", str(e))
            return
        self.panel.show_error("search", "")
        self.search_run, self.search_hits = search, []
        self.panel.set_hits([], "Searching…")
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
            self.panel.set_search_status(f"{len(self.search_hits):,} matches shown; search cancelled after "
                                         f"{self.search_run.scanned:,} checkpoints.", running=False, more=False)

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

    def _hit_row(self, hit: SearchHit) -> tuple[str, list[str], str]:
        where = hit.thread_id + (f" › {hit.namespace.split(':', 1)[0]}" if hit.namespace else "")
        tip = f"thread {hit.thread_id}" + (f", subgraph {hit.namespace}" if hit.namespace else "") + \
            f"\ncheckpoint {hit.checkpoint_id}"
        return hit.checkpoint_id, [where, str(hit.step), hit.source, ", ".join(hit.nodes) or "—", hit.excerpt], tip

    async def _run_search(self, search: StoreSearch) -> None:
        reader = self.session.state.reader
        if reader is None:
            return
        limit = min(self.search_limit, SEARCH_ROWS - len(self.search_hits))
        found = 0
        if not search.cancelled:
            self.panel.set_search_status(f"Searching… {search.describe()}", running=True, more=False)
        try:
            while not search.done and found < limit:
                hits = await reader.call(_search_page, search, limit - found)
                if search is not self.search_run:
                    return  # a newer search replaced this one
                found += len(hits)
                self.search_hits.extend(hits)
                self.panel.add_hits([self._hit_row(h) for h in hits])
                self.panel.set_search_status(f"Searching… {search.describe()}", running=True, more=False)
        except asyncio.CancelledError:
            search.cancel()
            raise
        except Exception as e:  # the store went away (another database opened), a read failed
            search.cancel()
            if search is self.search_run and not self.session.state.closed:
                self.panel.set_search_status(f"{len(self.search_hits):,} matches shown; the search stopped after "
                                             f"{search.scanned:,} checkpoints: {type(e).__name__}: {e}",
                                             running=False, more=False)
            return
        if search is not self.search_run:
            return
        shown = len(self.search_hits)
        if search.cancelled:
            note = f"{shown:,} matches shown; search cancelled after {search.scanned:,} checkpoints."
        elif search.done:
            note = f"{shown:,} match{'es' if shown != 1 else ''} in {search.scanned:,} checkpoints " \
                   f"of {search.threads:,} thread{'s' if search.threads != 1 else ''}, every branch searched."
        elif shown >= SEARCH_ROWS:
            note = f"{shown:,} matches shown, the most this list holds; {search.scanned:,} checkpoints searched " \
                   "so far. Narrow the search to see the others."
        else:
            note = f"{shown:,} matches shown; {search.scanned:,} checkpoints searched so far, more to search: " \
                   "Continue for the next matches."
        why = search.failures()
        why = why[:1].upper() + why[1:] + "." if why else ""
        if search.failed_everywhere:  # a wrong expression (a type error on every state): say why, not "0 matches"
            self.panel.show_error("search", why)
        elif why:
            note += " " + why
        self.panel.set_search_status(note, running=False, more=not search.done and shown < SEARCH_ROWS)
        self.panel.set_current(self.session.viewed_id or self.session.head_id)

    # -- recorded marks in the timeline ---------------------------------------------------
    def _schedule_marks(self) -> None:
        s = self.session.state
        if s.reader is None or s.thread_id is None:
            return

        async def read() -> None:
            marks = await s.reader.call(_recorded_marks, s.thread_id)
            if marks:
                self.window.panels.timeline.mark_recorded(marks)  # type: ignore[attr-defined]

        self._spawn(read)

    # -- replay and export ---------------------------------------------------------------
    def ask_replay(self) -> None:
        s = self.session
        start = s.viewed_id or s.head_id
        if s.graph is None or start is None:
            s.message.emit("Replay needs the graph's code and a checkpoint: open the run with --graph FILE.py.")
            return
        dialog = ReplayDialog(self._replay_nodes(), s.history.describe(start), self.window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return
        self.replay(start, dialog.chosen())

    def replay(self, start: str, record: Sequence[str]) -> bool:
        """Replay the thread from `start` answering `record` nodes from the recording."""
        from engine.replay import ReplayError, areplay

        s = self.session
        thread, graph, saver = s.thread_id, s.graph, s.state.saver

        async def go() -> None:
            s.state.driver.drop_run()
            try:
                result = await areplay(graph, thread, start, record=record, saver=saver)
            except ReplayError as e:
                s.message.emit(f"Replay refused: {e}")
                raise
            self.last_replay = result
            marks = dict(result.marks)  # subgraphs' checkpoints too
            s.open_thread(thread)
            self.window.panels.timeline.mark_recorded(marks)  # type: ignore[attr-defined]
            answered = ", ".join(record) or "no node"
            s.message.emit(f"Replayed {len(result.steps)} steps on a new branch ({result.status}); "
                           f"{answered} answered from the recording.")
            return None

        return s.submit("replay", go)

    def ask_export(self) -> None:
        s = self.session
        if s.thread_id is None:
            return
        path, _ = QFileDialog.getSaveFileName(self.window, "Export thread", f"{s.thread_id}.sqlite",
                                              "Checkpoint files (*.sqlite)")
        if not path:
            return
        redact = QLineEdit()  # keys are asked in the dialog below
        dialog = QDialog(self.window)
        dialog.setWindowTitle("Redact keys")
        column = QVBoxLayout(dialog)
        column.addWidget(QLabel("Keys whose values to replace by <redacted> (comma-separated; empty: none):"))
        column.addWidget(redact)
        tip = s.viewed_id or s.head_id
        only_branch = QCheckBox("Only the viewed branch (the checkpoint shown and its ancestors)", dialog,
                                objectName="exportBranch")
        only_branch.setEnabled(tip is not None)
        column.addWidget(only_branch)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok, dialog)
        buttons.accepted.connect(dialog.accept)
        column.addWidget(buttons)
        dialog.exec()
        self.export(path, [k.strip() for k in redact.text().split(",") if k.strip()],
                    branch=tip if only_branch.isChecked() else None)

    def export(self, path: str, redact: Sequence[str] = (), *, branch: str | None = None) -> None:
        """Export the open thread (every subgraph namespace included), or the branch ending
        at `branch`, on the reader's thread."""
        from engine.checkpoint.export import export_thread

        s = self.session.state
        if s.reader is None or s.thread_id is None:
            return
        thread = s.thread_id

        async def write() -> None:
            try:
                summary = await s.reader.call(
                    lambda saver: export_thread(saver, thread, path, branch=branch, redact=redact))
            except Exception as e:
                self.session.message.emit(f"Export failed: {e}")
                return
            subgraphs = f" and {summary.subgraph_checkpoints} subgraph checkpoints" if summary.subgraph_checkpoints else ""
            self.session.message.emit(f"Exported {summary.checkpoints} checkpoints{subgraphs} of {thread} to {path}.")

        self._spawn(write)
