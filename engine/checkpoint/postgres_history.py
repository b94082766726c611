"""Reading a page of a PostgreSQL thread's checkpoints with their values in two round
trips, whatever the page's size: the rows (`FULL`) in one query, every stored piece of
every value they name in one recursive query (`LOAD_MANY`, which says for which
requested version each piece was read). `retrograph history --values` and `list()` read
a long history a page at a time instead of two queries per checkpoint."""
from __future__ import annotations

import builtins
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ..errors import CheckpointDecodeError
from .base import Checkpoint
from .postgres_sql import FULL

__all__ = ["LOAD_MANY", "group_parts", "PageReads"]

LOAD_MANY = """
WITH RECURSIVE r(root, channel, version, base, kind, data, count, size, tagged, depth) AS (
    SELECT v.version, v.channel, v.version, v.base, v.kind, v.data, v.count, v.size, v.tagged, 0
    FROM unnest(%(ch)s::text[], %(ver)s::text[]) AS n(channel, version) CROSS JOIN LATERAL (
        SELECT * FROM retrograph_values v
        WHERE v.thread_id = %(t)s AND v.channel = n.channel AND v.version = n.version LIMIT 1) AS v
  UNION ALL
    SELECT r.root, v.channel, v.version, v.base, v.kind, v.data, v.count, v.size, v.tagged, r.depth + 1
    FROM r CROSS JOIN LATERAL (
        SELECT * FROM retrograph_values v
        WHERE v.thread_id = %(t)s AND v.channel = r.channel AND v.version = r.base LIMIT 1) AS v
    WHERE r.kind = 2 AND r.depth < %(max_depth)s
)
SELECT root, channel, depth, kind, data, size, tagged FROM r
UNION ALL
SELECT n.version, n.channel, 0, 0, convert_to(c.inline ->> n.channel, 'UTF8'), 0, NULL FROM unnest(%(ch)s::text[], %(ver)s::text[]) AS n(channel, version) CROSS JOIN LATERAL (
    SELECT inline FROM retrograph_checkpoints c
    WHERE c.thread_id = %(t)s AND c.id = n.version AND c.inline ? n.channel LIMIT 1) AS c
"""


def group_parts(rows: Any) -> dict[tuple[str, str], list[tuple[Any, ...]]]:
    """`LOAD_MANY` rows by (channel, requested version): each a `LOAD` row (channel, depth,
    kind, data, size, tagged)."""
    out: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for root, *part in rows:
        out.setdefault((part[0], root), []).append(tuple(part))
    return out


class PageReads:
    """PostgresSaver's reads of many checkpoints at once (`get_many`, and `list` by pages)."""

    _row_of: Any
    _part_of: Any
    _versions_of: Any
    _max_chain: int
    connection: Any
    _check: Any
    _decode: Any

    def get_many(self, thread_id: str, ids: Sequence[str]) -> dict[str, Checkpoint | CheckpointDecodeError]:
        """The thread's checkpoints `ids` with their values, in two queries whatever their
        number; one that cannot be decoded is given as its error."""
        out: dict[str, Checkpoint | CheckpointDecodeError] = {}
        if not ids:
            return out
        parsed: dict[str, tuple[Any, dict[str, str]]] = {}
        wanted: dict[tuple[str, str], None] = {}
        with self.connection() as conn:
            rows = conn.execute(f"SELECT {FULL} FROM retrograph_checkpoints WHERE thread_id = %s AND id = ANY(%s)",
                                (thread_id, builtins.list(ids))).fetchall()
            for raw in rows:
                row = self._row_of(raw)
                try:
                    versions = self._check(row, self._versions_of, row.versions)
                except CheckpointDecodeError as e:
                    out[row.id] = e
                    continue
                parsed[row.id] = (row, versions)
                wanted.update(dict.fromkeys(versions.items()))
            parts = group_parts(conn.execute(LOAD_MANY, {
                "t": thread_id, "ch": [k[0] for k in wanted], "ver": [k[1] for k in wanted],
                "max_depth": self._max_chain,
            })) if wanted else {}
        for cid, (row, versions) in parsed.items():
            found = [self._part_of(p) for key in versions.items() for p in parts.get(key, ())]
            try:
                out[cid] = self._decode(thread_id, row, versions, found)
            except CheckpointDecodeError as e:
                out[cid] = e
        return out

    def _listing(self, thread_id: str, ids: Iterable[str], page: int = 100) -> Iterator[Checkpoint]:
        """`ids` read a page at a time, given in order; the first unreadable one raises."""
        chunk: builtins.list[str] = []
        for cid in ids:
            chunk.append(cid)
            if len(chunk) == page:
                yield from self._in_order(thread_id, chunk)
                chunk = []
        yield from self._in_order(thread_id, chunk)

    def _in_order(self, thread_id: str, ids: builtins.list[str]) -> Iterator[Checkpoint]:
        found = self.get_many(thread_id, ids)
        for cid in ids:
            got = found.get(cid)
            if isinstance(got, CheckpointDecodeError):
                raise got
            if got is not None:
                yield got
