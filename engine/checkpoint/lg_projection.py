"""A Retrograph checkpoint as LangGraph 1.2 lays out its raw checkpoint dict.

LangGraph's saver API hands out the checkpoint it keeps: besides the state's channels it
holds the channels that trigger nodes (`branch:to:X`, the join barriers `join:a+b:X`, the
input channel `__start__`, the Sends of `__pregel_tasks`), a version for each channel
that was ever written, `versions_seen` (per node, the versions of its trigger channels
when it last ran; `__input__` for the input; `__interrupt__` for the versions a resumed
run started from) and `updated_channels`. Retrograph plans from its stored tasks and
keeps none of these, so this module derives them from its records: it replays LangGraph's
bookkeeping along the checkpoint's ancestry (each checkpoint's plan says which nodes ran
next and why, its pending writes what they wrote). Computed on request only; a run never
pays for it.

Versions are numbered along the ancestry in LangGraph's in-memory format (`"000…N.000…0"`),
so they compare as LangGraph's do. Known limits: a run resumed after `interrupt_before`/
`interrupt_after` is not told apart from one that went on (its `__interrupt__` entry is
missing), and with `durability="exit"` the steps that were never saved are skipped.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .data import DONE, ERROR, HANDLED, INTERRUPT, RESUME, ROUTE, SEND, Checkpoint, PendingWrite, PlannedTask
from .delta_record import DeltaSnapshot, delta_view

__all__ = ["LGShape", "ShapeMemo", "project_chain", "lg_writes", "INTERNAL_CHANNEL_PREFIXES"]

START = "__start__"
TASKS = "__pregel_tasks"
END = "__end__"
BRANCH = "branch:to:"
JOIN = "join:"
INPUT_NODE = "__input__"
INTERRUPT_SEEN = "__interrupt__"

INTERNAL_CHANNEL_PREFIXES = (BRANCH, JOIN, START, TASKS)
"""Channels of LangGraph's raw checkpoint that are not state keys (a `put` of such a dict
drops them)."""

_SPECIAL = frozenset({ROUTE, SEND, INTERRUPT, ERROR, RESUME, DONE, HANDLED})


def _version(n: int) -> str:
    return f"{n:032}.{0:016}"


@dataclass
class LGShape:
    """LangGraph's bookkeeping as of one checkpoint (mutable while the ancestry is replayed)."""

    n: int = 0
    depth: int = 0
    """Checkpoints replayed before this one (its place in the ancestry)."""
    versions: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    """Values of the trigger/input channels (ephemeral ones leave when cleared)."""
    state_keys: set[str] = field(default_factory=set)
    """State keys ever written (LangGraph lists only those)."""
    seen: dict[str, dict[str, str]] = field(default_factory=dict)
    updated: list[str] | None = None

    def copy(self) -> LGShape:
        return LGShape(n=self.n, versions=dict(self.versions), extra={k: _copy(v) for k, v in self.extra.items()},
                       state_keys=set(self.state_keys), seen=dict(self.seen),
                       updated=self.updated)

    def checkpoint(self, ckpt: Checkpoint) -> dict[str, Any]:
        """The raw dict of `ckpt`, LangGraph's keys in LangGraph's order; a delta key's value
        as LangGraph shows it (left out, or a DeltaSnapshot)."""
        if ckpt.source == "input":
            values = {k: ckpt.values[k] for k in ckpt.values if k in self.state_keys}
        else:
            values = {k: v for k, v in ckpt.values.items() if k in self.state_keys}
        view = delta_view(ckpt)
        if view:  # a delta key: left out, or its whole value as a snapshot (delta_record.py)
            for key in [k for k in view if k in values]:
                if view[key]:
                    values[key] = DeltaSnapshot(values[key])
                else:
                    del values[key]
        values.update((k, _copy(v)) for k, v in self.extra.items())
        return {"v": 4, "id": ckpt.id, "ts": ckpt.created_at, "channel_values": values,
                "channel_versions": dict(self.versions),
                "versions_seen": {k: dict(v) for k, v in self.seen.items()},
                "updated_channels": None if self.updated is None else list(self.updated)}

    # -- LangGraph's step bookkeeping ------------------------------------------------------
    def _triggers(self, node: str) -> list[str]:
        if node == START:
            return [START] if START in self.versions else []
        return [ch for ch in self.versions
                if ch == BRANCH + node or (ch.startswith(JOIN) and ch.endswith(":" + node))]

    def apply(self, ran: Sequence[PlannedTask], writes: Sequence[tuple[str, str, Any]],
              updated_none: bool = False) -> None:
        """One step: `ran` tasks saw their triggers, consumed complete joins, and wrote
        `writes` (node, channel, value); untouched ephemeral channels clear."""
        nv = _version(self.n + 1)
        self._see_triggers(ran)
        changed = self._consume_joins(ran, nv)
        updated = self._take_writes(writes)
        for ch in updated:
            self.versions[ch] = nv
        changed = changed or bool(updated)
        if ran:  # a Send's task has a trigger in LangGraph too (its push channel)
            changed = self._clear_ephemeral(updated, nv) or changed
        if changed:
            self.n += 1
        self.updated = None if updated_none else sorted(updated)

    def _see_triggers(self, ran: Sequence[PlannedTask]) -> None:
        """Each task that ran records the versions of its trigger channels."""
        for t in ran:
            entry = self.seen[t.name] = dict(self.seen.get(t.name, ()))  # (shared with older shapes)
            if not t.is_send:
                entry.update((ch, self.versions[ch]) for ch in self._triggers(t.name))

    def _consume_joins(self, ran: Sequence[PlannedTask], nv: str) -> bool:
        """A task triggered by a complete join barrier empties it; whether one did."""
        changed = False
        for t in ran:
            for ch in self._triggers(t.name) if not t.is_send else ():
                if ch.startswith(JOIN) and self.extra.get(ch) and set(self.extra[ch]) >= _join_sources(ch):
                    self.extra[ch] = set()
                    self.versions[ch] = nv
                    changed = True
        return changed

    def _take_writes(self, writes: Sequence[tuple[str, str, Any]]) -> set[str]:
        """The step's writes into the trigger channels and state keys; the channels they updated."""
        updated: set[str] = set()
        sends: list[Any] = []
        for _, ch, value in writes:
            if ch in _SPECIAL:
                continue
            if ch == TASKS:
                sends.append(value)
            elif ch.startswith(JOIN):
                seen = self.extra.setdefault(ch, set())
                if value not in seen:
                    seen.add(value)
                    updated.add(ch)
            elif ch.startswith(BRANCH) or ch == START:
                self.extra[ch] = value
                updated.add(ch)
            else:
                self.state_keys.add(ch)
                updated.add(ch)
        if sends:
            self.extra[TASKS] = sends
            updated.add(TASKS)
        return updated

    def _clear_ephemeral(self, updated: set[str], nv: str) -> bool:
        """Trigger channels the step did not write clear (joins keep); whether one did."""
        changed = False
        for ch in [c for c in self.extra if c not in updated]:
            if ch == START or ch.startswith(BRANCH):
                del self.extra[ch]
            elif ch == TASKS and self.extra[ch]:
                self.extra[ch] = []
            else:
                continue
            self.versions[ch] = nv
            changed = True
        return changed


