"""The SQL of `PostgresSaver` (postgres.py): storing a checkpoint with its changed
values in one statement, several in one, loading values (following appended segments),
pending writes. The tables are postgres_schema.py's.

Every stored value is looked up by its primary key, one probe per (channel, version) asked
for (a LATERAL subquery): a plan the server caches for a prepared statement never scans
a thread's rows to join them, so a read costs what it reads, whatever the history's length."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["FIND", "FIRST_CHILD", "FULL", "INFO", "INSERT_WRITES", "LOAD", "PUT_SQL", "ROW", "VALUE_COLUMNS", "VALUE_PIECES", "put_many"]


_INSERT_CHECKPOINT = """
    INSERT INTO retrograph_checkpoints(thread_id, id, parent_id, step, source, created_at, next, nodes_ran, versions,
                                       extras, inline)
    VALUES (%(t)s, %(id)s, %(parent)s, %(step)s, %(source)s, %(at)s, %(next)s, %(ran)s, %(versions)s, %(extras)s,
            %(inline)s::jsonb)
"""
_INSERT_VALUES = """
    INSERT INTO retrograph_values(thread_id, channel, version, base, kind, data, count, size, tagged)
    SELECT %(t)s, x.channel, %(id)s, x.base, x.kind, x.data, x.count, x.size, x.tagged
    FROM unnest(%(ch)s::text[], %(base)s::text[], %(kind)s::smallint[], %(data)s::bytea[], %(count)s::bigint[],
                %(size)s::bigint[], %(tagged)s::boolean[]) AS x(channel, base, kind, data, count, size, tagged)
"""


def _put_sql(values: bool) -> str:
    """One statement (so one transaction): the checkpoint row and, when it changed any
    stored value, those values."""
    if not values:
        return _INSERT_CHECKPOINT
    return f"WITH c AS ({_INSERT_CHECKPOINT}), v AS ({_INSERT_VALUES}) SELECT 1"


PUT_SQL = {v: _put_sql(v) for v in (False, True)}
_CHECKPOINT_COLUMNS = ("t", "id", "parent", "step", "source", "at", "next", "ran", "versions", "extras", "inline")
VALUE_COLUMNS = ("ch", "base", "kind", "data", "count", "size", "tagged")
_INSERT_MANY = """
    INSERT INTO retrograph_checkpoints(thread_id, id, parent_id, step, source, created_at, next, nodes_ran, versions,
                                       extras, inline)
    SELECT x.t, x.id, x.parent, x.step, x.source, x.at, x.next, x.ran, x.versions, x.extras, x.inline::jsonb
    FROM unnest(%(t)s::text[], %(id)s::text[], %(parent)s::text[], %(step)s::bigint[], %(source)s::text[],
                %(at)s::text[], %(next)s::bytea[], %(ran)s::bytea[], %(versions)s::bytea[], %(extras)s::bytea[],
                %(inline)s::text[]) WITH ORDINALITY AS x(t, id, parent, step, source, at, next, ran, versions, extras,
                                                         inline, n)
    ORDER BY x.n
"""
_INSERT_MANY_VALUES = """
    INSERT INTO retrograph_values(thread_id, channel, version, base, kind, data, count, size, tagged)
    SELECT x.t, x.channel, x.version, x.base, x.kind, x.data, x.count, x.size, x.tagged
    FROM unnest(%(vt)s::text[], %(ch)s::text[], %(ver)s::text[], %(base)s::text[], %(kind)s::smallint[],
                %(data)s::bytea[], %(count)s::bigint[], %(size)s::bigint[], %(tagged)s::boolean[])
         AS x(t, channel, version, base, kind, data, count, size, tagged)
"""
_PUT_MANY_SQL = {False: _INSERT_MANY, True: f"WITH c AS ({_INSERT_MANY}), v AS ({_INSERT_MANY_VALUES}) SELECT 1"}
"""Several checkpoints (and their values) in one statement, in the order given: the rows
get their `seq` in that order."""


def put_many(puts: Sequence[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """One statement storing the checkpoints whose single-put parameters are `puts`."""
    params: dict[str, Any] = {name: [p[name] for p in puts] for name in _CHECKPOINT_COLUMNS}
    with_values = [p for p in puts if "ch" in p]
    if with_values:
        for name in VALUE_COLUMNS:
            params[name] = [x for p in with_values for x in p[name]]
        params["vt"] = [p["t"] for p in with_values for _ in p["ch"]]
        params["ver"] = [p["id"] for p in with_values for _ in p["ch"]]
    return _PUT_MANY_SQL[bool(with_values)], params


INFO = """
SELECT n.channel, n.version, v.kind, v.count, v.size, v.tagged
FROM unnest(%(ch)s::text[], %(ver)s::text[]) AS n(channel, version) CROSS JOIN LATERAL (
    SELECT kind, count, size, tagged FROM retrograph_values v
    WHERE v.thread_id = %(t)s AND v.channel = n.channel AND v.version = n.version LIMIT 1) AS v
