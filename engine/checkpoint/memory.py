"""`InMemorySaver`: checkpoints kept in this process, for tests, scripts and the studio's
scratch runs.

Values are kept as encoded bytes, so a node that mutates a state list in place never
alters history, and what loads is exactly what the SQLite store would give back. An
appended list is kept as a chain of segments (the new items of each version), shared by
every version on that chain, so memory grows with what changed, not with the state.
"""
from __future__ import annotations

import builtins
import itertools
import threading

import orjson

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import count
from typing import Any, cast

from .base import (
    NS_SEP,
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointHeader,
    PendingWrite,
    PlannedTask,
    ThreadInfo,
)
from .encoding import (
    dumps_extras,
    encode_writes,
    exists_error,
    join_list_segments,
    loads_extras,
    no_checkpoint_error,
)
from .serde import DEFAULT_MAX_BYTES, JSON_INT_MAX, JSON_INT_MIN, Serializer
from .serde_typed_store import store_serializer
from .storage_plan import ABSENT, LIST, VALUE, ListBase, plan_storage

__all__ = ["InMemorySaver", "MemorySaver"]


class _Chain:
    """Segments of one list channel: version `seq` is origin's value + parts[0..seq]."""

    __slots__ = ("origin", "parts", "counts", "sizes", "tagged")

    def __init__(self, origin: tuple[_Chain, int] | None) -> None:
        self.origin = origin
        self.parts: list[bytes] = []
        self.counts: list[int] = []  # items in the list at each seq
        self.sizes: list[int] = []  # encoded bytes of the whole list at each seq
        self.tagged: list[bool] = []  # whether the whole list holds tagged values at each seq

    def add(self, data: bytes, n: int, size: int, tagged: bool) -> int:
        self.parts.append(data)
        self.counts.append(n)
        self.sizes.append(size)
        self.tagged.append(tagged)
        return len(self.parts) - 1

    def assemble(self, seq: int) -> bytes:
        pieces: list[list[bytes]] = []
        chain: _Chain | None = self
        while chain is not None:
            pieces.append(chain.parts[: seq + 1])
            if chain.origin is None:
                break
            chain, seq = chain.origin
        return join_list_segments(itertools.chain.from_iterable(reversed(pieces)))


# A stored channel value: (encoded value, tagged) for any value but a list; (chain, seq)
# for a list, which is version `seq` of that chain.
_Held = tuple[bytes, bool] | tuple[_Chain, int]


def _list_base(held: _Held) -> ListBase | None:
    """What an append needs of a stored version (None: not a list)."""
    first, seq = held
    if type(first) is not _Chain:
        return None
    return ListBase(first.counts[seq], first.sizes[seq], first.tagged[seq])


_Plan = tuple[tuple[str, str, str], ...]
"""A plain plan as (task id, node, trigger) triples."""


def _extras(serde: Serializer, c: Checkpoint) -> bytes | _Plan | None:
    """What a row keeps of the plan, barriers and metadata: the plan itself when the record
    would hold nothing but plain tasks (no Send, argument or timeout; ASCII text, which the
    record's encoder would surely take) and there are no barriers nor metadata (a loop's
    usual checkpoint, see _Row); else the encoded record."""
    tasks = c.tasks
    if len(tasks) == 1 and not (c.barriers or c.metadata):  # a loop's usual plan: one task
        t = tasks[0]
        try:
            if (t.arg is None and not t.is_send and t.timeout is None
                    and t.id.isascii() and t.name.isascii() and t.trigger.isascii()):
                return ((t.id, t.name, t.trigger),)
        except AttributeError:  # not text: the encoder says what is wrong
            pass
        return dumps_extras(serde, c)
    if tasks and not (c.barriers or c.metadata):
        try:
            plain = tuple([(t.id, t.name, t.trigger) for t in tasks
                           if t.arg is None and not t.is_send and t.timeout is None
                           and t.id.isascii() and t.name.isascii() and t.trigger.isascii()])
        except AttributeError:  # not text: the encoder says what is wrong
            plain = ()
        if len(plain) == len(tasks):
            return plain
    return dumps_extras(serde, c)