def _copy(value: Any) -> Any:
    return set(value) if isinstance(value, set) else list(value) if isinstance(value, list) else value


def _join_sources(channel: str) -> set[str]:
    return set(channel[len(JOIN):].rsplit(":", 1)[0].split("+"))


def _route_channel(target: str) -> str | None:
    return None if target == END else BRANCH + target


def lg_writes(ckpt: Checkpoint, writes: Sequence[PendingWrite], joins: Sequence[str] = ()) -> list[tuple[str, str, Any]]:
    """The pending writes of `ckpt` as LangGraph keeps them, `(task_id, channel, value)`:
    routes become `branch:to:X` writes, Sends `__pregel_tasks` writes, a task's interrupts
    one list, a join source's arrival a write to its barrier channel."""
    out: list[tuple[str, str, Any]] = []
    interrupts: dict[str, list[Any]] = {}
    errors: dict[str, int] = {}
    names = {t.id: t for t in ckpt.tasks}
    wrote: dict[str, str] = {}
    for w in writes:
        ch = w.channel
        if ch == ROUTE:
            target = w.value[0] if isinstance(w.value, (list, tuple)) and w.value else None
            routed = _route_channel(str(target)) if target is not None else None
            if routed is not None:
                out.append((w.task_id, routed, None))
        elif ch == SEND:
            out.append((w.task_id, TASKS, w.value))
        elif ch == INTERRUPT:
            if w.task_id not in interrupts:
                interrupts[w.task_id] = []
                out.append((w.task_id, INTERRUPT, interrupts[w.task_id]))
            interrupts[w.task_id].append(w.value)
        elif ch == DONE:
            pass
        elif ch == ERROR and w.task_id in errors:  # a task that failed again: LangGraph keeps one error
            out[errors[w.task_id]] = (w.task_id, ch, w.value)
        else:
            if ch == ERROR:
                errors[w.task_id] = len(out)
            out.append((w.task_id, ch, w.value))
        if ch not in (ERROR, INTERRUPT, HANDLED):
            task = names.get(w.task_id)
            wrote[w.task_id] = task.name if task is not None and not task.is_send else ""
    for task_id, node in wrote.items():
        for join in joins:
            if node and node in _join_sources(join):
                out.append((task_id, join, node))
    return out


