"""`InMemorySaver`: checkpoints kept in this process, for tests, scripts and the studio's
scratch runs.

Values are kept as encoded bytes, so a node that mutates a state list in place never
alters history, and what loads is exactly what the SQLite store would give back. An
appended list is kept as a chain of segments (the new items of each version), shared by
every version on that chain, so memory grows with what changed, not with the state.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from .base import (
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointHeader,
    PendingWrite,
    ThreadInfo,
)
from .serde import (
    DEFAULT_MAX_BYTES,
    Serializer,
    dumps_extras,
    encode_channel,
    join_list_segments,
    loads_extras,
    too_big_error,
)

__all__ = ["InMemorySaver", "MemorySaver"]


class _Chain:
    """Segments of one list channel: version `seq` is origin's value + parts[0..seq].

    A chain that is not a list holds one full value in parts[0]."""

    __slots__ = ("origin", "is_list", "parts", "counts", "sizes", "tagged")

    def __init__(self, origin: tuple[_Chain, int] | None, is_list: bool) -> None:
        self.origin = origin
        self.is_list = is_list
        self.parts: list[bytes] = []
        self.counts: list[int] = []  # items in the list at each seq
        self.sizes: list[int] = []  # encoded bytes of the whole list at each seq
        self.tagged: list[bool] = []  # whether the whole list holds tagged values at each seq

    def add(self, data: bytes, n: int | None, size: int, tagged: bool) -> int:
        self.parts.append(data)
        self.counts.append(n or 0)
        self.sizes.append(size)
        self.tagged.append(tagged)
        return len(self.parts) - 1

    def assemble(self, seq: int) -> bytes:
        if not self.is_list:
            return self.parts[0]
        pieces: list[list[bytes]] = []
        chain: _Chain | None = self
        while chain is not None:
            pieces.append(chain.parts[: seq + 1])
            if chain.origin is None:
                break
            chain, seq = chain.origin
        return join_list_segments(s for part in reversed(pieces) for s in part)


@dataclass(frozen=True, kw_only=True)
class _Row:
    header: CheckpointHeader
    versions: dict[str, str]
    extras: bytes | None


@dataclass(kw_only=True)
class _Thread:
    rows: dict[str, _Row] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    position: dict[str, int] = field(default_factory=dict)
    blobs: dict[tuple[str, str], tuple[_Chain, int]] = field(default_factory=dict)
    writes: dict[str, list[tuple[str, str, str, bytes]]] = field(default_factory=dict)
    touched: int = 0


class InMemorySaver(BaseCheckpointSaver):
    """Checkpoints in memory; thread-safe; lost when the process ends.

    History is listed in the order checkpoints were put, newest first; `before` names a
    checkpoint of the thread (an unknown one lists nothing)."""

    def __init__(self, *, serde: Serializer | None = None, max_value_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.serde = serde or Serializer(max_bytes=max_value_bytes)
        self._threads: dict[str, _Thread] = {}
        self._lock = threading.RLock()
        self._clock = count(1)

    # -- writing ------------------------------------------------------------------------
    def put(
        self,
        checkpoint: Checkpoint,
        *,
        appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None,
    ) -> None:
        c = checkpoint
        with self._lock:
            th = self._threads.get(c.thread_id) or _Thread()
            if c.id in th.rows:
                raise ValueError(
                    f"checkpoint `{c.id}` already exists in thread `{c.thread_id}`: checkpoints are "
                    "immutable, save the change as a new checkpoint with a new id"
                )
            # Encode everything first: a failure leaves the store as it was.
            staged: list[tuple[str, tuple[str, bytes, int | None, bool], tuple[_Chain, int] | None]] = []
            for key, version in c.versions.items():
                if key not in c.values:
                    continue
                if version != c.id:
                    if (key, version) not in th.blobs:
                        raise ValueError(
                            f"checkpoint `{c.id}`: channel `{key}` has version `{version}`, but no value "
                            f"was stored under that version in thread `{c.thread_id}`; a changed channel's "
                            "version must be the id of the checkpoint that changes it"
                        )
                    continue
                base = None
                if appended and key in appended:
                    base = th.blobs.get((key, appended[key][0]))
                    if base is not None and not base[0].is_list:
                        base = None
                base_count = base[0].counts[base[1]] if base is not None else None
                n_items = len(appended[key][1]) if base is not None and appended else None
                plan = encode_channel(self.serde, key, c.values[key], base_count, n_items)
                if plan[0] != "append":
                    base = None
                size = len(plan[1]) + 2 + (base[0].sizes[base[1]] if base is not None else 0)
                if size > self.serde.max_bytes:
                    raise too_big_error(key, size, self.serde.max_bytes)
                staged.append((key, plan, base))
            for key in c.values:
                if key not in c.versions:
                    raise ValueError(f"checkpoint `{c.id}`: channel `{key}` has a value but no version")
            extras = dumps_extras(self.serde, c)
            # Apply.
            for key, (kind, data, n, tagged), base in staged:
                size = len(data) + 2
                if base is None:
                    chain = _Chain(None, kind == "list")
                else:
                    chain, seq = base
                    size += chain.sizes[seq]
                    tagged = tagged or chain.tagged[seq]
                    if seq != len(chain.parts) - 1:  # a branch: the base is not the chain's tip
                        chain = _Chain(base, True)
                th.blobs[(key, c.id)] = (chain, chain.add(data, n, size, tagged))
            header = CheckpointHeader(
                id=c.id, thread_id=c.thread_id, parent_id=c.parent_id, step=c.step, source=c.source,
                created_at=c.created_at, next=c.next, nodes_ran=tuple(c.nodes_ran),
            )
            th.rows[c.id] = _Row(header=header, versions=dict(c.versions), extras=extras)
            th.position[c.id] = len(th.order)
            th.order.append(c.id)
            th.touched = next(self._clock)
            if c.parent_id is not None:
                th.writes.pop(c.parent_id, None)
            self._threads[c.thread_id] = th

    def put_writes(self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite]) -> None:
        encoded = [(w.task_id, w.task_name, w.channel, self.serde.dumps(w.value, where=w.channel)) for w in writes]
        with self._lock:
            th = self._threads.get(thread_id)
            if th is None or checkpoint_id not in th.rows:
                raise ValueError(
                    f"put_writes: no checkpoint `{checkpoint_id}` in thread `{thread_id}`; "
                    "save the checkpoint with put() first"
                )
            th.writes.setdefault(checkpoint_id, []).extend(encoded)

    def delete_thread(self, thread_id: str) -> None:
        with self._lock:
            self._threads.pop(thread_id, None)

    # -- reading ------------------------------------------------------------------------
    def get(self, thread_id: str, checkpoint_id: str | None = None) -> Checkpoint | None:
        with self._lock:
            th = self._threads.get(thread_id)
            if th is None or not th.order:
                return None
            row = th.rows.get(checkpoint_id if checkpoint_id is not None else th.order[-1])
            if row is None:
                return None
            raw = {key: th.blobs[(key, v)] for key, v in row.versions.items() if (key, v) in th.blobs}
            data = {key: (chain.assemble(seq), chain.tagged[seq]) for key, (chain, seq) in raw.items()}
        return self._build(row, data)

    def _build(self, row: _Row, data: dict[str, tuple[bytes, bool]]) -> Checkpoint:
        h = row.header
        tasks, barriers, metadata = loads_extras(self.serde, row.extras, h.id)
        loads = self.serde.loads
        return Checkpoint(
            id=h.id, thread_id=h.thread_id, parent_id=h.parent_id, step=h.step, source=h.source,
            created_at=h.created_at, values={k: loads(b, plain=not tagged) for k, (b, tagged) in data.items()},
            versions=dict(row.versions), barriers=barriers, tasks=tasks, nodes_ran=h.nodes_ran,
            metadata=metadata,
        )

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

    def list(
        self, thread_id: str, *, before: str | None = None, limit: int | None = None
    ) -> Iterator[Checkpoint]:
        for cid in self._ids(thread_id, before, limit):
            found = self.get(thread_id, cid)
            if found is not None:
                yield found

    def list_headers(
        self, thread_id: str, *, before: str | None = None, limit: int | None = None
    ) -> Iterator[CheckpointHeader]:
        ids = self._ids(thread_id, before, limit)
        with self._lock:
            th = self._threads.get(thread_id)
            headers = [th.rows[i].header for i in ids if i in th.rows] if th is not None else []
        return iter(headers)

    def threads(self) -> list[ThreadInfo]:
        with self._lock:
            found = sorted(
                self._threads.items(),
                key=lambda kv: (kv[1].rows[kv[1].order[-1]].header.created_at, kv[1].touched) if kv[1].order else ("", 0),
                reverse=True,
            )
            return [
                ThreadInfo(
                    thread_id=tid, checkpoints=len(th.order), latest_id=th.order[-1],
                    updated_at=th.rows[th.order[-1]].header.created_at,
                )
                for tid, th in found
                if th.order
            ]


MemorySaver = InMemorySaver
