"""A page of a PostgreSQL thread's history, newest first, with every value and pending
write of its checkpoints, in ONE statement (`PAGE`) whatever the thread's length: what
`get_state_history` reads (StateReads.history_with_writes, postgres_state.py).

The page's rows come by the `(thread_id, seq)` index below a bound (the previous page's
oldest `seq`); a value a row keeps inline for its own superstep comes with the row; every
other piece (the values table, an older checkpoint's inline value, the appends of a list)
is one primary-key probe, and each row's pending writes one probe of
`retrograph_writes_by_checkpoint`. So a page reads what its checkpoints hold, never the
history before or after them.
"""
from __future__ import annotations

import builtins
from collections.abc import Iterator
from typing import Any

from .base import Checkpoint, PendingWrite
from .postgres_fast import prepared
from .postgres_sql import FULL, VALUE_PIECES

__all__ = ["PAGE", "HistoryPages"]

PAGE = f"""
WITH RECURSIVE page AS MATERIALIZED (
    SELECT {FULL}, inline FROM retrograph_checkpoints  -- ordered as retrograph_checkpoints_by_thread: read by it
    WHERE thread_id = %(t)s AND seq < %(bound)s ORDER BY thread_id DESC, seq DESC LIMIT %(size)s
), n AS MATERIALIZED (  -- the versions to read: none a row holds inline for its own superstep
    SELECT DISTINCT e.key AS channel, e.value AS version
    FROM page p CROSS JOIN LATERAL jsonb_each_text(convert_from(p.versions, 'UTF8')::jsonb) AS e
    WHERE e.value <> p.id OR p.inline IS NULL OR NOT p.inline ? e.key
), {VALUE_PIECES}
)
SELECT 0 AS tag, {FULL}, inline::text, NULL::bigint AS size, NULL::boolean AS tagged FROM page
UNION ALL  -- a piece of a value: seq = depth, id = requested version, parent_id = channel, step = kind, next = data
SELECT 2, depth, root, channel, kind, NULL, NULL, data, NULL, NULL, NULL, NULL, size, tagged FROM r
UNION ALL  -- a small value kept in a checkpoint's row outside the page, or a page row's for another
SELECT 2, 0, n.version, n.channel, 0, NULL, NULL, convert_to(c.inline ->> n.channel, 'UTF8'), NULL, NULL, NULL, NULL,
       0, NULL
FROM n CROSS JOIN LATERAL (
    SELECT inline FROM retrograph_checkpoints c
    WHERE c.thread_id = %(t)s AND c.id = n.version AND c.inline ? n.channel LIMIT 1) AS c
UNION ALL  -- a pending write: seq = wid, id = task id, parent_id = task name, source = channel, next = value,
           -- created_at = its checkpoint
SELECT 3, w.wid, w.task_id, w.task_name, NULL, w.channel, w.checkpoint, w.value, NULL, NULL, NULL, NULL, NULL, NULL
FROM page p CROSS JOIN LATERAL (  -- OFFSET 0: a probe per row, never a join over the thread's writes
    SELECT * FROM retrograph_writes w WHERE w.thread_id = %(t)s AND w.checkpoint = p.id OFFSET 0) AS w
"""
_PAGE = prepared("retrograph_page_v1", PAGE)
_BOUND = "SELECT seq FROM retrograph_checkpoints WHERE thread_id = %s AND id = %s"
_SIZE = 100
_TOP = 2**63 - 1


class HistoryPages:
    """StateReads' `history_with_writes` by pages of one statement (postgres_state.py)."""

    _row_of: Any
    _part_of: Any
    _max_chain: int
    _psycopg: Any
    connection: Any
    _from_row: Any
    _writes_of: Any
    _inline_parts: Any
    _paged_by_calls: Any

    def _read_pages(self, thread_id: str, before: str | None, limit: int | None,
                    ) -> Iterator[tuple[Checkpoint, builtins.list[PendingWrite]]]:
        """`history(...)` with each checkpoint's pending writes, a statement per page of
        100; an unreadable checkpoint raises when it is reached (the newer ones are given).
        A record the server cannot parse (a database edited by hand) sends the rest of the
        listing through `_paged_by_calls`, which names it."""
        left = max(limit, 0) if limit is not None else -1
        bound = _TOP
        if before is not None:
            with self.connection() as conn:
                found = conn.execute(_BOUND, (thread_id, before)).fetchone()
            if found is None:
                return
            (bound,) = found
        last = before
        while left != 0:
            size = _SIZE if left < 0 else min(left, _SIZE)
            params = {"t": thread_id, "bound": bound, "size": size, "max_depth": self._max_chain}
            try:
                with self.connection() as conn:
                    rows = conn.fetch_prepared(_PAGE, params)
                    if rows is None:
                        rows = conn.execute(PAGE, params).fetchall()
            except self._psycopg.DataError:
                yield from self._paged_by_calls(thread_id, before=last, limit=None if left < 0 else left)
                return
            heads, parts, writes = self._page_of(rows)
            for row in heads:  # decoded as reached: an unreadable one raises after the newer ones are given
                ckpt = self._from_row(thread_id, row, parts)
                mine = sorted(writes.get(row.id, ()), key=_first)
                yield ckpt, self._writes_of(row.id, [w[1:] for w in mine])
                last = ckpt.id
            if len(heads) < size:
                return
            bound, left = heads[-1].seq, (left - len(heads) if left > 0 else left)

    def _page_of(self, rows: builtins.list[tuple[Any, ...]]) -> tuple[builtins.list[Any], Any, Any]:
        """A page's rows (newest first), its value pieces by (channel, version), its writes by checkpoint."""
        heads: builtins.list[Any] = []
        parts: dict[tuple[str, str], builtins.list[Any]] = {}
        writes: dict[str, builtins.list[tuple[Any, ...]]] = {}
        part_of = self._part_of
        for tag, *cols in rows:
            if tag == 0:
                row = self._row_of(cols[:10])
                heads.append(row)
                if cols[10] is not None:
                    self._inline_parts(row, cols[10], parts)
            elif tag == 2:  # depth, root, channel, kind, -, -, data, -, -, -, -, size, tagged
                parts.setdefault((cols[2], cols[1]), []).append(
                    part_of((cols[2], cols[0], cols[3], cols[6], cols[11], cols[12])))
            else:  # wid, task id, task name, -, channel, checkpoint, value
                writes.setdefault(cols[5], []).append((cols[0], cols[1], cols[2], cols[4], cols[6]))
        heads.sort(key=_seq, reverse=True)
        return heads, parts, writes


def _seq(row: Any) -> int:
    return row.seq  # type: ignore[no-any-return]


def _first(row: tuple[Any, ...]) -> Any:
    return row[0]
