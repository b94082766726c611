"""`get_state` of any PostgreSQL checkpoint in one statement, and a page of history with
its pending writes in three, whatever the thread's length.

`STATE` reads, in one snapshot: the checkpoint's row, its first child's row (the one its
own superstep made, by `retrograph_checkpoints_by_parent`), every stored piece of both
rows' values (their versions record parsed by the server, each piece found by its primary
key) and the checkpoint's pending writes. Every lookup is an index probe by key, so the
rows read are bounded by what the two checkpoints hold, never by the history before or
after them. A row the server cannot parse (a database edited by hand) makes the saver read
the checkpoint the slow way, which names what is wrong.
"""
from __future__ import annotations

import builtins
from collections.abc import Iterator, Sequence
from typing import Any

import orjson

from ..errors import CheckpointDecodeError
from .base import Checkpoint, PendingWrite, keeps_own_methods, state_by_calls
from .postgres_fast import prepared
from .postgres_history import PageReads
from .postgres_page import HistoryPages
from .postgres_sql import FULL, VALUE_PIECES

__all__ = ["STATE", "WRITES_MANY", "StateReads", "generic_plans"]

STATE = f"""
WITH RECURSIVE pair AS MATERIALIZED (  -- the checkpoint (tag 0) and its first child (tag 1), with their inline values
    (SELECT 0 AS tag, {FULL}, inline FROM retrograph_checkpoints WHERE thread_id = %(t)s AND id = %(c)s)
  UNION ALL
    (SELECT 1, {FULL}, inline FROM retrograph_checkpoints WHERE thread_id = %(t)s AND parent_id = %(c)s
     ORDER BY seq LIMIT 1)
), n AS MATERIALIZED (  -- the versions to read: all the checkpoint's, the child's own; none its row holds inline
    SELECT e.key AS channel, e.value AS version
    FROM pair p CROSS JOIN LATERAL jsonb_each_text(convert_from(p.versions, 'UTF8')::jsonb) AS e
    WHERE (p.tag = 0 OR e.value = p.id) AND NOT EXISTS (SELECT FROM pair q WHERE q.id = e.value AND q.inline ? e.key)
), {VALUE_PIECES}
)
SELECT tag, {FULL}, inline::text, NULL::bigint AS size, NULL::boolean AS tagged FROM pair
UNION ALL  -- a piece of a value: seq = depth, id = requested version, parent_id = channel, step = kind, next = data
SELECT 2, depth, root, channel, kind, NULL, NULL, data, NULL, NULL, NULL, NULL, size, tagged FROM r
UNION ALL  -- a small value kept in an older checkpoint's row
SELECT 2, 0, n.version, n.channel, 0, NULL, NULL, convert_to(c.inline ->> n.channel, 'UTF8'), NULL, NULL, NULL, NULL,
       0, NULL
FROM n CROSS JOIN LATERAL (
    SELECT inline FROM retrograph_checkpoints c
    WHERE c.thread_id = %(t)s AND c.id = n.version AND c.inline ? n.channel LIMIT 1) AS c
UNION ALL  -- a pending write: seq = wid, id = task id, parent_id = task name, source = channel, next = value
SELECT 3, w.wid, w.task_id, w.task_name, NULL, w.channel, NULL, w.value, NULL, NULL, NULL, NULL, NULL, NULL
FROM retrograph_writes w WHERE w.thread_id = %(t)s AND w.checkpoint = %(c)s
"""
_STATE = prepared("retrograph_state_v2", STATE)


def generic_plans(conn: Any) -> None:
    """Each connection of the pool the saver makes plans a prepared statement once: every
    statement it repeats looks rows up by key (a plan that does not depend on the values),
    and planning the recursive value reads on every call would cost more than running them.
    A connection or pool handed in keeps its own settings."""
    conn.execute("SET plan_cache_mode = force_generic_plan")


_READS = ("load", "first_child", "pending_writes", "history", "get_many")
WRITES_MANY = """
SELECT checkpoint, task_id, task_name, channel, value FROM retrograph_writes
WHERE thread_id = %s AND checkpoint = ANY(%s) ORDER BY wid
"""