def _scalars_only(c: Checkpoint, blobs: Mapping[tuple[str, str], _Held]) -> list[tuple[str, bytes]] | None:
    """`plan_storage`'s plan of a checkpoint whose changed values are all JSON scalars (an
    int in JSON's range, a bool, None) and whose kept values the store holds, as the
    (key, encoded value) pairs to store (kind VALUE, untagged); None for any other
    checkpoint, which the full plan handles (and raises for)."""
    own, values = c.id, c.values
    scalars: list[tuple[str, bytes]] = []
    held = 0  # the keys of `values` seen among the versions' keys
    for key, version in c.versions.items():
        if key not in values:  # ABSENT: nothing to store
            continue
        held += 1
        if version != own:  # UNCHANGED: the store must hold it
            if (key, version) not in blobs:
                return None
            continue
        value = values[key]
        t = type(value)
        if t is int and JSON_INT_MIN <= value <= JSON_INT_MAX or t is bool or value is None:
            scalars.append((key, orjson.dumps(value)))  # (as plan_storage encodes a scalar)
            continue
        return None
    if held != len(values):  # (not values.keys() <= c.versions.keys(), without two views)
        return None
    return scalars


def _apply(plan: Sequence[Any], blobs: dict[tuple[str, str], _Held], cid: str) -> None:
    """Store a checkpoint's planned channels (storage_plan.py) under version `cid`."""
    for p in plan:
        kind = p.kind
        if kind <= ABSENT:  # UNCHANGED, ABSENT: nothing to store
            continue
        if kind <= VALUE:  # INLINE never comes (no inline limit), VALUE
            blobs[(p.key, cid)] = (cast(bytes, p.data), p.tagged)
            continue
        if kind == LIST:
            chain = _Chain(None)
        else:
            chain, seq = p.held
            if seq != len(chain.parts) - 1:  # a branch: the base is not the chain's tip
                chain = _Chain(p.held)
        blobs[(p.key, cid)] = (chain, chain.add(cast(bytes, p.data), cast(int, p.n_items), p.size, p.tagged))


class _Row:
    """A stored checkpoint without its values; its header is built when listed.

    `extras` is the encoded plan/barriers/metadata record, or, when the plan holds only
    plain tasks and there are no barriers nor metadata (a loop's usual checkpoint), the
    plan as `(id, name, trigger)` string triples: nothing to encode per superstep, and
    tuples of strings, which the garbage collector stops tracking."""

    __slots__ = ("parent_id", "step", "source", "created_at", "next", "nodes_ran", "versions", "extras")
    next: tuple[str, ...] | None

    def __init__(self, c: Checkpoint, extras: bytes | _Plan | None) -> None:
        self.parent_id = c.parent_id
        self.step = c.step
        self.source = c.source
        self.created_at = c.created_at
        # the names of the next tasks, unless the plan itself is kept (header() reads it there)
        self.next = None if type(extras) is tuple else tuple([t.name for t in c.tasks])
        self.nodes_ran = tuple(c.nodes_ran)
        self.versions = dict(c.versions)
        self.extras = extras

    def header(self, thread_id: str, checkpoint_id: str) -> CheckpointHeader:
        return CheckpointHeader(
            id=checkpoint_id, thread_id=thread_id, parent_id=self.parent_id, step=self.step,
            source=self.source, created_at=self.created_at, nodes_ran=self.nodes_ran,
            next=self.next if self.next is not None else tuple([task[1] for task in cast(_Plan, self.extras)]),
        )


