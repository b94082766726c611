"""How a checkpoint's channels are stored: one pure plan shared by every store.

A store asks `plan_storage` what to keep for a checkpoint, then does only its own I/O.
The plan says, channel by channel in the checkpoint's version order:

- `UNCHANGED`: the value is the one stored at an older version (the store's own handle
  of it comes back in `held`);
- `ABSENT`: the checkpoint versions the channel but holds no value for it;
- `INLINE`: a changed value small enough (not a list) to live in the checkpoint's row;
- `VALUE`: any other changed value, stored whole;
- `LIST`: a changed list, stored whole as one segment (the inside of its JSON array);
- `APPEND`: a list that is the version it extends (`held`) plus new items: only the
  new items are stored, after that version's segments.

Sizes follow one rule: `size` is the exact length of the value's whole encoding (what
a load of it would read back), so a value, a list and an appended list are held to the
same `max_value_bytes` by every store, before anything is written.

The store gives two small functions: `find(channel, version)`, its handle of a stored
version (None when it holds none), and `base_of(handle)`, what an append needs to know of
a stored list (None when the stored value is not a list). Both may read the store; the
plan itself writes nothing and raises before the store changes.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import orjson

from .base import Checkpoint
from .encoding import check_versions, encode_channel, no_stored_version_error, too_big_error
from .serde import JSON_INT_MAX, JSON_INT_MIN, Serializer

__all__ = [
    "UNCHANGED",
    "ABSENT",
    "INLINE",
    "VALUE",
    "LIST",
    "APPEND",
    "ListBase",
    "ChannelPlan",
    "plan_storage",
    "relied_on",
]

UNCHANGED, ABSENT, INLINE, VALUE, LIST, APPEND = range(6)


class ListBase(NamedTuple):
    """What an append needs to know of the stored list it extends."""

    n_items: int  # items in the stored list
    size: int  # bytes of the stored list's whole encoding
    tagged: bool  # whether the stored list holds tagged values


class ChannelPlan(NamedTuple):
    """How one channel of a checkpoint is stored (immutable; a tuple, so that a plan costs
    next to nothing per superstep).

    `held`: the store's handle of the stored version this entry refers to (`UNCHANGED`)
    or extends (`APPEND`), else None. `data`: the bytes to store (None for `UNCHANGED`
    and `ABSENT`); for `LIST` and `APPEND` the inside of a JSON array (see
    `records.join_list_segments`). `n_items`: the list's items after this checkpoint."""

    key: str
    version: str
    kind: int
    held: Any = None
    data: bytes | None = None
    n_items: int | None = None
    size: int = 0
    tagged: bool = False


Find = Callable[[str, str], Any]
BaseOf = Callable[[Any], "ListBase | None"]
Appended = Mapping[str, tuple[str, Sequence[Any]]]


def relied_on(checkpoint: Checkpoint, appended: Appended | None) -> list[tuple[str, str]]:
    """The (channel, version) pairs `plan_storage` will `find`: the older versions the
    checkpoint keeps, and the versions its appended lists extend. A store that fetches
    what it does not remember in one round trip asks for these first."""
    own, values = checkpoint.id, checkpoint.values
    pairs: list[tuple[str, str]] = []
    for key, version in checkpoint.versions.items():
        if key not in values:
            continue
        if version != own:
            pairs.append((key, version))
        elif appended and key in appended:
            pairs.append((key, appended[key][0]))
    return pairs


def plan_storage(
    checkpoint: Checkpoint,
    appended: Appended | None,
    serde: Serializer,
    find: Find,
    base_of: BaseOf,
    inline_limit: int = 0,
) -> list[ChannelPlan]:
    """The plan of `checkpoint`'s channels, in its version order (see the module doc).

    `appended`: channel -> (the version appended to, the items appended), the run's hint
    that a reducer only appended. `inline_limit`: the largest encoded value (not a list)
    kept in the checkpoint's row (0: none). Raises, before anything is stored, for a value
    that cannot be encoded or is too big, a kept version the store does not hold, or a
    value without a version."""
    c = checkpoint
    own, values, limit = c.id, c.values, serde.max_bytes
    plan: list[ChannelPlan] = []
    add = plan.append
    for key, version in c.versions.items():
        if key not in values:
            add(ChannelPlan(key, version, ABSENT))
            continue
        if version != own:
            held = find(key, version)
            if held is None:
                raise no_stored_version_error(c, key, version)
            add(ChannelPlan(key, version, UNCHANGED, held))
            continue
        value = values[key]
        t = type(value)
        if t is int and JSON_INT_MIN <= value <= JSON_INT_MAX or t is bool or value is None:
            data = orjson.dumps(value)  # as serde.dumps writes a scalar
            add(ChannelPlan(key, version, INLINE if len(data) <= inline_limit else VALUE, None, data, None, len(data)))
            continue
        add(_changed(serde, key, version, value, appended, find, base_of, inline_limit, limit))
    if not values.keys() <= c.versions.keys():
        check_versions(c)
    return plan


def _changed(serde: Serializer, key: str, version: str, value: Any, appended: Appended | None, find: Find,
             base_of: BaseOf, inline_limit: int, limit: int) -> ChannelPlan:
    """The plan of one changed channel that is not a scalar."""
    hint = appended.get(key) if appended else None  # (version appended to, items appended)
    held = base = None
    if hint is not None and type(value) is list:
        held = find(key, hint[0])
        base = base_of(held) if held is not None else None
    if base is not None and hint is not None:
        kind, data, count, tagged = encode_channel(serde, key, value, base.n_items, len(hint[1]))
    else:
        kind, data, count, tagged = encode_channel(serde, key, value)
    if kind == "value":
        size = len(data)
        code = INLINE if size <= inline_limit else VALUE
    elif kind == "list":
        size, code = len(data) + 2, LIST
    else:
        assert base is not None  # only a stored list is appended to
        # the base's encoding, a comma between its items and the new ones, the new items
        size = base.size + len(data) + (1 if base.n_items and data else 0)
        tagged = tagged or base.tagged
        code = APPEND
    if size > limit:
        raise too_big_error(key, size, limit)
    return ChannelPlan(key, version, code, held if code == APPEND else None, data, count, size, tagged)
