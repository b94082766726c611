"""`ShallowPostgresSaver`: a PostgreSQL saver that keeps only the latest checkpoint of each
thread and namespace, as LangGraph's shallow saver (a run resumes from where it stopped;
there is no history to travel in).

Each put stores the checkpoint as `PostgresSaver` does, with every changed value whole (no
appended segments, so no stored value depends on an older one), then, in one transaction, moves the small values kept in older rows that it still names
into value rows and deletes the thread's other checkpoints, their pending writes and the values the new
checkpoint no longer names. A crash between the two leaves older checkpoints behind (the
next put removes them), never a checkpoint missing a value.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .base import Checkpoint
from .postgres import PostgresSaver

__all__ = ["ShallowPostgresSaver", "keep_latest"]

_PRUNE = (
    # a small value kept in an older checkpoint's row (`inline`) that the kept one still names
    # becomes a value row of its own before that row goes
    "INSERT INTO retrograph_values(thread_id, channel, version, base, kind, data, count, size, tagged)"
    " SELECT c.thread_id, k.key, c.id, NULL, 0, convert_to(k.value, 'UTF8'), NULL,"
    " octet_length(convert_to(k.value, 'UTF8')), true"
    " FROM retrograph_checkpoints AS c CROSS JOIN LATERAL jsonb_each_text(c.inline) AS k"
    " WHERE c.thread_id = %(t)s AND c.id <> %(id)s AND c.inline IS NOT NULL AND EXISTS ("
    " SELECT 1 FROM retrograph_checkpoints AS l WHERE l.thread_id = %(t)s AND l.id = %(id)s"
    " AND convert_from(l.versions, 'UTF8')::jsonb ->> k.key = c.id) ON CONFLICT DO NOTHING",
    "DELETE FROM retrograph_checkpoints WHERE thread_id = %(t)s AND id <> %(id)s",
    "DELETE FROM retrograph_writes WHERE thread_id = %(t)s AND checkpoint <> %(id)s",
    # the values the kept checkpoint names: its versions record, {channel: version}
    "DELETE FROM retrograph_values AS v WHERE v.thread_id = %(t)s AND NOT EXISTS ("
    " SELECT 1 FROM retrograph_checkpoints AS c WHERE c.thread_id = %(t)s AND c.id = %(id)s"
    " AND convert_from(c.versions, 'UTF8')::jsonb ->> v.channel = v.version)",
)


class ShallowPostgresSaver(PostgresSaver):
    """`PostgresSaver` keeping one checkpoint per thread and namespace: the latest put."""

    def __repr__(self) -> str:
        return "Shallow" + super().__repr__()

    def save(self, checkpoint: Checkpoint, *, appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None) -> None:
        super().save(checkpoint)  # values whole: nothing kept may rest on a pruned version
        info = self._recall(checkpoint.thread_id, checkpoint.id)
        params = {"t": checkpoint.thread_id, "id": checkpoint.id}
        with self.connection() as conn, conn.transaction():
            for statement in _PRUNE:
                conn.execute(statement, params)
        self.forget_thread(checkpoint.thread_id)
        if info is not None:
            self._remember(checkpoint.thread_id, checkpoint.id, info)


def keep_latest(saver: PostgresSaver, key: str) -> None:
    """Delete every checkpoint of `key` (a thread, or a namespace of one) but its latest, and
    their pending writes. Stored values stay (an appended list's newest part rests on older
    ones); small values kept in a deleted row that the latest names are moved out first."""
    with saver.connection() as conn, conn.transaction():
        row = conn.execute("SELECT id FROM retrograph_checkpoints WHERE thread_id = %s ORDER BY seq DESC LIMIT 1",
                           (key,)).fetchone()
        if row is None:
            return
        for statement in _PRUNE[:3]:
            conn.execute(statement, {"t": key, "id": row[0]})
    saver.forget_thread(key)