class StateReads(HistoryPages, PageReads):
    """PostgresSaver's reads for `get_state` (`load_state`) and `get_state_history`
    (`history_with_writes`)."""

    _row_of: Any
    _part_of: Any
    _versions_of: Any
    _max_chain: int
    _pinned: Any
    connection: Any
    serde: Any
    _check: Any
    _decode: Any
    load: Any
    first_child: Any
    pending_writes: Any
    history: Any
    get_many: Any
    _pages: Any
    _psycopg: Any

    def _own_reads(self) -> bool:
        """Whether load, first_child and pending_writes are this saver's own (a subclass
        overriding one is called as it is) and no maintenance transaction is open."""
        return keeps_own_methods(self, StateReads, _READS) and getattr(self._pinned, "conn", None) is None

    def load_state(self, thread_id: str, checkpoint_id: str,
                   ) -> tuple[Checkpoint | None, Checkpoint | None, builtins.list[PendingWrite]]:
        """Checkpoint `checkpoint_id`, its first child (or None) and its pending writes, in
        one statement; (None, None, []) when there is no such checkpoint. The child carries
        its header, versions and extras but only the values its own superstep changed
        (what get_state's record of that superstep reads: task_results.derive_results)."""
        if not self._own_reads():
            return state_by_calls(self, thread_id, checkpoint_id)
        params = {"t": thread_id, "c": checkpoint_id, "max_depth": self._max_chain}
        try:
            with self.connection() as conn:
                rows = conn.fetch_prepared(_STATE, params)
                if rows is None:  # not a connection for the direct path, or the statement failed: psycopg says why
                    rows = conn.execute(STATE, params).fetchall()
        except self._psycopg.DataError:  # a record the server cannot parse: the slow way names it
            return state_by_calls(self, thread_id, checkpoint_id)
        heads: dict[int, Any] = {}
        parts: dict[tuple[str, str], builtins.list[Any]] = {}
        writes: builtins.list[tuple[Any, ...]] = []
        part_of = self._part_of
        for tag, *cols in rows:
            if tag < 2:
                heads[tag] = row = self._row_of(cols[:10])
                if cols[10] is not None:
                    self._inline_parts(row, cols[10], parts)
            elif tag == 2:  # depth, root, channel, kind, -, -, data, -, -, -, -, size, tagged
                parts.setdefault((cols[2], cols[1]), []).append(
                    part_of((cols[2], cols[0], cols[3], cols[6], cols[11], cols[12])))
            else:
                writes.append((cols[0], cols[1], cols[2], cols[4], cols[6]))
        if 0 not in heads:
            return None, None, []
        ckpt = self._from_row(thread_id, heads[0], parts)
        child = self._from_row(thread_id, heads[1], parts, own=True) if 1 in heads else None
        writes.sort(key=_first)
        return ckpt, child, self._writes_of(checkpoint_id, [w[1:] for w in writes])

    def _inline_parts(self, row: Any, text: str, parts: dict[tuple[str, str], builtins.list[Any]]) -> None:
        """The values `row` keeps inline (changed by its own superstep), as value pieces."""
        for channel, data in self._check(row, _inline_of, text).items():
            parts[(channel, row.id)] = [self._part_of((channel, 0, 0, data, 0, None))]

    def _from_row(self, thread_id: str, row: Any, parts: dict[tuple[str, str], builtins.list[Any]],
                  own: bool = False) -> Checkpoint:
        versions = self._check(row, self._versions_of, row.versions)
        if own:  # a child: the values its own superstep changed
            found = [p for key in versions.items() if key[1] == row.id for p in parts.get(key, ())]
        else:
            found = [p for key in versions.items() for p in parts.get(key, ())]
        return self._decode(thread_id, row, versions, found)  # type: ignore[no-any-return]

    def _writes_of(self, checkpoint_id: str, rows: Sequence[tuple[Any, ...]]) -> builtins.list[PendingWrite]:
        out = []
        for task_id, task_name, channel, value in rows:
            try:
                decoded = self.serde.loads(bytes(value))
            except CheckpointDecodeError as e:
                raise CheckpointDecodeError(f"{self!r}, a pending write of `{checkpoint_id}`: {e}") from None
            out.append(PendingWrite(task_id=task_id, task_name=task_name, channel=channel, value=decoded))
        return out

    def history_with_writes(self, thread_id: str, *, before: str | None = None, limit: int | None = None,
                            ) -> Iterator[tuple[Checkpoint, builtins.list[PendingWrite]]]:
        """`history(...)` with each checkpoint's pending writes, a page of 100 in one
        statement (postgres_page.py)."""
        if not self._own_reads():
            yield from ((c, self.pending_writes(thread_id, c.id)) for c in self.history(thread_id, before=before,
                                                                                         limit=limit))
            return
        yield from self._read_pages(thread_id, before, limit)

    def _paged_by_calls(self, thread_id: str, *, before: str | None = None, limit: int | None = None,
                        ) -> Iterator[tuple[Checkpoint, builtins.list[PendingWrite]]]:
        """A page's headers, rows and values, then its writes: four statements a page (what
        a page the server cannot parse is read with: the decode names what is wrong)."""
        page: builtins.list[str] = []
        for row in self._pages(thread_id, before, limit, size=100):
            page.append(row.id)
            if len(page) == 100:
                yield from self._page_with_writes(thread_id, page)
                page = []
        yield from self._page_with_writes(thread_id, page)

    def _page_with_writes(self, thread_id: str, ids: builtins.list[str],
                          ) -> Iterator[tuple[Checkpoint, builtins.list[PendingWrite]]]:
        if not ids:
            return
        found = self.get_many(thread_id, ids)
        by_checkpoint: dict[str, builtins.list[tuple[Any, ...]]] = {}
        with self.connection() as conn:
            for cid, *write in conn.execute(WRITES_MANY, (thread_id, ids)):
                by_checkpoint.setdefault(cid, []).append(tuple(write))
        for cid in ids:
            got = found.get(cid)
            if isinstance(got, CheckpointDecodeError):
                raise got
            if got is not None:
                yield got, self._writes_of(cid, by_checkpoint.get(cid, ()))


def _first(row: tuple[Any, ...]) -> Any:
    return row[0]


def _inline_of(text: str) -> dict[str, bytes]:
    """A row's `inline` record (channel -> the value's stored text) as channel -> bytes."""
    try:
        got = orjson.loads(text)
    except orjson.JSONDecodeError:
        got = None
    if type(got) is not dict:
        raise CheckpointDecodeError("its inline values record is malformed")
    return {k: (v if type(v) is str else orjson.dumps(v).decode()).encode() for k, v in got.items()}
