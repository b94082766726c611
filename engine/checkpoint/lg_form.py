"""A checkpoint put in LangGraph's form, kept so that it reads back exactly as it was put.

`saver.put(config, checkpoint, metadata, new_versions)` with a LangGraph checkpoint dict
(user code, a LangGraph-written tool, the conformance kit) is not a run's save: nothing
in the engine's records says how LangGraph numbered its channel versions, what
`versions_seen` held, which format `v` it had. `record_of` turns such a put into an
engine record whose state values are stored the engine's way (a channel whose version
did not move since the parent is not stored again, so history stays linear in what
changed) and whose metadata carries, under `LG_KEY`, the dict's own bookkeeping (every
key but the values) and the metadata as given. `lg_parts` reads such a record back as
LangGraph's (checkpoint, metadata); `lg_pending` its pending writes as LangGraph's
savers keep them (a special channel's later write replaces the earlier one), and
`fresh_writes` drops the writes a repeated `put_writes` would store twice.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from .data import Checkpoint, PendingWrite, as_source
from .delta_record import DELTA_KEY, RUNNING_KEY, DeltaSnapshot
from .ids import now_iso
from .lg_projection import INTERNAL_CHANNEL_PREFIXES

__all__ = ["LG_KEY", "WRITES_IDX_MAP", "EXCLUDED_METADATA_KEYS", "get_checkpoint_metadata", "record_of", "is_lg_form", "lg_parts", "lg_pending", "fresh_writes", "public_metadata"]

LG_KEY = "__langgraph_form__"
"""The metadata entry of a record put in LangGraph's form: {"checkpoint": the dict's
bookkeeping (its values left out), "metadata": the metadata as put, "channels": the values
of its trigger channels (`branch:to:X`, `__start__`...), which are not state}."""


WRITES_IDX_MAP: dict[str, int] = {"__error__": -1, "__scheduled__": -2, "__interrupt__": -3, "__resume__": -4}
"""Special write channels and the fixed index a saver keys them by (a later write replaces
an earlier one; other writes are keyed by their position and kept once)."""

EXCLUDED_METADATA_KEYS = frozenset({
    "thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint_map", "langgraph_checkpoint_ns",
    "langgraph_path", "langgraph_step", "langgraph_node", "langgraph_triggers",
})
"""Config keys never merged into a checkpoint's metadata."""


def _clean(value: Any) -> Any:
    return value.replace("\x00", "") if isinstance(value, str) else value


def get_checkpoint_metadata(config: Mapping[str, Any], metadata: Mapping[str, Any]) -> dict[str, Any]:
    """`metadata` with NUL characters stripped from its strings, plus the scalar entries
    of the config's `metadata` and `configurable` it does not have (not the config's own
    addressing keys, nor `__`-prefixed ones)."""
    out = {k: _clean(v) for k, v in metadata.items()}
    for source in (config.get("metadata"), config.get("configurable")):
        for key, value in (source or {}).items():
            if key in out or key in EXCLUDED_METADATA_KEYS or key.startswith("__"):
                continue
            if isinstance(value, (str, int, bool, float)):
                out[key] = _clean(value)
    return out


def is_lg_form(ckpt: Checkpoint) -> bool:
    return isinstance(ckpt.metadata.get(LG_KEY), Mapping)


DELTA_KEYS = frozenset({DELTA_KEY, RUNNING_KEY})


def public_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """A record's metadata without the store's own entries (the LangGraph-form one, the
    delta keys' view of delta_record.py)."""
    return {k: v for k, v in metadata.items() if k != LG_KEY and k not in DELTA_KEYS}


def _step(value: Any) -> int:
    return value if type(value) is int else -1


class _Stored(NamedTuple):
    """What a LangGraph-form put stores of its channels."""

    values: dict[str, Any]
    versions: dict[str, str]
    triggers: dict[str, Any]
    """LangGraph's trigger channels: not state, kept with the bookkeeping."""
    snapshots: list[str]
    """Keys put as a DeltaSnapshot (or keeping the parent's one): a raw read wraps them again."""


def record_of(key: str, parent_id: str | None, parent: Checkpoint | None, config: Mapping[str, Any],
              checkpoint: Mapping[str, Any], metadata: Mapping[str, Any] | None,
              new_versions: Mapping[str, Any] | None) -> Checkpoint:
    """The engine record of a LangGraph-form put under store key `key`, child of `parent_id`
    (`parent`, its record when stored). A channel's value is loaded back when the dict
    names a version for it: stored here when `new_versions` names it (or the parent holds
    no value at that version), else the parent's stored one."""
    cid = str(checkpoint["id"])
    stored = _stored(cid, parent, checkpoint, new_versions or {})
    meta = get_checkpoint_metadata(config, metadata or {})
    kept = {k: (None if k == "channel_values" else v) for k, v in checkpoint.items()}
    if "channel_values" not in kept:
        kept["channel_values"] = None
    return Checkpoint(
        id=cid, thread_id=key, parent_id=parent_id, step=_step(meta.get("step")),
        source=as_source(meta.get("source")), created_at=str(checkpoint.get("ts") or now_iso()),
        values=stored.values, versions=stored.versions,
        metadata={**{k: v for k, v in meta.items() if k not in ("source", "step")},
                  LG_KEY: {"checkpoint": kept, "metadata": meta, "channels": stored.triggers,
                           **({"snapshots": stored.snapshots} if stored.snapshots else {})}},
    )


