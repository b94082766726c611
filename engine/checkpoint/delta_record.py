"""What a checkpoint record keeps of its delta keys (LangGraph's DeltaChannel), so LangGraph's
raw checkpoint form shows them as LangGraph does.

LangGraph keeps a delta channel as each superstep's writes and, now and then, its whole
value (a *snapshot*, `_DeltaSnapshot(value)` in the raw `channel_values`); between two
snapshots the raw checkpoint leaves the key out. The engine's stores keep every value, so
get_state and history never depend on this; what a record of a graph with delta keys adds
is what the raw form needs, decided when the checkpoint is made (as LangGraph decides it),
so a saver opened afresh on a file shows the same:

- `DELTA_KEY`, a reserved metadata entry `{key: shows a snapshot}`: which state keys are
  delta keys, and whether this checkpoint shows each one's whole value as a snapshot or
  leaves it out. Not part of the metadata a user sees (`lg_form.public_metadata`).
- `COUNTERS_KEY`, LangGraph's `counters_since_delta_snapshot` (public metadata, as in
  LangGraph): per delta key, `[updates, supersteps]` since its last snapshot; a key at
  `[0, 0]` is left out, and the entry when every key is.

The cadence (LangGraph 1.2's, settled by experiment):
- every checkpoint counts one superstep for each delta key, and one update for each key
  it changed (whose version is its id);
- a key snapshots when its updates reach its `snapshot_every`, or its supersteps reach
  `DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT`, or an Overwrite replaced it; its counters start
  again from zero;
- a `durability="exit"` run decides only for the checkpoint it stores: its counts run on
  through the supersteps it does not store;
- a thread's first checkpoint, when update_state makes it, snapshots every delta key and
  counts nothing;
- a key keeps showing its snapshot while the checkpoints after it leave it unchanged.

Older records (made before this entry existed) have none: their delta keys are not known,
and the raw form lists their values as any key's. Reading never rewrites them.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any, NamedTuple

from .data import Checkpoint

__all__ = ["DeltaSnapshot", "DELTA_KEY", "COUNTERS_KEY", "RUNNING_KEY", "DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT",
           "mark_delta_keys", "delta_view", "due_for_snapshot"]

DELTA_KEY = "__delta_keys__"
COUNTERS_KEY = "counters_since_delta_snapshot"
RUNNING_KEY = "__delta_counts__"
"""A `durability="exit"` run's counts so far (not cut by a snapshot it would store), kept
in its held checkpoints for the next one."""

DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT = 5000
"""A delta key snapshots after this many supersteps without one, written or not (so a
reader of LangGraph's form never walks back further). Read at each checkpoint."""


class DeltaSnapshot(NamedTuple):
    """A delta key's whole value in LangGraph's raw checkpoint (its `_DeltaSnapshot`)."""

    value: Any


def due_for_snapshot(counters: Mapping[str, Any], every: Mapping[str, int]) -> set[str]:
    """The keys of `every` (key -> snapshot_every) whose `(updates, supersteps)` in
    `counters` call for a snapshot."""
    bound = DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT
    out = set()
    for key, freq in every.items():
        updates, steps = _pair(counters.get(key))
        if updates >= freq or steps >= bound:
            out.add(key)
    return out


def _pair(value: Any) -> tuple[int, int]:
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(type(v) is int for v in value):
        return value[0], value[1]
    return 0, 0


def delta_view(ckpt: Checkpoint) -> Mapping[str, bool] | None:
    """`{delta key: shows a snapshot}` of a record, or None for one that does not say
    (no delta keys, or made before records said)."""
    found = ckpt.metadata.get(DELTA_KEY) if isinstance(ckpt.metadata, Mapping) else None
    return found if isinstance(found, Mapping) else None


def _counted(ckpt: Checkpoint, every: Mapping[str, int], seen: Mapping[str, Any],
             snapshotted: Collection[str], held_input: bool) -> dict[str, list[int]]:
    """`[updates, supersteps]` of each delta key after `ckpt`, from the parent's `seen`; the
    keys in `snapshotted` are left out (they snapshot whatever their counts)."""
    counters = {}
    for key in every:
        if key in snapshotted:
            continue
        changed = ckpt.versions.get(key) == ckpt.id and not held_input
        updates, steps = _pair(seen.get(key))
        counters[key] = [updates + changed, steps + 1]
    return counters


def mark_delta_keys(ckpt: Checkpoint, parent: Checkpoint | None, every: Mapping[str, int], *,
                    overwritten: Collection[str] = (), written: Collection[str] | None = None,
                    held: bool = False, parent_held: bool = False) -> Checkpoint:
    """`ckpt` with its delta keys' entries (see the module docstring); `parent`, the record
    it follows (None for a thread's first), `every` the graph's key -> snapshot_every.
    `overwritten`: keys an Overwrite replaced in this checkpoint (they snapshot); `written`,
    the keys its superstep wrote (a thread's first update shows only those). `held`: a
    checkpoint of a `durability="exit"` run, which is stored only if the run ends on it: its
    entries are what they would be stored (a due key snapshots), and the counts go on from
    it uncut (`RUNNING_KEY`) for the run's next one, whose `parent_held` says so."""
    meta = parent.metadata if parent is not None else {}
    seen = meta.get(RUNNING_KEY if parent_held else COUNTERS_KEY)
    before = (delta_view(parent) if parent is not None else None) or {}
    shown: dict[str, bool] = {}
    # a run's input goes to its input task, which writes the keys in the next checkpoint
    held_input = ckpt.source == "input" and any(t.trigger == "input" and t.is_send for t in ckpt.tasks)
    if parent is None and ckpt.source == "update":  # a thread's first update: every key snapshots
        overwritten = every
        shown.update((k, written is None or k in written) for k in every)
    counters = _counted(ckpt, every, seen if isinstance(seen, Mapping) else {}, overwritten, held_input)
    shown.update((k, shown.get(k, True)) for k in every if k not in counters)
    running = {k: list(v) for k, v in counters.items()}
    due = due_for_snapshot(counters, every)
    for key in list(counters):
        if key in due:
            del counters[key]
            shown[key] = True
        else:
            shown[key] = bool(before.get(key)) and (held_input or ckpt.versions.get(key) != ckpt.id)
            if counters[key] == [0, 0]:
                del counters[key]
    return replace(ckpt, metadata=_entries(ckpt.metadata, shown, counters, running if held else None))


def _entries(metadata: Mapping[str, Any], shown: dict[str, bool], counters: dict[str, list[int]],
             running: dict[str, list[int]] | None) -> dict[str, Any]:
    """`metadata` with the delta entries (the running counts only when given and not empty)."""
    out = {k: v for k, v in metadata.items() if k not in (COUNTERS_KEY, RUNNING_KEY)}
    out[DELTA_KEY] = shown
    if counters:
        out[COUNTERS_KEY] = counters
    if running:
        out[RUNNING_KEY] = running
    return out