def _joins_of(ckpt: Checkpoint) -> list[str]:
    found = [k for k in ckpt.barriers if k.startswith(JOIN)]
    for t in ckpt.tasks:
        for why in t.trigger.split(","):
            if why.startswith(JOIN):
                name = f"{why}:{t.name}"
                if name not in found:
                    found.append(name)
    return found


def project_chain(chain: Sequence[Checkpoint], writes_of: Callable[[Checkpoint], Sequence[PendingWrite]],
                  memo: dict[str, LGShape] | None = None,
                  start: tuple[LGShape, Checkpoint] | None = None,
                  derived: dict[str, list[tuple[str, str, Any]]] | None = None) -> list[LGShape]:
    """LangGraph's bookkeeping for each checkpoint of `chain` (root first, each the parent
    of the next; `start`, the shape and record of the first one's parent when known);
    `memo` (checkpoint id -> shape) is read and filled, and `derived` (checkpoint id -> its
    tasks' writes the store did not keep, read back from the child) filled."""
    memo = {} if memo is None else memo
    derived = {} if derived is None else derived
    out: list[LGShape] = []
    shape, prev = start if start is not None else (LGShape(), None)
    for ckpt in chain:
        got = memo.get(ckpt.id)
        if got is None:
            got = _next(shape, prev, ckpt, writes_of, derived)
            memo[ckpt.id] = got
        out.append(got)
        shape, prev = got, ckpt
    return out


def _next(shape: LGShape, parent: Checkpoint | None, ckpt: Checkpoint,
          writes_of: Callable[[Checkpoint], Sequence[PendingWrite]],
          derived: dict[str, list[tuple[str, str, Any]]]) -> LGShape:
    """The shape of `ckpt`, one step on from `shape` (the shape of its `parent`)."""
    new = shape.copy()
    new.depth = shape.depth + 1
    joins = list(dict.fromkeys([*(k for k in shape.extra if k.startswith(JOIN)), *_joins_of(ckpt)]))
    if ckpt.source == "input" and not ckpt.tasks:  # not a run's input (a LangGraph-form put, say)
        new.apply([], [("", k, None) for k in _changed(ckpt, parent)])
    elif ckpt.source == "input":
        _input_step(new, parent, ckpt)
    elif ckpt.source == "fork":
        new.seen[INTERRUPT_SEEN] = dict(new.versions)
        new.updated = []
    elif ckpt.source == "update":
        _update_step(new, parent, ckpt, joins)
    else:
        _loop_step(new, parent, ckpt, joins, writes_of, derived)
    return new


def _update_step(new: LGShape, parent: Checkpoint | None, ckpt: Checkpoint, joins: Sequence[str]) -> None:
    """An update_state: LangGraph's update is a task that saw no channel (triggered by none)."""
    node = ckpt.nodes_ran[0] if ckpt.nodes_ran else ""
    writes = [(node, k, None) for k in _changed(ckpt, parent)]
    writes += _planned_writes(ckpt, node, joins)
    new.apply([PlannedTask(id="", name=node, trigger="update", is_send=True)], writes, updated_none=True)


def _loop_step(new: LGShape, parent: Checkpoint | None, ckpt: Checkpoint, joins: Sequence[str],
               writes_of: Callable[[Checkpoint], Sequence[PendingWrite]],
               derived: dict[str, list[tuple[str, str, Any]]]) -> None:
    """A superstep of a run: the tasks `parent` planned ran and wrote."""
    if parent is None:  # the first saved checkpoint of a thread whose input was not saved
        new.seen.setdefault(INPUT_NODE, {})
        new.apply([], [("", START, None)])
    elif _stopped_at(parent, writes_of(parent)):
        new.seen[INTERRUPT_SEEN] = dict(new.versions)  # the run that made ckpt resumed from parent
    if parent is not None and ckpt.step == parent.step + 1:
        ran, writes = _saved_step(parent, ckpt, joins, writes_of, derived)
    else:
        ran, writes = _unsaved_steps(parent, ckpt, joins)
    new.apply(ran, writes)


