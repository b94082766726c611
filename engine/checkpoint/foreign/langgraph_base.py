"""The read protocol over LangGraph's checkpoint layout, whatever database holds it.

`LangGraphReader` turns LangGraph's rows into the engine's records (`CheckpointHeader`,
`Checkpoint`, `PendingWrite`, `ThreadInfo`); langgraph_sqlite.py and langgraph_postgres.py
only fetch rows. Headers are derived once per checkpoint and kept (checkpoints never
change), so polling a live store decodes only the new ones.

A subgraph's checkpoints are asked for with `checkpoint_ns=`, or (as the studio asks every
store) with the store key `ns_thread_key(thread_id, ns)` as the thread id; their headers
name the parent checkpoint whose superstep ran them (`owner_id`, from LangGraph's
`metadata["parents"]`).
"""
from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import CheckpointDecodeError
from ..base import Checkpoint, CheckpointHeader, PendingWrite, ThreadInfo
from ..data import CheckpointSource, as_source
from ..ids import ns_thread_key, split_thread_key
from .langgraph_derive import TASKS, engine_writes, is_state_channel, plan, task_name

__all__ = ["LangGraphReader", "Row", "Summary", "Unreadable"]

Unreadable = Callable[[str, str], None]
"""`on_unreadable(checkpoint_id, reason)`: told of a checkpoint left out of a listing."""


@dataclass(frozen=True)
class Row:
    """One decoded checkpoint row: its id, parent, the checkpoint dict (values may be
    placeholders for a header), which channels hold a value, and the metadata."""

    id: str
    parent_id: str | None
    checkpoint: Mapping[str, Any]
    available: frozenset[str]
    metadata: Mapping[str, Any]


@dataclass(frozen=True)
class Summary:
    step: int
    source: CheckpointSource
    created_at: str
    next: tuple[str, ...]
    sends: tuple[Any, ...]
    owner: str | None = None
    """A subgraph's checkpoint: the root graph's checkpoint whose superstep ran it."""


def _mapping(x: Any) -> Mapping[str, Any]:
    return x if type(x) is dict or isinstance(x, Mapping) else {}


def summarize(row: Row, writes: list[tuple[str, str, str]], node_order: tuple[str, ...] = ()) -> tuple[Summary, Any]:
    """The header's fields and the plan of one row."""
    cp = row.checkpoint
    values = _mapping(cp.get("channel_values"))
    pushed = values.get(TASKS)
    sends: list[Any] = pushed if isinstance(pushed, list) else []
    legacy = cp.get("pending_sends")  # checkpoints of LangGraph before 0.3
    if isinstance(legacy, list):
        sends = list(legacy) + list(sends)
    tasks = plan(row.id, _mapping(cp.get("channel_versions")), _mapping(cp.get("versions_seen")),
                 row.available, values, sends, writes, node_order)
    meta = row.metadata
    step = meta.get("step")
    owner = _mapping(meta.get("parents")).get("")
    summary = Summary(
        step=step if type(step) is int else 0,
        source=as_source(meta.get("source")),
        created_at=str(cp.get("ts", "")),
        next=tuple(t.name for t in tasks),
        sends=tuple(sends),
        owner=owner if type(owner) is str and owner else None,
    )
    return summary, tasks


def _where(thread_id: str, checkpoint_ns: str) -> tuple[str, str]:
    """(thread id, namespace) of a call: `thread_id` may be a store key naming the namespace."""
    if checkpoint_ns:
        return thread_id, checkpoint_ns
    return split_thread_key(thread_id)


def _most(wanted: int, total: int | None) -> bool:
    """Whether reading the whole namespace (of `total` rows, when known) beats looking
    `wanted` rows up by id."""
    return total is not None and wanted >= 500 and wanted * 2 >= total


PAGE = 1000
"""Checkpoints a whole-history listing derives at a time: its memory stays bounded (and its
first headers come) however long the thread is."""
CACHE_MAX = 20_000
"""Headers kept derived; past this many the cache starts again (a long listing's pages
would otherwise pile up in it)."""


