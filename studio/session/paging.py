"""A long thread's history, read a page at a time as the user goes back in it.

Opening a thread reads its newest `FIRST_PAGE` checkpoint headers (`read_history`), not the
whole history: a thread of 100,000 checkpoints opens as fast as one of 1,000. Older
checkpoints are read when the user asks for them (`HistoryPages`): scrolling the timeline
to its top reads the next older page (each page as long as everything listed so far, so
a whole history takes a handful of reads), Home in the timeline reads all the rest, and
going back past the oldest listed checkpoint (Ctrl+[) or picking a search hit not listed
yet reads pages until it is there. A page is read on the reader's thread and its
timeline tree is built on a worker thread; the UI thread only swaps the tree in.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from engine import CheckpointError
from engine.checkpoint.ids import ns_thread_key
from engine.checkpoint.reading import skipping
from studio.core.bulk_rows import timeline_rows
from studio.core.collector import bulk_allocation
from studio.core.history import History
from studio.core.records import ErrorReport, TimelineRow, namespace_owner
from studio.core.state import SessionState
from studio.core.timeline_tree import PlannedRows, plan_rows

from .presenter import Presenter
from .signals import SessionSignals

__all__ = ["FIRST_PAGE", "HistoryPages", "read_history", "unreadable_report"]

log = logging.getLogger(__name__)

FIRST_PAGE = 1000
"""Checkpoints read when a thread opens; older ones are read a page at a time."""


def read_history(saver: Any, thread_id: str, limit: int | None = None, before: str | None = None,
                 ) -> tuple[History, tuple[Any, ...], list[tuple[str, str]]]:
    """On the reader's thread: the thread's newest `limit` headers (all with None) older
    than checkpoint `before` (None: from the newest) as a History, and its rows oldest
    first. `History.more_before` says whether older ones are left, `History.cursor` is
    the oldest read. Subgraphs' checkpoints (in the thread's namespaces) are added for
    the parent checkpoints read, to be shown under the step that ran them. Third: the
    (checkpoint id, reason) of rows skipped because they cannot be decoded (a damaged
    file), so one bad row does not hide the thread."""
    unreadable: list[tuple[str, str]] = []
    skip = skipping(saver, lambda cid, reason: unreadable.append((cid, reason)))
    wanted = None if limit is None else limit + 1  # one more: whether older ones are left
    with bulk_allocation():  # a million objects that live on, no cycle among them: no collection
        headers = list(saver.list_headers(thread_id, before=before, limit=wanted, **skip))  # newest first
        more = limit is not None and len(headers) > limit
        if more:
            del headers[limit:]
        headers.reverse()  # oldest first
        history = History(timeline_rows(headers))
    history.more_before = more
    history.cursor = headers[0].id if headers else before
    namespaces = getattr(saver, "namespaces", None)
    try:
        for ns in (namespaces(thread_id) if callable(namespaces) and len(history) else ()):
            owner = namespace_owner(ns)
            if not ns or owner is not None and owner not in history:  # its parent step is on another page
                continue
            key = ns_thread_key(thread_id, ns)
            rows = timeline_rows(saver.list_headers(key, **skip))
            if owner is None and rows and not any(r.owner for r in rows):
                # LangGraph's namespace in a Retrograph file (an exported run): its task id does
                # not name the owner; the checkpoints' metadata does (one namespace, one owner)
                found = _parents_owner(saver.load(key, rows[0].id))
                rows = [dataclasses.replace(r, owner=found) for r in rows] if found in history else []
            for row in rows:
                if row.owner_id in history:  # a LangGraph store names the owner in each row
                    history.add(row)
    except CheckpointError as exc:  # a store that keeps no readable subgraph history: the thread alone
        log.warning("could not read the subgraph checkpoints of %s: %s", thread_id, exc)
    return history, history.rows(), unreadable


def unreadable_report(unreadable: list[tuple[str, str]]) -> ErrorReport:
    """The banner for checkpoints skipped while reading a thread (the rest is listed)."""
    cid, reason = unreadable[0]
    more = f" (and {len(unreadable) - 1} more)" if len(unreadable) > 1 else ""
    return ErrorReport(
        kind="database", title="A checkpoint could not be read",
        message=f"checkpoint {cid} could not be read: {reason}; the rest is listed{more}.",
        detail="\n".join(f"{c}: {r}" for c, r in unreadable[:50]),
        hint="The file is damaged there; nothing was written to it. Export the thread to keep what is readable.",
    )


def _parents_owner(ckpt: Any) -> str | None:
    """The root checkpoint a subgraph checkpoint's metadata names (`parents[""]`)."""
    parents = getattr(ckpt, "metadata", {}).get("parents") if ckpt is not None else None
    owner = parents.get("") if isinstance(parents, dict) else None
    return owner if isinstance(owner, str) and owner else None


