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

from typing import Any, NamedTuple

import orjson

from ..errors import CheckpointDecodeError
from .base import CheckpointHeader
from .data import as_source

__all__ = ["Entry", "INLINE", "NULL_BLOB", "plain_blob", "names_blob", "HEADER_COLS", "ROW_COLS", "HeaderRow", "StoredRow", "VERSION", "REF", "COUNT", "SIZE",
           "TAGGED", "NO_VALUE", "INLINE_VALUE", "SEGMENTS", "parse_versions", "parse_inline", "header"]

Entry = list[Any]
"""One channel's entry in the versions record; its length says which form it has."""
NO_VALUE, INLINE_VALUE, SEGMENTS = 1, 2, 5
"""The lengths of the three forms of an entry (see above)."""
VERSION, REF, COUNT, SIZE, TAGGED = range(5)
"""Positions in an entry: the version; the row number (`cid`) holding an inline value, or
the first segment's id (`sid`); then for segments the item count, the bytes, tagged."""
INLINE = 256
"""A changed value this small (and not a list) lives in its checkpoint's row."""

NULL_BLOB = bytearray()
"""Bound for a BLOB column that is NULL (`NULLIF(?, x'')` in the statement): see `plain_blob`."""
_PLAIN_BLOB_MAX = 1 << 16


def plain_blob(data: bytes) -> bytes | bytearray:
    """`data` as a parameter sqlite3 binds as it is. sqlite3 binds int, float, str and
    bytearray straight away but looks up an adapter for bytes and None first (about 3,000
    machine instructions each: a fifth of a superstep's INSERT), so a small blob goes as a
    bytearray (stored byte for byte the same); a big one stays bytes, whose copy would cost
    more than the lookup."""
    return bytearray(data) if len(data) <= _PLAIN_BLOB_MAX else data


_NAMES_MAX, _NAMES_LONGEST = 4096, 512
"""The most lists of names `_NAME_BLOBS` and `_NAMES` keep, and the longest one kept."""
_NAME_BLOBS: dict[tuple[str, ...], bytearray] = {}
"""The `next` / `nodes_ran` columns as written: a thread repeats the same few lists of node
names in every row."""


def names_blob(names: tuple[str, ...]) -> bytearray:
    """A list of node names as its column holds it (a JSON array), ready to bind."""
    try:
        blob = _NAME_BLOBS.get(names)
    except TypeError:  # a list (a caller's own Checkpoint): not kept
        return bytearray(orjson.dumps(names))
    if blob is None:
        blob = bytearray(orjson.dumps(names))
        if len(blob) <= _NAMES_LONGEST:
            if len(_NAME_BLOBS) >= _NAMES_MAX:
                _NAME_BLOBS.clear()
            _NAME_BLOBS[names] = blob
    return blob


_PARENT = (
    "CASE WHEN typeof(parent) = 'integer' THEN"
    " (SELECT p.id FROM checkpoints AS p WHERE p.cid = checkpoints.parent) ELSE parent END"
)
HEADER_COLS = f"cid, id, {_PARENT}, step, source, created_at, next, nodes_ran"
"""The columns `header()` reads, in `HeaderRow`'s order."""
ROW_COLS = HEADER_COLS + ", versions, extras, inline"
"""A whole row, in `StoredRow`'s order: the header, then versions, extras, inline values."""


class HeaderRow(NamedTuple):
    """A row read with `HEADER_COLS` (`HeaderRow._make(row)`): the columns by name."""

    cid: int
    id: Any
    parent: Any
    step: Any
    source: Any
    created_at: Any
    next: Any
    nodes_ran: Any


class StoredRow(NamedTuple):
    """A row read with `ROW_COLS`. Columns other than `cid` are as the file holds them:
    checked when decoded, since the file may come from anyone."""

    cid: int
    id: Any
    parent: Any
    step: Any
    source: Any
    created_at: Any
    next: Any
    nodes_ran: Any
    versions: Any
    extras: Any
    inline: Any


def parse_versions(data: Any, own_id: str, own_cid: int) -> dict[str, Entry]:
    """The versions column as entries with real ids and row numbers."""
    try:
        vmap = orjson.loads(data)
    except (orjson.JSONDecodeError, TypeError):
        vmap = None
    if type(vmap) is not dict or not all(
        type(e) is list and e and type(e[VERSION]) is str and (
            len(e) == NO_VALUE or (len(e) == INLINE_VALUE and type(e[REF]) is int)
            or (len(e) == SEGMENTS and type(e[REF]) is int and type(e[SIZE]) is int and type(e[TAGGED]) is int
                and (e[COUNT] is None or type(e[COUNT]) is int))
        )
        for e in vmap.values()
    ):
        raise CheckpointDecodeError("its versions record is malformed")
    for e in vmap.values():
        if e[VERSION] == "":
            e[VERSION] = own_id
        if len(e) == INLINE_VALUE and e[REF] == 0:
            e[REF] = own_cid
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


_NAMES: dict[bytes | str, tuple[str, ...]] = {}
"""The `next` / `nodes_ran` columns already decoded: a thread repeats the same few lists of
node names in every row, so listing 100,000 headers decodes a handful (bounded below)."""


def _strings(data: Any) -> tuple[str, ...]:
    kind = type(data)
    if kind is bytes or kind is str:
        known = _NAMES.get(data)
        if known is not None:
            return known
    got = orjson.loads(data)
    if type(got) is not list or not all(type(s) is str for s in got):
        raise ValueError("not a list of names")
    names = tuple(got)
    if (kind is bytes or kind is str) and len(data) <= _NAMES_LONGEST:
        if len(_NAMES) >= _NAMES_MAX:
            _NAMES.clear()
        _NAMES[data] = names
    return names


def header(thread_id: str, row: HeaderRow | StoredRow) -> CheckpointHeader:
    """The header from a row read with `HEADER_COLS` (or `ROW_COLS`)."""
    cid, parent, step, source, created_at = row.id, row.parent, row.step, row.source, row.created_at
    nxt, nodes_ran = row.next, row.nodes_ran
    try:
        if not (type(cid) is str and type(step) is int and type(source) is str and type(created_at) is str
                and (parent is None or type(parent) is str)):
            raise ValueError("a column has the wrong type")
        return CheckpointHeader(
            id=cid, thread_id=thread_id, parent_id=parent, step=step, source=as_source(source),  # unknown: ""
            created_at=created_at, next=_strings(nxt), nodes_ran=_strings(nodes_ran),
        )
    except (ValueError, TypeError) as e:
        raise CheckpointDecodeError(f"its record is malformed ({e})") from None
