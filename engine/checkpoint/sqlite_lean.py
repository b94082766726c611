"""The lean put: a superstep of `SqliteSaver` that changes only small scalars.

Most supersteps of a loop change a counter, a flag or a route and keep every other
channel as its parent had it. Such a checkpoint needs no plan (storage_plan.py): its
changed values are inline scalars and its unchanged ones copy the parent's entries. The
lean put writes that row straight from what the saver remembers (`WriteCache`): one
INSERT, its own transaction, with the parameters and the versions record byte for byte
those of the planned put (tests/test_sqlite_lean_put_writes_what_the_plan_writes.py).

It declines (returns False, having written nothing) whenever anything is not plain: a
thread, row number or parent the saver does not remember, a changed value that is not a
scalar, an unchanged channel whose entry is not the parent's, a value without a version.
The planned put then does the whole work, checks and errors included.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import orjson

from .base import Checkpoint
from .encoding import dumps_extras, exists_error
from .serde import JSON_INT_MAX, JSON_INT_MIN, Serializer
from .sqlite_cache import INSERT_CHECKPOINT, KEEP_MOST, Known, StaleCache, WriteCache, new_known
from .sqlite_rows import NO_VALUE, NULL_BLOB, VERSION, Entry, names_blob, plain_blob
from .sqlite_schema import N_BITS

__all__ = ["lean_put", "extras_and_next"]

_OWN_INLINE: Entry = ["", 0]
"""A changed inline value's stored entry: this checkpoint's version, this row (never mutated)."""
_OWN_NOTHING: Entry = [""]
"""The stored entry of a channel this checkpoint versions without a value (never mutated)."""

_LONE_MAX = 4096
_LONE: dict[tuple[str, str], tuple[bytearray, bytearray]] = {}
"""(node, trigger) of a plan of one plain task -> its extras and `next` columns as bound:
a loop plans the same task every superstep, under a new id of the usual form."""


def extras_and_next(serde: Serializer, c: Checkpoint) -> tuple[bytearray | bytes, bytearray]:
    """The `extras` and `next` parameters of the checkpoint's row (`NULL_BLOB`: NULL)."""
    tasks = c.tasks
    if len(tasks) == 1 and not c.barriers and not c.metadata:
        t = tasks[0]
        name, trigger = t.name, t.trigger
        if not t.is_send and type(name) is str and type(trigger) is str and type(t.id) is str and t.id == c.id + "/0":
            known = _LONE.get((name, trigger))
            if known is None:
                extras = dumps_extras(serde, c)  # the general writer: the very same bytes
                known = (bytearray(extras or b""), names_blob((name,)))
                if len(_LONE) >= _LONE_MAX:
                    _LONE.clear()
                _LONE[(name, trigger)] = known
            return known
    extras = dumps_extras(serde, c)
    return (plain_blob(extras) if extras is not None else NULL_BLOB), names_blob(tuple([t.name for t in tasks]))


def lean_put(cache: WriteCache, conn: sqlite3.Connection, c: Checkpoint, serde: Serializer) -> bool:
    """Store `c` as one INSERT when it only changes small scalars (see the module doc);
    False when it does not, with nothing written."""
    tid = cache.tids.get(c.thread_id)
    if tid is None:
        return False
    n, parent_id = cache.next_n.get(tid), c.parent_id
    if n is None or parent_id is None:
        return False
    parent = cache.known.get((tid, parent_id))
    if parent is None:
        return False
    pmap, own, values = parent.vmap, c.id, c.values
    cid = (tid << N_BITS) | n
    stored: dict[str, Entry] = {}
    vmap: dict[str, Entry] = {}
    inline: dict[str, str] = {}
    for key, version in c.versions.items():
        if version != own:
            if key in values:  # unchanged: the parent's entry, when it holds this version's value
                e = pmap.get(key)
                if e is None or e[VERSION] != version or len(e) == NO_VALUE:
                    return False
            else:
                e = [version]
            stored[key] = vmap[key] = e
        elif key in values:
            value = values[key]
            t = type(value)
            if not (t is int and JSON_INT_MIN <= value <= JSON_INT_MAX or t is bool or value is None):
                return False
            inline[key] = orjson.dumps(value).decode()  # as storage_plan writes a scalar
            stored[key] = _OWN_INLINE
            vmap[key] = [own, cid]
        else:
            stored[key] = _OWN_NOTHING
            vmap[key] = [own]
    if not values.keys() <= stored.keys():
        return False  # a value without a version: the planned put says which
    extras, nxt = extras_and_next(serde, c)
    row: list[Any] = [
        cid,
        tid,
        own,
        parent.cid,
        c.step,
        c.source,
        c.created_at,
        nxt,
        names_blob(c.nodes_ran),
        bytearray(orjson.dumps(stored)),
        extras,
        bytearray(orjson.dumps(inline)) if inline else NULL_BLOB,
        tid,
    ]
    try:
        inserted = conn.execute(INSERT_CHECKPOINT, row).rowcount
    except sqlite3.IntegrityError as e:
        if "checkpoints.id" in str(e):
            raise exists_error(c) from None
        cache.next_n.pop(tid, None)  # another saver wrote to this thread: the planned put counts again
        return False
    if inserted != 1:
        raise StaleCache
    cache.next_n[tid] = n + 1
    known = cache.known  # (WriteCache.remember, without its call)
    known[(tid, own)] = new_known(Known, (cid, vmap))
    if len(known) > KEEP_MOST:
        cache.prune()
    return True
