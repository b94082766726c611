"""Reading a page of a PostgreSQL thread's checkpoints with their values in two round
trips, whatever the page's size: the rows (`FULL`) in one query, every stored piece of
every value they name in one recursive query (`LOAD_MANY`, which says for which
requested version each piece was read). `retrograph history --values` and `list()` read
a long history a page at a time instead of two queries per checkpoint."""
from __future__ import annotations

from typing import Any

__all__ = ["LOAD_MANY", "group_parts"]

LOAD_MANY = """
WITH RECURSIVE r(root, channel, version, base, kind, data, count, size, tagged, depth) AS (
    SELECT v.version, v.channel, v.version, v.base, v.kind, v.data, v.count, v.size, v.tagged, 0
    FROM retrograph_values v
    JOIN unnest(%(ch)s::text[], %(ver)s::text[]) AS n(channel, version) ON v.channel = n.channel AND v.version = n.version
    WHERE v.thread_id = %(t)s
  UNION ALL
    SELECT r.root, v.channel, v.version, v.base, v.kind, v.data, v.count, v.size, v.tagged, r.depth + 1
    FROM r JOIN retrograph_values v ON v.thread_id = %(t)s AND v.channel = r.channel AND v.version = r.base
    WHERE r.kind = 2 AND r.depth < %(max_depth)s
)
SELECT root, channel, depth, kind, data, size, tagged FROM r
UNION ALL
SELECT n.version, n.channel, 0, 0, convert_to(c.inline ->> n.channel, 'UTF8'), 0, NULL FROM retrograph_checkpoints c
JOIN unnest(%(ch)s::text[], %(ver)s::text[]) AS n(channel, version) ON c.id = n.version
WHERE c.thread_id = %(t)s AND c.inline ? n.channel
"""


def group_parts(rows: Any) -> dict[tuple[str, str], list[tuple[Any, ...]]]:
    """`LOAD_MANY` rows by (channel, requested version): each a `LOAD` row (channel, depth,
    kind, data, size, tagged)."""
    out: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for root, *part in rows:
        out.setdefault((part[0], root), []).append(tuple(part))
    return out