class _Thread:
    __slots__ = ("rows", "order", "position", "children", "blobs", "writes", "touched")

    def __init__(self) -> None:
        self.rows: dict[str, _Row] = {}
        self.order: list[str] = []  # checkpoint ids in the order they were put
        self.position: dict[str, int] = {}
        self.children: dict[str, str] = {}  # checkpoint id -> its oldest child's id
        self.blobs: dict[tuple[str, str], _Held] = {}  # (channel, version) -> its value
        self.writes: dict[str, list[tuple[str, str, str, bytes]]] = {}
        self.touched = 0

    def copy(self) -> _Thread:
        """A copy whose containers are its own (the undo record of a maintenance call)."""
        new = _Thread()
        new.rows, new.order, new.position = dict(self.rows), list(self.order), dict(self.position)
        new.children, new.blobs, new.touched = dict(self.children), dict(self.blobs), self.touched
        new.writes = {k: list(v) for k, v in self.writes.items()}
        return new


class InMemorySaver(BaseCheckpointSaver):
    """Checkpoints in memory; thread-safe; lost when the process ends.

    History is listed in the order checkpoints were put, newest first; `before` names a
    checkpoint of the thread (an unknown one lists nothing)."""

    def __init__(self, *, serde: Serializer | None = None, max_value_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.serde = store_serializer(serde, max_value_bytes)
        self._threads: dict[str, _Thread] = {}
        self._lock = threading.RLock()
        self._clock = count(1)
        self._undo: dict[str, _Thread | None] | None = None
        """In a maintenance call: each thread key it changed -> that thread before (None: absent)."""

    def _keep_undo(self, key: str) -> None:
        undo = self._undo
        if undo is not None and key not in undo:
            th = self._threads.get(key)
            undo[key] = th.copy() if th is not None else None

    @contextmanager
    def maintenance_transaction(self) -> Iterator[None]:
        """prune, delete_for_runs and copy_thread run in this: the saver's lock held for
        the whole call, and every thread it changed put back as it was when it raises."""
        with self._lock:
            if self._undo is not None:  # nested: the outer call's record covers it
                yield
                return
            self._undo = {}
            try:
                yield
            except BaseException:
                for key, th in self._undo.items():
                    if th is None:
                        self._threads.pop(key, None)
                    else:
                        self._threads[key] = th
                raise
            finally:
                self._undo = None

    # -- writing ------------------------------------------------------------------------
    def save(
        self,
        checkpoint: Checkpoint,
        *,
        appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None,
    ) -> None:
        c = checkpoint
        cid, serde = c.id, self.serde
        lock = self._lock
        lock.acquire()  # (`with self._lock`, without the context manager: this runs every superstep)
        try:
            if self._undo is not None:
                self._keep_undo(c.thread_id)
            th = self._threads.get(c.thread_id)
            if th is None:
                th = self._threads[c.thread_id] = _Thread()
            if cid in th.rows:
                raise exists_error(c)
            blobs = th.blobs
            # Plan everything first: a failure leaves the store as it was.
            scalars = _scalars_only(c, blobs)
            if scalars is not None:  # (the plan of scalars and kept values, applied: see _scalars_only)
                extras = _extras(serde, c)
                for key, data in scalars:
                    blobs[(key, cid)] = (data, False)
            else:
                plan = plan_storage(c, appended, serde, lambda key, version: blobs.get((key, version)), _list_base)
                extras = _extras(serde, c)
                _apply(plan, blobs, cid)
            th.rows[cid] = _Row(c, extras)
            th.position[cid] = len(th.order)
            th.order.append(cid)
            if c.parent_id is not None and c.parent_id not in th.children:
                th.children[c.parent_id] = cid
            th.touched = next(self._clock)
        finally:
            lock.release()

    def save_writes(self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite]) -> None:
        encoded = encode_writes(self.serde, writes)
        with self._lock:
            th = self._threads.get(thread_id)
            if th is None or checkpoint_id not in th.rows:
                raise no_checkpoint_error(thread_id, checkpoint_id)
            if self._undo is not None:
                self._keep_undo(thread_id)
            th.writes.setdefault(checkpoint_id, []).extend(encoded)

    def delete_thread(self, thread_id: str) -> None:
        prefix = thread_id + NS_SEP
        with self._lock:
            keys = [k for k in self._threads if k == thread_id or k.startswith(prefix)]
            for key in keys:
                self._keep_undo(key)
                del self._threads[key]

    def namespaces(self, thread_id: str) -> Sequence[str]:
        prefix = thread_id + NS_SEP
        with self._lock:
            return [k[len(prefix):] for k, th in self._threads.items() if k.startswith(prefix) and th.order]

    # -- reading ------------------------------------------------------------------------
    def load(self, thread_id: str, checkpoint_id: str | None = None) -> Checkpoint | None:
        with self._lock:
            th = self._threads.get(thread_id)
            if th is None or not th.order:
                return None
            if checkpoint_id is None:
                checkpoint_id = th.order[-1]
            row = th.rows.get(checkpoint_id)
            if row is None:
                return None
            data: dict[str, tuple[bytes, bool]] = {}
            for key, version in row.versions.items():
                held = th.blobs.get((key, version))
                if held is None:
                    continue
                first, second = held
                if type(first) is _Chain:
                    data[key] = (first.assemble(second), first.tagged[second])
                else:
                    data[key] = held  # type: ignore[assignment]
        extras = row.extras
        barriers: dict[str, tuple[str, ...]]
        metadata: dict[str, Any]
        if isinstance(extras, tuple):
            tasks, barriers, metadata = tuple([PlannedTask(id=i, name=n, trigger=t) for i, n, t in extras]), {}, {}
        else:
            tasks, barriers, metadata = loads_extras(self.serde, extras, checkpoint_id)
        loads = self.serde.loads
        return Checkpoint(
            id=checkpoint_id, thread_id=thread_id, parent_id=row.parent_id, step=row.step, source=row.source,
            created_at=row.created_at, values={k: loads(b, plain=not tagged) for k, (b, tagged) in data.items()},
            versions=dict(row.versions), barriers=barriers, tasks=tasks, nodes_ran=row.nodes_ran,
            metadata=metadata,
        )

    def first_child(self, thread_id: str, checkpoint_id: str) -> str | None:
        with self._lock:
            th = self._threads.get(thread_id)
            return th.children.get(checkpoint_id) if th is not None else None

    def pending_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        with self._lock:
            th = self._threads.get(thread_id)
            rows = list(th.writes.get(checkpoint_id, ())) if th is not None else []
        return [
            PendingWrite(task_id=t, task_name=n, channel=ch, value=self.serde.loads(b)) for t, n, ch, b in rows
        ]

    def _ids(self, thread_id: str, before: str | None, limit: int | None) -> list[str]:
        """Ids newest first, older than `before` (nothing when `before` is unknown)."""
        with self._lock:
            th = self._threads.get(thread_id)
            if th is None:
                return []
            end = len(th.order) if before is None else th.position.get(before, 0)
            start = 0 if limit is None else max(0, end - max(limit, 0))
            return th.order[start:end][::-1]

    def history(
        self, thread_id: str, *, before: str | None = None, limit: int | None = None
    ) -> Iterator[Checkpoint]:
        for cid in self._ids(thread_id, before, limit):
            found = self.load(thread_id, cid)
            if found is not None:
                yield found

    def list_headers(
        self, thread_id: str, *, before: str | None = None, limit: int | None = None
    ) -> Iterator[CheckpointHeader]:
        ids = self._ids(thread_id, before, limit)
        with self._lock:
            th = self._threads.get(thread_id)
            headers = [th.rows[i].header(thread_id, i) for i in ids if i in th.rows] if th is not None else []
        return iter(headers)

    def threads(self) -> builtins.list[ThreadInfo]:
        with self._lock:
            found = [
                (th.rows[th.order[-1]].created_at, th.touched, ThreadInfo(
                    thread_id=tid, checkpoints=len(th.order), latest_id=th.order[-1],
                    updated_at=th.rows[th.order[-1]].created_at,
                ))
                for tid, th in self._threads.items()
                if th.order and NS_SEP not in tid  # a subgraph's namespace is part of its thread
            ]
        found.sort(key=lambda f: (f[0], f[1]), reverse=True)
        return [info for _, _, info in found]


MemorySaver = InMemorySaver