def _stored(cid: str, parent: Checkpoint | None, checkpoint: Mapping[str, Any], moved: Mapping[str, Any]) -> _Stored:
    """The channels of a put checkpoint `cid`: a value at the version the parent holds it
    at (and not in `moved`, the put's new versions) is the parent's; else the one given."""
    values_in = checkpoint.get("channel_values") or {}
    named = checkpoint.get("channel_versions")  # a dict without any: every value it has
    versions_in = dict(named) if named is not None else dict.fromkeys(values_in)
    parent_lg = parent.metadata.get(LG_KEY) if parent is not None else None
    if not isinstance(parent_lg, Mapping):
        parent_lg = {}
    parent_versions = (parent_lg.get("checkpoint") or {}).get("channel_versions") or {}
    parent_snapshots = parent_lg.get("snapshots") or ()
    out = _Stored({}, {}, {}, [])
    for name, version in versions_in.items():
        if isinstance(name, str) and name.startswith(INTERNAL_CHANNEL_PREFIXES):
            if name in values_in:
                out.triggers[name] = values_in[name]
            continue
        if name not in moved and parent is not None and name in parent.values \
                and name in parent_versions and parent_versions[name] == version:
            out.values[name] = parent.values[name]
            out.versions[name] = parent.versions.get(name, cid)
            if name in parent_snapshots:
                out.snapshots.append(name)
        elif name in values_in:
            out.values[name] = _whole(values_in[name])
            out.versions[name] = cid
            if isinstance(values_in[name], DeltaSnapshot):
                out.snapshots.append(name)
    return out


def _whole(value: Any) -> Any:
    """A channel value as put: a delta key's snapshot is its whole value."""
    return value.value if isinstance(value, DeltaSnapshot) else value


def lg_parts(ckpt: Checkpoint, raw: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """(checkpoint dict, metadata) of a LangGraph-form record, as they were put; `raw`, a
    value put as a DeltaSnapshot is handed back as one (the engine's own reads take the
    whole value)."""
    entry = ckpt.metadata[LG_KEY]
    kept = entry.get("checkpoint") or {}
    triggers = entry.get("channels") or {}
    versions = kept.get("channel_versions") if "channel_versions" in kept else [*ckpt.values, *triggers]
    values = {k: ckpt.values[k] if k in ckpt.values else triggers[k] for k in versions or ()
              if k in ckpt.values or k in triggers}
    for key in entry.get("snapshots") or () if raw else ():
        if key in values:
            values[key] = DeltaSnapshot(values[key])
    out = {k: (values if k == "channel_values" else v) for k, v in kept.items()}
    out["id"], out["ts"] = ckpt.id, kept.get("ts", ckpt.created_at)
    return out, dict(entry.get("metadata") or {})


def lg_pending(writes: Sequence[PendingWrite]) -> list[tuple[str, str, Any]]:
    """Pending writes as `(task_id, channel, value)`, a special channel's (an error, an
    interrupt...) written again by the same task in the first one's place."""
    out: list[tuple[str, str, Any]] = []
    special: dict[tuple[str, str], int] = {}
    for w in writes:
        if w.channel in WRITES_IDX_MAP:
            at = special.get((w.task_id, w.channel))
            if at is not None:
                out[at] = (w.task_id, w.channel, w.value)
                continue
            special[(w.task_id, w.channel)] = len(out)
        out.append((w.task_id, w.channel, w.value))
    return out


def fresh_writes(existing: Sequence[PendingWrite], task_id: str, writes: Sequence[tuple[str, Any]],
                 task_path: str) -> list[PendingWrite]:
    """The writes of a `put_writes(writes, task_id)` to keep: LangGraph keys a write by
    (task, its index in the call; a special channel by its fixed index), and keeps a
    regular write already stored under its key once."""
    have: set[int] = set()
    position = 0
    for w in existing:
        if w.task_id == task_id:
            have.add(WRITES_IDX_MAP.get(w.channel, position))
            position += 1
    out = []
    for i, (channel, value) in enumerate(writes):
        idx = WRITES_IDX_MAP.get(channel, i)
        if idx >= 0 and idx in have:
            continue
        out.append(PendingWrite(task_id=task_id, task_name=task_path, channel=channel, value=value))
    return out