def _saved_step(parent: Checkpoint, ckpt: Checkpoint, joins: Sequence[str],
                writes_of: Callable[[Checkpoint], Sequence[PendingWrite]],
                derived: dict[str, list[tuple[str, str, Any]]],
                ) -> tuple[list[PlannedTask], list[tuple[str, str, Any]]]:
    """The tasks that ran from `parent` to `ckpt` (its next step) and their writes; writes
    the store did not keep are read back from `ckpt` (and kept in `derived`)."""
    ran = [_pull(t) for t in parent.tasks if t.name in ckpt.nodes_ran]
    known = {t.name for t in ran}
    ran += [PlannedTask(id="", name=n, trigger="") for n in ckpt.nodes_ran if n not in known]
    planned = {t.id for t in parent.tasks}
    ids = {t.id for t in ran}
    writes = [w for w in lg_writes(parent, writes_of(parent), joins) if w[0] in ids or w[0] not in planned]
    wrote = {w[0] for w in writes}
    missing = [t for t in ran if t.id not in wrote]
    if missing:  # a one-task superstep whose writes the store reads back from ckpt
        extra = _read_back(ckpt, parent, missing, joins)
        derived[parent.id] = extra
        writes += extra
    return ran, writes


def _unsaved_steps(parent: Checkpoint | None, ckpt: Checkpoint, joins: Sequence[str],
                   ) -> tuple[list[PlannedTask], list[tuple[str, str, Any]]]:
    """The steps between `parent` and `ckpt` were not saved: what changed, and the plan it left."""
    names = [START] if parent is None else []  # a thread that begins past its input ran START
    ran = [PlannedTask(id="", name=n, trigger="") for n in dict.fromkeys([*names, *ckpt.nodes_ran])]
    writes = [("", k, None) for k in _changed(ckpt, parent)]
    for node in ckpt.nodes_ran:
        writes += _planned_writes(ckpt, node, joins)
    return ran, writes


def _input_step(new: LGShape, parent: Checkpoint | None, ckpt: Checkpoint) -> None:
    """A run's input: written to `__start__` (its START task), or straight into the input
    channels by a layer that plans their subscribers instead (the Pregel API)."""
    discarded = list(parent.tasks) if parent is not None else []
    new.seen.setdefault(INPUT_NODE, {})
    if all(t.name != START for t in ckpt.tasks):
        new.apply(discarded, [("", k, None) for k in _changed(ckpt, parent)])
    else:
        new.apply(discarded, [("", START, ckpt.tasks[0].arg)])


def _read_back(ckpt: Checkpoint, parent: Checkpoint, tasks: Sequence[PlannedTask],
               joins: Sequence[str]) -> list[tuple[str, str, Any]]:
    """The writes of `tasks` (which ran after `parent`) read back from the checkpoint they made."""
    out: list[tuple[str, str, Any]] = []
    if len(tasks) == 1:
        task = tasks[0]
        for k in ckpt.values:
            if ckpt.versions.get(k) == ckpt.id:
                value, before = ckpt.values[k], parent.values.get(k)
                if type(value) is list and type(before) is list and value[:len(before)] == before:
                    value = value[len(before):]  # an appended list: what was appended
                out.append((task.id, k, value))
    for task in tasks:
        out += [(task.id, ch, v) for _, ch, v in _planned_writes(ckpt, task.name, joins)]
    return out


def _pull(task: PlannedTask) -> PlannedTask:
    """The engine plans the input as a Send to START; LangGraph's START node is triggered."""
    return PlannedTask(id=task.id, name=task.name, trigger=task.trigger) if task.trigger == "input" else task


def _stopped_at(parent: Checkpoint, writes: Sequence[PendingWrite]) -> bool:
    """Whether a run stopped at `parent`, so that its child comes from a resumed run: an
    update_state, a task that failed (unhandled) or asked a question."""
    if parent.source == "update":
        return True
    handled = {w.task_id for w in writes if w.channel == HANDLED}
    return any(w.channel == INTERRUPT or (w.channel == ERROR and w.task_id not in handled) for w in writes)


def _changed(ckpt: Checkpoint, parent: Checkpoint | None) -> list[str]:
    """State keys whose stored version moved since `parent` (all of them without one)."""
    if parent is None:
        return list(ckpt.values)
    return [k for k in ckpt.values if ckpt.versions.get(k) != parent.versions.get(k)]