def _joined(older: History, newer: tuple[TimelineRow, ...], total: int | None) -> tuple[History, PlannedRows]:
    """On a worker thread: the older page's History with the rows listed before it
    (`newer`, all newer than the page) added, and its rows with their timeline tree."""
    with bulk_allocation():
        older.add_many(newer)
        older.total = total
        return older, plan_rows(older.all_rows())


class HistoryPages:
    """Reads the open thread's older checkpoints, a page at a time, when asked."""

    def __init__(self, state: SessionState, signals: SessionSignals, presenter: Presenter) -> None:
        self.state = state
        self.signals = signals
        self.presenter = presenter
        self._task: asyncio.Task[Any] | None = None
        self.pages_read = 0
        """Older pages read since the thread opened (tests and the benchmark read it)."""

    @property
    def loading(self) -> bool:
        return self._task is not None and not self._task.done()

    def opened(self) -> None:
        """Another thread is shown: forget a read of the old one's pages."""
        self.cancel()
        self.pages_read = 0
        self.signals.timelineMore.emit(self.state.history.older_unlisted())

    def cancel(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = None

    def request(self, everything: bool = False) -> bool:
        """Read the next older page (`everything`: all the rest). False when nothing is
        left to read; a read already running is not repeated."""
        s = self.state
        if not s.history.more_before or s.thread_id is None or s.reader is None or s.closed:
            return False
        if not self.loading:
            self._task = asyncio.ensure_future(self._read_older(s.thread_id, everything))
        return True

    def then(self, checkpoint_id: str, action: Callable[[], None]) -> bool:
        """Read older pages until `checkpoint_id` is listed (or none are left), then run
        `action`. False (and nothing read) when it is listed already or nothing is left."""
        s = self.state
        if checkpoint_id in s.history or s.history.subgraph_row(checkpoint_id) is not None \
                or not s.history.more_before:
            return False
        thread_id = s.thread_id

        async def go() -> None:
            while s.thread_id == thread_id and checkpoint_id not in s.history and s.history.more_before:
                before = len(s.history)
                if not self.request() or self._task is None:
                    break
                await asyncio.shield(self._task)
                if len(s.history) == before:  # the read failed (it said so): no endless retry
                    break
            if s.thread_id == thread_id and not s.closed:
                action()

        asyncio.ensure_future(go())
        return True

    async def _read_older(self, thread_id: str, everything: bool) -> None:
        s = self.state
        assert s.reader is not None
        listed = s.history
        limit = None if everything else max(FIRST_PAGE, len(listed))  # pages double: few reads in all
        self.signals.message.emit(f"Reading {'all the' if everything else f'{limit:,}'} older checkpoints…")
        try:
            page, _, unreadable = await s.reader.call(read_history, thread_id, limit, listed.cursor)
        except asyncio.CancelledError:
            return
        except Exception as exc:
            self.signals.message.emit(f"Could not read the older checkpoints: {exc}")
            return
        if s.thread_id != thread_id or s.closed:
            return
        # joined and its tree built on a worker thread: the model on the UI thread only swaps it in
        listed = s.history.all_rows()
        joined, planned = await asyncio.get_running_loop().run_in_executor(
            None, _joined, page, listed, s.history.total)
        if s.thread_id != thread_id or s.closed:
            return
        late = [row for row in s.history.all_rows() if joined.add(row)]  # committed while it was built
        s.history = joined
        self.pages_read += 1
        if unreadable:
            self.presenter.set_error(unreadable_report(unreadable))
        self.signals.timelineExtended.emit(planned)
        for row in late:
            self.signals.timelineRowAdded.emit(row)
        await asyncio.sleep(0)  # the timeline repaints its rows before the count under it changes
        if s.history is not joined or s.closed:
            return
        self.signals.timelineMore.emit(joined.older_unlisted())
        n = len(page)
        self.signals.message.emit(f"Read {n:,} older checkpoint{'s' if n != 1 else ''}"
                                  + ("." if page.more_before else ": the whole history is listed."))