UNION ALL
SELECT n.channel, n.version, 0, NULL, length(c.inline ->> n.channel), true
FROM unnest(%(ch)s::text[], %(ver)s::text[]) AS n(channel, version) CROSS JOIN LATERAL (
    SELECT inline FROM retrograph_checkpoints c
    WHERE c.thread_id = %(t)s AND c.id = n.version AND c.inline ? n.channel LIMIT 1) AS c
"""
LOAD = """
WITH RECURSIVE r(channel, version, base, kind, data, count, size, tagged, depth) AS (
    SELECT v.channel, v.version, v.base, v.kind, v.data, v.count, v.size, v.tagged, 0
    FROM unnest(%(ch)s::text[], %(ver)s::text[]) AS n(channel, version) CROSS JOIN LATERAL (
        SELECT * FROM retrograph_values v
        WHERE v.thread_id = %(t)s AND v.channel = n.channel AND v.version = n.version LIMIT 1) AS v
  UNION ALL
    SELECT v.channel, v.version, v.base, v.kind, v.data, v.count, v.size, v.tagged, r.depth + 1
    FROM r CROSS JOIN LATERAL (
        SELECT * FROM retrograph_values v
        WHERE v.thread_id = %(t)s AND v.channel = r.channel AND v.version = r.base LIMIT 1) AS v
    WHERE r.kind = 2 AND r.depth < %(max_depth)s
)
SELECT channel, depth, kind, data, size, tagged FROM r
UNION ALL
SELECT n.channel, 0, 0, convert_to(c.inline ->> n.channel, 'UTF8'), 0, NULL FROM unnest(%(ch)s::text[], %(ver)s::text[]) AS n(channel, version) CROSS JOIN LATERAL (
    SELECT inline FROM retrograph_checkpoints c
    WHERE c.thread_id = %(t)s AND c.id = n.version AND c.inline ? n.channel LIMIT 1) AS c
"""
ROW = "seq, id, parent_id, step, source, created_at, next, nodes_ran"
FULL = ROW + ", versions, extras"
INSERT_WRITES = """
INSERT INTO retrograph_writes(thread_id, checkpoint, task_id, task_name, channel, value)
SELECT %(t)s, %(c)s, w.task_id, w.task_name, w.channel, w.value
FROM unnest(%(ids)s::text[], %(names)s::text[], %(chs)s::text[], %(vals)s::bytea[])
     WITH ORDINALITY AS w(task_id, task_name, channel, value, n)
WHERE EXISTS (SELECT 1 FROM retrograph_checkpoints WHERE thread_id = %(t)s AND id = %(c)s)
ORDER BY w.n
"""
FIND = "SELECT 1 FROM retrograph_checkpoints WHERE thread_id = %s AND id = %s"
FIRST_CHILD = "SELECT id FROM retrograph_checkpoints WHERE thread_id = %s AND parent_id = %s ORDER BY seq LIMIT 1"

VALUE_PIECES = """r(root, channel, version, base, kind, data, size, tagged, depth) AS (
    SELECT n.version, v.channel, v.version, v.base, v.kind, v.data, v.size, v.tagged, 0
    FROM n CROSS JOIN LATERAL (
        SELECT * FROM retrograph_values v
        WHERE v.thread_id = %(t)s AND v.channel = n.channel AND v.version = n.version LIMIT 1) AS v
  UNION ALL
    SELECT r.root, v.channel, v.version, v.base, v.kind, v.data, v.size, v.tagged, r.depth + 1
    FROM r CROSS JOIN LATERAL (
        SELECT * FROM retrograph_values v
        WHERE v.thread_id = %(t)s AND v.channel = r.channel AND v.version = r.base LIMIT 1) AS v
    WHERE r.kind = 2 AND r.depth < %(max_depth)s"""
"""A recursive CTE `r` over the values that a CTE `n(channel, version)` names: each value's
row, then (for a value kept as a base and a delta, kind 2) its bases, at most %(max_depth)s
deep; `root` is the version asked for. Shared by `get_state` (STATE) and a history page (PAGE)."""