def _planned_writes(ckpt: Checkpoint, node: str, joins: Sequence[str]) -> list[tuple[str, str, Any]]:
    """The trigger writes `node` made, read back from the plan it left."""
    out: list[tuple[str, str, Any]] = []
    for t in ckpt.tasks:
        if t.is_send:
            if t.trigger == f"send:{node}":
                out.append((node, TASKS, t.arg))
            continue
        if any(why.split(":", 1)[-1] == node for why in t.trigger.split(",") if not why.startswith(JOIN)):
            out.append((node, BRANCH + t.name, None))
    for join in joins:
        if node in _join_sources(join):
            out.append((node, join, node))
    return out


class ShapeMemo:
    """What one saver-API call has read: projected shapes by checkpoint id (every
    `_KEEP_EVERY`th of the ancestry, and the stretch replayed last) and pending writes, so
    listing a long thread newest first replays each checkpoint about twice and holds a
    bounded part of it."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.shapes: dict[str, LGShape] = {}
        self.recent: dict[str, LGShape] = {}
        self._parents: dict[str, dict[str, str | None]] = {}
        self._writes: dict[str, list[PendingWrite]] = {}
        self.derived: dict[str, list[tuple[str, str, Any]]] = {}
        """Writes the store did not keep, read back from a child (lg_projection)."""
        self.joins: dict[str, set[str]] = {}
        """Join barrier channels seen in each store key's shapes (a source's arrival is a
        write to its barrier, which the pending writes of a step before it do not name)."""

    def clear_reads(self) -> None:
        """Forget the pending writes read (a run's next step adds to them) and those read back."""
        self._writes.clear()
        self.derived.clear()

    def keep_only(self, ids: Iterable[str]) -> None:
        """Keep the shapes of these checkpoints only (what a run's next saves build on)."""
        kept = {cid: found for cid in ids if (found := self.known(cid)) is not None}
        self.shapes, self.recent = kept, {}

    def known(self, checkpoint_id: str) -> LGShape | None:
        found = self.shapes.get(checkpoint_id)
        return found if found is not None else self.recent.get(checkpoint_id)

    def _parent_of(self, key: str, checkpoint_id: str) -> str | None:
        """The parent id of a stored checkpoint, from the store's headers (read once per key,
        again when it holds one not read yet); None past the root or for one not stored."""
        parents = self._parents.get(key)
        if parents is None or checkpoint_id not in parents:
            parents = self._parents[key] = {h.id: h.parent_id for h in self.store.list_headers(key)}
        if checkpoint_id not in parents:
            return None
        return parents[checkpoint_id]

    def writes(self, ckpt: Checkpoint) -> list[PendingWrite]:
        found = self._writes.get(ckpt.id)
        if found is None:
            if len(self._writes) > 8:  # a replay asks for one parent's writes at a time
                self._writes.clear()
            found = self._writes[ckpt.id] = list(self.store.pending_writes(ckpt.thread_id, ckpt.id))
        return found

    def shape(self, ckpt: Checkpoint) -> LGShape:
        """LangGraph's bookkeeping as of `ckpt`, replayed from its thread's root (or the
        nearest ancestor already replayed)."""
        found = self.known(ckpt.id)
        if found is not None:
            return found
        key = ckpt.thread_id
        ids: list[str] = []  # the ancestors to replay, newest first (their records are loaded one at a time)
        cid = ckpt.parent_id
        while cid is not None and self.known(cid) is None and len(ids) < _MAX_ANCESTRY:
            ids.append(cid)
            cid = self._parent_of(key, cid)
        base = self.known(cid) if cid is not None else None
        prev = self.store.load(key, cid) if base is not None and cid is not None else None
        shape = base if base is not None and prev is not None else LGShape()
        joins = self.joins.setdefault(key, set())
        recent: dict[str, LGShape] = {}
        last = len(ids) + 1 - _KEEP_EVERY
        for i, made_id in enumerate([*reversed(ids), None]):
            made = ckpt if made_id is None else self.store.load(key, made_id)
            if made is None:  # gone meanwhile: what is older is taken as absent
                shape, prev, recent = LGShape(), None, {}
                continue
            shape = _next(shape, prev, made, self.writes, self.derived)
            if shape.depth % _KEEP_EVERY == 0:
                self.shapes[made.id] = shape
            if i >= last:
                recent[made.id] = shape
            joins.update(k for k in shape.extra if k.startswith("join:"))
            prev = made
        self.recent = recent
        return shape


_MAX_ANCESTRY = 100_000
"""Ancestors replayed for one checkpoint's LangGraph shape (older ones are taken as absent)."""

_KEEP_EVERY = 128
"""Of a long ancestry, the shapes kept are every this many (the rest are replayed again)."""
