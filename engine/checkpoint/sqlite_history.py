"""`get_state_history` on SQLite: a page of checkpoints with their pending writes, read in
one snapshot, the writes of the whole page in one query (not one call per checkpoint).

A saver class that overrides one of the reads it stands for (`history`, `pending_writes`,
`load`, ...) is called as it is: the pairs are then its `history` and its `pending_writes`.
"""
from __future__ import annotations

import builtins
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import CheckpointDecodeError
from .base import Checkpoint, PendingWrite, keeps_own_methods
from .sqlite_rows import ROW_COLS
from .sqlite_schema import N_BITS

__all__ = ["PagedWrites", "decode_writes"]

_PAGE = 25  # as `history`: a caller often wants the first few (a timeline's visible rows)
_WRITES_OF_PAGE = ("SELECT checkpoint, task_id, task_name, channel, value FROM writes"
                   " WHERE tid = ? AND checkpoint IN ({}) ORDER BY wid")
_READS = ("history", "pending_writes", "load", "_fetch", "_decode", "_pages")


def decode_writes(serde: Any, path: str, checkpoint_id: str, rows: Sequence[Sequence[Any]]) -> list[PendingWrite]:
    """Pending writes from `(task_id, task_name, channel, value)` rows of the writes table,
    checked (the file may come from anyone)."""
    out = []
    for task_id, task_name, channel, value in rows:
        try:
            if not (type(task_id) is str and type(task_name) is str and type(channel) is str):
                raise CheckpointDecodeError("its task or channel is not text")
            decoded = serde.loads(value)
        except CheckpointDecodeError as e:
            raise CheckpointDecodeError(f"`{path}`, a pending write of `{checkpoint_id}`: {e}") from None
        out.append(PendingWrite(task_id=task_id, task_name=task_name, channel=channel, value=decoded))
    return out


class PagedWrites:
    """SqliteSaver's `history_with_writes` (what `get_state_history` reads when a saver has it)."""

    serde: Any
    path: str
    history: Any
    pending_writes: Any
    _pages: Any
    _fetch: Any
    _decode: Any

    def _own_page_reads(self) -> bool:
        return keeps_own_methods(self, PagedWrites, _READS)

    def history_with_writes(self, thread_id: str, *, before: str | None = None, limit: int | None = None,
                            ) -> Iterator[tuple[Checkpoint, builtins.list[PendingWrite]]]:
        """`history(...)` with each checkpoint's pending writes, newest first."""
        if not self._own_page_reads():
            for ckpt in self.history(thread_id, before=before, limit=limit):
                yield ckpt, self.pending_writes(thread_id, ckpt.id)
            return
        for found, writes in self._pages(ROW_COLS, thread_id, before, limit, size=_PAGE,
                                         fetch_page=self._page_with_writes):
            ckpt = self._decode(thread_id, *found)
            yield ckpt, decode_writes(self.serde, self.path, ckpt.id, writes)

    def _page_with_writes(self, conn: sqlite3.Connection, rows: Sequence[tuple[Any, ...]],
                          ) -> builtins.list[tuple[Any, builtins.list[Any]]]:
        """Each row's `_fetch` and its writes' rows, in the caller's snapshot."""
        if not rows:
            return []
        fetched = [self._fetch(conn, row) for row in rows]
        ids = [row[1] for row in rows]  # ROW_COLS: cid, id, ...
        by_checkpoint: dict[Any, builtins.list[Any]] = {}
        query = _WRITES_OF_PAGE.format(",".join("?" * len(ids)))
        for checkpoint, *write in conn.execute(query, (rows[0][0] >> N_BITS, *ids)):
            by_checkpoint.setdefault(checkpoint, []).append(write)
        return [(f, by_checkpoint.get(i, [])) for f, i in zip(fetched, ids)]
