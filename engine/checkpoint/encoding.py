"""What both checkpoint stores keep, and the checks and errors of a `put` they share.

`InMemorySaver` and `SqliteSaver` encode a checkpoint's parts the same way (a changed
channel, an appended list's new items, the plan/barriers/metadata record, pending
writes) and refuse the same bad checkpoints with the same words, so that the contract
tests hold for both and what one store gives back the other would too.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from ..errors import CheckpointDecodeError, SerializationError
from ..policies import TimeoutPolicy
from .base import Checkpoint, PendingWrite, PlannedTask
from .serde import TAG_BYTES, Serializer

__all__ = [
    "join_list_segments",
    "encode_channel",
    "encode_writes",
    "dumps_extras",
    "loads_extras",
    "check_versions",
    "exists_error",
    "no_stored_version_error",
    "no_checkpoint_error",
    "too_big_error",
]

_MB = 1024 * 1024

_EXTRAS_WRAP = 6
"""Levels of the extras blob around a node's write kept in a task record: the blob
`[tasks, barriers, metadata]`, the metadata dict, its "record" list, a task's record, its
"writes" list, a `[channel, value]` pair. They are the store's, not the user's, so they do
not count against the serializer's depth limit (a write allowed in a channel is allowed
in the record too)."""


def join_list_segments(segments: Iterable[bytes]) -> bytes:
    """One JSON array from list segments: each segment is the inside of an encoded list
    (`dumps(items)[1:-1]`, possibly empty). How the stores rebuild an appended list.

    Copies the (possibly megabytes of) data once: the brackets go onto the end pieces."""
    parts = [s for s in segments if s]
    if not parts:
        return b"[]"
    parts[0] = b"[" + parts[0]
    parts[-1] += b"]"
    return b",".join(parts)


def encode_channel(
    serde: Serializer, key: str, value: Any, base_count: int | None = None, n_appended: int | None = None
) -> tuple[str, bytes, int | None, bool]:
    """How a store keeps one changed channel value: `(kind, data, item count, tagged)`.

    kind "append": `data` is the new items' list segment, to add after the base version
    (which holds `base_count` items); used only when the value really is the base plus
    `n_appended` items. kind "list": a full list as one segment. kind "value": anything
    else. `tagged`: whether `data` holds tagged values (see `Serializer.loads(plain=)`).
    """
    if type(value) is list:
        if base_count is not None and len(value) == base_count + (n_appended or 0):
            try:
                data = serde.dumps(value[base_count:], where=key)[1:-1]
            except SerializationError:
                serde.dumps(value, where=key)  # raises again, with the item's index in the whole list
                raise
            return "append", data, len(value), TAG_BYTES in data
        data = serde.dumps(value, where=key)
        return "list", data[1:-1], len(value), TAG_BYTES in data
    data = serde.dumps(value, where=key)
    return "value", data, None, TAG_BYTES in data


def encode_writes(serde: Serializer, writes: Sequence[PendingWrite]) -> list[tuple[str, str, str, bytes]]:
    """Pending writes as `(task id, task name, channel, encoded value)` rows."""
    dumps = serde.dumps
    return [(w.task_id, w.task_name, w.channel, dumps(w.value, where=w.channel)) for w in writes]


_NOTHING_MORE = b"{},{}]"  # no barriers, no metadata: the end of most records


def dumps_extras(serde: Serializer, checkpoint: Checkpoint) -> bytes | None:
    """The plan, barriers and metadata of a checkpoint as one compact blob (None when all
    are empty): a task is `[id, name, trigger]`, plus the Send argument for a Send; an id
    of the usual form `<checkpoint id>/<index>` is stored as null.

    Called on every superstep: a plan of plain tasks with no barriers and no metadata
    (a loop's usual record) is written straight by orjson, byte for byte what the
    serializer would write."""
    tasks, barriers, metadata = checkpoint.tasks, checkpoint.barriers, checkpoint.metadata
    if not (tasks or barriers or metadata):
        return None
    cid = checkpoint.id
    rows: list[list[Any]] = []
    plain = not (barriers or metadata)
    for i, t in enumerate(tasks):
        task_id = t.id
        row = [None if task_id == f"{cid}/{i}" else task_id, t.name, t.trigger]
        if t.is_send:
            row.append(t.arg)
            if t.timeout is not None:  # a Send's own timeout
                row.append(t.timeout)
            plain = False
        elif plain and not (type(task_id) is str and type(row[1]) is str and type(row[2]) is str):
            plain = False
        rows.append(row)
    if plain:
        try:
            return b"[" + orjson.dumps(rows) + b"," + _NOTHING_MORE
        except orjson.JSONEncodeError:  # a name with a lone surrogate: let the serializer say so
            pass
    joins = {k: list(v) for k, v in barriers.items()}
    try:
        return serde.dumps([rows, joins, dict(metadata)], headroom=_EXTRAS_WRAP)
    except SerializationError:  # encode the parts apart so the message names the right one
        part = _EXTRAS_WRAP - 1  # each part sits one level inside the blob
        for i, row in enumerate(rows):
            serde.dumps(row, where=f"tasks[{i}]", headroom=part)
        serde.dumps(joins, where="barriers", headroom=part)
        serde.dumps(dict(metadata), where="metadata", headroom=part)
        raise


def loads_extras(
    serde: Serializer, data: bytes | None, checkpoint_id: str
) -> tuple[tuple[PlannedTask, ...], dict[str, tuple[str, ...]], dict[str, Any]]:
    """Inverse of `dumps_extras`, checking the shape (the bytes may come from a hostile file)."""
    if data is None:
        return (), {}, {}
    got = serde.loads(data, headroom=_EXTRAS_WRAP)
    try:
        tasks, barriers, metadata = got
        if type(tasks) is not list or type(barriers) is not dict or type(metadata) is not dict:
            raise ValueError
        plan = []
        for i, t in enumerate(tasks):
            if type(t) is not list or len(t) not in (3, 4, 5) or not all(type(x) is str for x in t[1:3]):
                raise ValueError
            task_id = f"{checkpoint_id}/{i}" if t[0] is None else t[0]
            if type(task_id) is not str:
                raise ValueError
            plan.append(PlannedTask(id=task_id, name=t[1], trigger=t[2], is_send=len(t) >= 4,
                                    arg=t[3] if len(t) >= 4 else None,
                                    timeout=_timeout(t[4]) if len(t) == 5 else None))
        joins = {}
        for k, v in barriers.items():
            if type(v) is not list or not all(type(x) is str for x in v):
                raise ValueError
            joins[k] = tuple(v)
    except (ValueError, TypeError):
        raise CheckpointDecodeError("the checkpoint's plan/metadata record is malformed") from None
    return tuple(plan), joins, metadata


def check_versions(checkpoint: Checkpoint) -> None:
    """Every channel with a value must have a version."""
    values, versions = checkpoint.values, checkpoint.versions
    if values.keys() <= versions.keys():
        return
    key = next(k for k in values if k not in versions)
    raise ValueError(f"checkpoint `{checkpoint.id}`: channel `{key}` has a value but no version")


def exists_error(checkpoint: Checkpoint) -> ValueError:
    return ValueError(
        f"checkpoint `{checkpoint.id}` already exists in thread `{checkpoint.thread_id}`: checkpoints are "
        "immutable, save the change as a new checkpoint with a new id"
    )


def no_stored_version_error(checkpoint: Checkpoint, key: str, version: str) -> ValueError:
    """An unchanged channel names a version the store does not hold."""
    return ValueError(
        f"checkpoint `{checkpoint.id}`: channel `{key}` has version `{version}`, but no value was stored "
        f"under that version in thread `{checkpoint.thread_id}`; a changed channel's version must be the "
        "id of the checkpoint that changes it"
    )


def no_checkpoint_error(thread_id: str, checkpoint_id: str) -> ValueError:
    """`put_writes` for a checkpoint the store does not hold."""
    return ValueError(
        f"put_writes: no checkpoint `{checkpoint_id}` in thread `{thread_id}`; "
        "save the checkpoint with put() first"
    )


def too_big_error(key: str, size: int, limit: int) -> SerializationError:
    """A channel value that would outgrow the store's per-value limit once saved."""
    return SerializationError(
        f"Cannot checkpoint `{key}`: it would take {size / _MB:.1f} MB encoded, over the "
        f"{limit / _MB:.0f} MB limit per stored value. Keep big data outside the state (store a file "
        "path or an id), or raise the limit with `max_value_bytes=...` when creating the saver."
    )


def _timeout(value: Any) -> TimeoutPolicy:
    """A stored Send timeout; anything else is a damaged record."""
    if not isinstance(value, TimeoutPolicy):
        raise ValueError
    return value