class LangGraphReader(ABC):
    """Read-only access to a LangGraph store through the engine's read protocol."""

    read_only = True
    kind = "LangGraph"
    skips_unreadable = True
    """`list` and `list_headers` take `on_unreadable(checkpoint_id, reason)`: a checkpoint
    whose row cannot be decoded is told there and left out, the rest is listed."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._summaries: dict[tuple[str, str, str], Summary] = {}
        self._orders: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {}

    # -- what a database answers ---------------------------------------------------------
    @abstractmethod
    def describe(self) -> str: ...

    @abstractmethod
    def threads(self) -> list[ThreadInfo]: ...

    @abstractmethod
    def namespaces(self, thread_id: str) -> list[str]:
        """The thread's checkpoint namespaces: "" (the root graph) first, then subgraphs'."""

    @abstractmethod
    def _id_page(self, thread_id: str, ns: str, before: str | None, limit: int) -> list[tuple[str, str | None]]:
        """(checkpoint id, parent id) of the newest `limit` checkpoints of the namespace
        older than `before` (LangGraph's ids sort by time), newest first: one query on
        the primary key, however long the thread."""

    def _newest(self, thread_id: str, ns: str) -> str | None:
        """The namespace's newest checkpoint id."""
        page = self._id_page(thread_id, ns, None, 1)
        return page[0][0] if page else None

    @abstractmethod
    def _rows(self, thread_id: str, ns: str, ids: list[str] | None, *, full: bool,
              bad: dict[str, str] | None = None) -> dict[str, Row]:
        """Decoded rows (`ids` None: all of the namespace); with `full=False` the values
        may be placeholders (but Sends and join values are real, `available` is exact).
        A row that cannot be decoded raises CheckpointDecodeError, or with `bad` is left
        out and put there (checkpoint id -> why)."""

    @abstractmethod
    def _write_paths(self, thread_id: str, ns: str, ids: list[str] | None) -> dict[str, list[tuple[str, str, str]]]:
        """(task id, task path, channel) of the writes kept beside each checkpoint."""

    @abstractmethod
    def _writes(self, thread_id: str, ns: str, checkpoint_id: str) -> list[tuple[str, str, str, Any]]:
        """(task id, task path, channel, decoded value) beside one checkpoint, in order."""

    def close(self) -> None:  # noqa: B027 - a no-op by design: a reader without a connection needs no override
        """Release the connection; the default has none."""

    def __enter__(self) -> LangGraphReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the read protocol ---------------------------------------------------------------
    def _node_order(self, thread_id: str, ns: str, ids: list[tuple[str, str | None]] | None = None) -> tuple[str, ...]:
        """The nodes in the order the thread first ran them, from its newest checkpoint;
        summaries made with an older order are made again."""
        newest = self._newest(thread_id, ns) if ids is None else (ids[0][0] if ids else None)
        if newest is None:
            return ()
        with self._lock:
            known = self._orders.get((thread_id, ns))
        if known is not None and known[0] == newest:
            return known[1]
        row = self._rows(thread_id, ns, [newest], full=False, bad={}).get(newest)  # unreadable: no order
        seen = _mapping(row.checkpoint.get("versions_seen")) if row is not None else {}
        order = tuple(str(k) for k in seen if not str(k).startswith("__"))
        with self._lock:
            self._orders[(thread_id, ns)] = (newest, order)
            if known is not None and known[1] != order:
                for key in [k for k in self._summaries if k[:2] == (thread_id, ns)]:
                    del self._summaries[key]
        return order

    def _summary_map(self, thread_id: str, ns: str, ids: list[str], *,
                     order: tuple[str, ...] | None = None,
                     paths: dict[str, list[tuple[str, str, str]]] | None = None,
                     total: int | None = None, bad: dict[str, str] | None = None) -> dict[str, Summary]:
        order = self._node_order(thread_id, ns) if order is None else order
        with self._lock:
            found = {i: s for i in ids if (s := self._summaries.get((thread_id, ns, i))) is not None}
        missing = [i for i in ids if i not in found]
        if missing:
            many = _most(len(missing), total)  # then one scan of the namespace beats lookups by id
            if paths is None:
                paths = self._write_paths(thread_id, ns, None if many else missing)
            rows = self._rows(thread_id, ns, None if many else missing, full=False, bad=bad)
            for cid in missing:
                row = rows.get(cid)
                if row is not None:
                    found[cid], _ = summarize(row, paths.get(cid, []), order)
            with self._lock:
                if len(self._summaries) > CACHE_MAX:
                    self._summaries.clear()
                self._summaries.update(((thread_id, ns, cid), found[cid]) for cid in missing if cid in found)
        return found

    def _nodes_ran(self, thread_id: str, ns: str, parent_id: str | None, parent: Summary | None,
                   paths: dict[str, list[tuple[str, str, str]]]) -> tuple[str, ...]:
        if parent_id is None or parent is None:
            return ()
        names: list[str] = []
        for _, path, _ in paths.get(parent_id, []):
            name = task_name(path, parent.sends)
            if name and name not in names:
                names.append(name)
        return tuple(names)

    def list_headers(self, thread_id: str, *, before: str | None = None, limit: int | None = None,
                     checkpoint_ns: str = "", on_unreadable: Unreadable | None = None) -> Iterator[CheckpointHeader]:
        """Headers newest first, older than `before` when given; a checkpoint that cannot be
        decoded raises, or with `on_unreadable` is told there and left out. With a `limit`
        the rows of that many are read; without, the history is read a PAGE at a time as
        the headers are consumed."""
        thread_id, checkpoint_ns = _where(thread_id, checkpoint_ns)
        if limit is not None:
            page = self._id_page(thread_id, checkpoint_ns, before, max(limit, 0))
            return iter(self._headers(thread_id, checkpoint_ns, page, on_unreadable))
        return self._pages(thread_id, checkpoint_ns, before, on_unreadable)

    def _pages(self, thread_id: str, ns: str, before: str | None,
               on_unreadable: Unreadable | None) -> Iterator[CheckpointHeader]:
        order = self._node_order(thread_id, ns)
        while True:
            page = self._id_page(thread_id, ns, before, PAGE)
            yield from self._headers(thread_id, ns, page, on_unreadable, order)
            if len(page) < PAGE:
                return
            before = page[-1][0]

    def _headers(self, thread_id: str, ns: str, ids: list[tuple[str, str | None]],
                 on_unreadable: Unreadable | None, order: tuple[str, ...] | None = None) -> list[CheckpointHeader]:
        """The headers of `ids` ((id, parent) pairs), from their rows and their parents'."""
        if not ids:
            return []
        key = ns_thread_key(thread_id, ns)
        wanted = list(dict.fromkeys([cid for cid, _ in ids] + [p for _, p in ids if p is not None]))
        paths = self._write_paths(thread_id, ns, wanted)
        bad: dict[str, str] | None = {} if on_unreadable is not None else None
        summaries = self._summary_map(thread_id, ns, wanted, order=self._node_order(thread_id, ns) if order is None else order,
                                      paths=paths, bad=bad)
        out = []
        for cid, parent_id in ids:
            s = summaries.get(cid)
            if s is None:
                if bad is not None and on_unreadable is not None and cid in bad:
                    on_unreadable(cid, f"{self.describe()}, checkpoint {cid[:60]!r}: {bad[cid]}")
                continue
            out.append(CheckpointHeader(
                id=cid, thread_id=key, parent_id=parent_id, step=s.step, source=s.source,
                created_at=s.created_at, next=s.next,
                nodes_ran=self._nodes_ran(thread_id, ns, parent_id, summaries.get(parent_id or ""), paths),
                owner_id=s.owner if ns else None,
            ))
        return out

    def load(self, thread_id: str, checkpoint_id: str | None = None, *, checkpoint_ns: str = "") -> Checkpoint | None:
        thread_id, checkpoint_ns = _where(thread_id, checkpoint_ns)
        if checkpoint_id is None:
            checkpoint_id = self._newest(thread_id, checkpoint_ns)
            if checkpoint_id is None:
                return None
        row = self._rows(thread_id, checkpoint_ns, [checkpoint_id], full=True).get(checkpoint_id)
        if row is None:
            return None
        paths = self._write_paths(thread_id, checkpoint_ns, [i for i in (checkpoint_id, row.parent_id) if i])
        order = self._node_order(thread_id, checkpoint_ns)
        _, tasks = summarize(row, paths.get(checkpoint_id, []), order)
        parent = self._summary_map(thread_id, checkpoint_ns, [row.parent_id], order=order, paths=paths,
                                   bad={}).get(row.parent_id) if row.parent_id else None  # unreadable: no nodes_ran
        cp = row.checkpoint
        values = {k: v for k, v in _mapping(cp.get("channel_values")).items()
                  if is_state_channel(k) and k in row.available}
        versions = {k: str(v) for k, v in _mapping(cp.get("channel_versions")).items() if is_state_channel(k)}
        step = row.metadata.get("step")
        metadata = dict(row.metadata)
        if checkpoint_ns:
            metadata.setdefault("checkpoint_ns", checkpoint_ns)
        return Checkpoint(
            id=checkpoint_id, thread_id=ns_thread_key(thread_id, checkpoint_ns), parent_id=row.parent_id, step=step if type(step) is int else 0,
            source=as_source(row.metadata.get("source")), created_at=str(cp.get("ts", "")), values=values,
            versions=versions, tasks=tasks,
            nodes_ran=self._nodes_ran(thread_id, checkpoint_ns, row.parent_id, parent, paths), metadata=metadata,
        )

    def pending_writes(self, thread_id: str, checkpoint_id: str, *, checkpoint_ns: str = "") -> list[PendingWrite]:
        thread_id, checkpoint_ns = _where(thread_id, checkpoint_ns)
        with self._lock:
            known = self._summaries.get((thread_id, checkpoint_ns, checkpoint_id))
        sends = {checkpoint_id: known} if known is not None else self._summary_map(thread_id, checkpoint_ns, [checkpoint_id])
        summary = sends.get(checkpoint_id)
        try:
            rows = self._writes(thread_id, checkpoint_ns, checkpoint_id)
        except CheckpointDecodeError as e:
            raise CheckpointDecodeError(f"{self.describe()}, a pending write of `{checkpoint_id}`: {e}") from None
        return engine_writes(rows, summary.sends if summary else ())

    def history(self, thread_id: str, *, before: str | None = None, limit: int | None = None,
                checkpoint_ns: str = "", on_unreadable: Unreadable | None = None) -> Iterator[Checkpoint]:
        """Checkpoints newest first; `on_unreadable` as in `list_headers` (a checkpoint
        whose values cannot be decoded is told there too)."""
        thread_id, checkpoint_ns = _where(thread_id, checkpoint_ns)
        for h in self.list_headers(thread_id, before=before, limit=limit, checkpoint_ns=checkpoint_ns,
                                   on_unreadable=on_unreadable):
            try:
                found = self.load(thread_id, h.id, checkpoint_ns=checkpoint_ns)
            except CheckpointDecodeError as e:
                if on_unreadable is None:
                    raise
                on_unreadable(h.id, str(e))
                continue
            if found is not None:
                yield found

    # -- writing: never ----------------------------------------------------------------
    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise PermissionError(f"{self.describe()} is opened read-only: Retrograph never writes to LangGraph's stores")

    put = put_writes = save = save_writes = delete_thread = _refuse
