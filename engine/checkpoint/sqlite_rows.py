"""A checkpoint's row in the SQLite file: what its columns hold, and reading them back
with every field checked (the file may come from anyone).

The `versions` column maps each channel to an *entry*:
- `[version]`: the channel has a version but no value;
- `[version, cid]`: a small value (not a list) kept in the `inline` column of row `cid`;
- `[version, sid, item count or null, bytes, tagged]`: a value stored as segments (see
  segments.py); count is null for a value that is not a list.
In the stored form the checkpoint's own id is written "" and its own row number 0, so a
step that changes one channel writes a short record.
"""
from __future__ import annotations

from typing import Any

import orjson

from ..errors import CheckpointDecodeError
from .base import CheckpointHeader

__all__ = ["Entry", "INLINE", "HEADER_COLS", "ROW_COLS", "parse_versions", "parse_inline", "header"]

Entry = list
INLINE = 256
"""A changed value this small (and not a list) lives in its checkpoint's row."""

_PARENT = (
    "CASE WHEN typeof(parent) = 'integer' THEN"
    " (SELECT p.id FROM checkpoints AS p WHERE p.cid = checkpoints.parent) ELSE parent END"
)
HEADER_COLS = f"cid, id, {_PARENT}, step, source, created_at, next, nodes_ran"
"""The columns `header()` reads, in its order."""
ROW_COLS = HEADER_COLS + ", versions, extras, inline"
"""A whole row: the header, then versions (8), extras (9) and inline values (10)."""


def parse_versions(data: Any, own_id: str, own_cid: int) -> dict[str, Entry]:
    """The versions column as entries with real ids and row numbers."""
    try:
        vmap = orjson.loads(data)
    except (orjson.JSONDecodeError, TypeError):
        vmap = None
    if type(vmap) is not dict or not all(
        type(e) is list and e and type(e[0]) is str and (
            len(e) == 1 or (len(e) == 2 and type(e[1]) is int)
            or (len(e) == 5 and type(e[1]) is int and type(e[3]) is int and type(e[4]) is int
                and (e[2] is None or type(e[2]) is int))
        )
        for e in vmap.values()
    ):
        raise CheckpointDecodeError("its versions record is malformed")
    for e in vmap.values():
        if e[0] == "":
            e[0] = own_id
        if len(e) == 2 and e[1] == 0:
            e[1] = own_cid
    return vmap


def parse_inline(data: Any) -> dict[str, str]:
    """The inline column: channel -> the value's encoding, as text."""
    try:
        held = orjson.loads(data)
    except orjson.JSONDecodeError:
        held = None
    if type(held) is not dict or not all(type(v) is str for v in held.values()):
        raise CheckpointDecodeError("its inline values are malformed")
    return held


def _strings(data: Any) -> tuple[str, ...]:
    got = orjson.loads(data)
    if type(got) is not list or not all(type(s) is str for s in got):
        raise ValueError("not a list of names")
    return tuple(got)


def header(thread_id: str, row: tuple[Any, ...]) -> CheckpointHeader:
    """The header from a row read with `HEADER_COLS` (or `ROW_COLS`)."""
    _, cid, parent, step, source, created_at, nxt, nodes_ran = row[:8]
    try:
        if not (type(cid) is str and type(step) is int and type(source) is str and type(created_at) is str
                and (parent is None or type(parent) is str)):
            raise ValueError("a column has the wrong type")
        return CheckpointHeader(
            id=cid, thread_id=thread_id, parent_id=parent, step=step, source=source,
            created_at=created_at, next=_strings(nxt), nodes_ran=_strings(nodes_ran),
        )
    except (ValueError, TypeError) as e:
        raise CheckpointDecodeError(f"its record is malformed ({e})") from None
