"""LangGraph's checkpointer object API, on any Retrograph checkpoint store.

LangGraph users call their saver directly: `saver.list(config, filter=, before=, limit=)`,
`get_tuple(config)`, `get(config)`, `put(config, checkpoint, metadata, new_versions)`,
`put_writes(config, writes, task_id)`, `delete_thread(thread_id)` and the async twins.
Retrograph's stores answer a smaller protocol (base.py) keyed by thread id, whose
`get`, `list`, `put` and `put_writes` share those names. `LangGraphSaverAPI`, a base of
`BaseCheckpointSaver`, gives every store both: a call whose first argument is a config
(a mapping, or None for `list`) takes LangGraph's form, anything else the store's own.
The dispatch is installed on each store class as it is defined, so a new store (the
PostgreSQL one, say) gets the LangGraph API by implementing the base protocol alone.

Records come back in LangGraph's shapes: `CheckpointTuple(config, checkpoint, metadata,
parent_config, pending_writes)`, the checkpoint as a dict with `id`, `ts`,
`channel_values` and `channel_versions`, pending writes as `(task_id, channel, value)`.
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from .data import ERROR, Checkpoint, PendingWrite, as_source
from .ids import now_iso, ns_thread_key, split_thread_key
from .lg_projection import INTERNAL_CHANNEL_PREFIXES, ShapeMemo, lg_writes
from .routing import native, overridden

__all__ = ["CheckpointTuple", "LangGraphSaverAPI"]


class CheckpointTuple(NamedTuple):
    """A checkpoint as LangGraph's savers return it."""

    config: dict[str, Any]
    checkpoint: dict[str, Any]
    metadata: dict[str, Any]
    parent_config: dict[str, Any] | None = None
    pending_writes: list[tuple[str, str, Any]] | None = None


_NATIVE_FIRST = ("thread_id", "checkpoint")
"""The first parameter of a store's own get/list/put/put_writes; a method whose first
parameter is named otherwise (a subclass written against LangGraph's API) is left alone."""

_FORMS = {"get": "_lg_get", "list": "_lg_list", "put": "_lg_put", "put_writes": "_lg_put_writes"}


def _takes_native_form(fn: Callable[..., Any]) -> bool:
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return False
    return len(params) > 1 and params[1] in _NATIVE_FIRST


_NATIVE_TYPES = frozenset({str, Checkpoint})
"""Exact types of a store's own first argument (a thread id, a checkpoint)."""


def _dispatching(native: Callable[..., Any], form: str) -> Callable[..., Any]:
    @functools.wraps(native)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if args and type(args[0]) in _NATIVE_TYPES:  # the engine's own calls, every superstep
            return native(self, *args, **kwargs)
        first = args[0] if args else kwargs.get("config", native)
        if first is None or isinstance(first, Mapping):
            return getattr(self, form)(*args, **kwargs)
        return native(self, *args, **kwargs)

    method.__langgraph_dispatch__ = True  # type: ignore[attr-defined]
    return method


def _config(key: str, checkpoint_id: str | None) -> dict[str, Any] | None:
    """The config of a checkpoint stored under `key` (a thread, and a subgraph's namespace)."""
    if checkpoint_id is None:
        return None
    thread_id, ns = split_thread_key(key)
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}}


def _address(config: Mapping[str, Any] | None) -> tuple[str | None, str | None]:
    """(the store key the config names, with its checkpoint_ns; its checkpoint id)."""
    conf = (config or {}).get("configurable") or {}
    thread_id = conf.get("thread_id")
    if thread_id is None:
        return None, conf.get("checkpoint_id")
    return ns_thread_key(str(thread_id), str(conf.get("checkpoint_ns") or "")), conf.get("checkpoint_id")


def _write_value(channel: str, value: Any) -> Any:

    if channel == ERROR and isinstance(value, Mapping):  # as LangGraph shows an error: its repr
        return f"{value.get('type', 'Exception')}({value.get('message', '')!r})"
    return value


class LangGraphSaverAPI:
    """LangGraph's saver methods over a store's own protocol (see the module docstring)."""

    lg_overrides: frozenset[str] = frozenset()
    """The LangGraph-form methods (routing.LG_METHODS) this class overrides outside the
    engine: a run then saves through them (routing.RoutedSaver)."""

    engine_put: Callable[..., None] | None = None
    """The store's own `put(checkpoint, *, appended=)` without the dispatch: what the
    engine calls every superstep (None: call `put`, e.g. a put written in LangGraph's form)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, form in _FORMS.items():
            fn = cls.__dict__.get(name)
            if fn is None or getattr(fn, "__langgraph_dispatch__", False):
                continue
            if not _takes_native_form(fn):
                if name == "put":
                    cls.engine_put = None
                continue
            if name == "put":
                cls.engine_put = fn
            setattr(cls, name, _dispatching(fn, form))
        cls.lg_overrides = overridden(cls)

    # -- records ------------------------------------------------------------------------
    def _tuple(self, ckpt: Any, with_writes: bool = True, memo: ShapeMemo | None = None) -> CheckpointTuple:
        memo = memo if memo is not None else ShapeMemo(self)
        shape = memo.shape(ckpt)
        metadata = {"source": ckpt.source, "step": ckpt.step, "parents": {}, **dict(ckpt.metadata)}
        writes = None
        if with_writes:
            joins = sorted(memo.joins.get(ckpt.thread_id, ()))
            writes = [(task_id, channel, _write_value(channel, value))
                      for task_id, channel, value in [*lg_writes(ckpt, memo.writes(ckpt), joins),
                                                      *memo.derived.get(ckpt.id, ())]]
        return CheckpointTuple(config=_config(ckpt.thread_id, ckpt.id) or {}, checkpoint=shape.checkpoint(ckpt),
                               metadata=metadata, parent_config=_config(ckpt.thread_id, ckpt.parent_id),
                               pending_writes=writes)

    # -- LangGraph's forms ----------------------------------------------------------------
    def get_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        """The checkpoint the config names (its thread's latest without a checkpoint_id)."""
        thread_id, checkpoint_id = _address(config)
        if thread_id is None:
            return None
        ckpt = self.get(thread_id, checkpoint_id)  # type: ignore[attr-defined]
        if ckpt is None:
            return None
        memo = ShapeMemo(self)
        if checkpoint_id is not None:  # an older one: its tasks' writes may be read back from its child
            child = next((h for h in self.list_headers(thread_id)  # type: ignore[attr-defined]
                          if h.parent_id == ckpt.id and h.source == "loop"), None)
            found = self.get(thread_id, child.id) if child is not None else None  # type: ignore[attr-defined]
            if found is not None:
                memo.shape(found)
        return self._tuple(ckpt, memo=memo)

    def _lg_get(self, config: Mapping[str, Any]) -> dict[str, Any] | None:
        found = self.get_tuple(config)
        return found.checkpoint if found is not None else None

    def _lg_list(self, config: Mapping[str, Any] | None, *, filter: Mapping[str, Any] | None = None,
                 before: Mapping[str, Any] | None = None, limit: int | None = None) -> Iterator[CheckpointTuple]:
        thread_id, checkpoint_id = _address(config)
        threads = [thread_id] if thread_id is not None else [t.thread_id for t in self.threads()]  # type: ignore[attr-defined]
        conf = (config or {}).get("configurable") or {}
        if conf.get("checkpoint_ns") is None:  # as LangGraph: no namespace named, every namespace
            threads = [key for tid in threads for key in self._with_namespaces(tid)]
        before_id = _address(before)[1] if before else None
        left = limit
        memo = ShapeMemo(self)
        for tid in threads:
            for ckpt in self.list(tid, before=before_id):  # type: ignore[attr-defined]
                if left is not None and left <= 0:
                    return
                if checkpoint_id is not None and ckpt.id != checkpoint_id:
                    continue
                found = self._tuple(ckpt, memo=memo)
                if filter and any(found.metadata.get(k) != v for k, v in filter.items()):
                    continue
                if left is not None:
                    left -= 1
                yield found

    def _with_namespaces(self, key: str) -> list[str]:
        """A thread's store key, then those of its subgraphs' namespaces."""
        if split_thread_key(key)[1]:
            return [key]
        spaces = self.namespaces(key)  # type: ignore[attr-defined]
        return [key, *(ns_thread_key(key, ns) for ns in spaces if ns)]

    def _lg_put(self, config: Mapping[str, Any], checkpoint: Mapping[str, Any], metadata: Mapping[str, Any],
                new_versions: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Store a LangGraph checkpoint dict as a child of the checkpoint `config` names."""

        thread_id, parent_id = _address(config)
        if thread_id is None:
            raise ValueError("put(config, ...): the config names no thread: {'configurable': {'thread_id': ...}}")
        record = getattr(checkpoint, "record", None)
        if record is not None and record.id == checkpoint.get("id"):  # a run's save, through an override
            native(self, "put")(record, appended=getattr(checkpoint, "appended", None))
            return _config(record.thread_id, record.id) or {}
        cid = str(checkpoint["id"])
        values = {k: v for k, v in (checkpoint.get("channel_values") or {}).items()
                  if not (isinstance(k, str) and k.startswith(INTERNAL_CHANNEL_PREFIXES))}  # LangGraph's triggers
        meta = dict(metadata or {})
        raw = meta.pop("source", "update")
        source = as_source(raw)
        if source != raw:  # not one of ours: kept in the metadata, handed back as it came
            meta["source"] = raw
        native(self, "put")(Checkpoint(
            id=cid, thread_id=thread_id, parent_id=parent_id, step=int(meta.pop("step", -1)),
            source=source, created_at=str(checkpoint.get("ts") or now_iso()),
            values=values, versions={k: cid for k in values},
            metadata={k: v for k, v in meta.items() if k != "parents"},
        ))
        return _config(thread_id, cid) or {}

    def _lg_put_writes(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str,
                       task_path: str = "") -> None:

        thread_id, checkpoint_id = _address(config)
        if thread_id is None or checkpoint_id is None:
            raise ValueError("put_writes(config, ...): the config must name a thread and a checkpoint_id")
        records = getattr(writes, "records", None)
        if records:  # a run's writes, through an override
            native(self, "put_writes")(thread_id, checkpoint_id, list(records))
            return
        native(self, "put_writes")(thread_id, checkpoint_id, [
            PendingWrite(task_id=task_id, task_name=task_path, channel=c, value=v) for c, v in writes])

    # -- async twins ----------------------------------------------------------------------
    async def aget_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        return self.get_tuple(config)

    async def aget(self, config: Mapping[str, Any]) -> dict[str, Any] | None:
        return self._lg_get(config)

    async def alist(self, config: Mapping[str, Any] | None, *, filter: Mapping[str, Any] | None = None,
                    before: Mapping[str, Any] | None = None, limit: int | None = None) -> AsyncIterator[CheckpointTuple]:
        for found in self._lg_list(config, filter=filter, before=before, limit=limit):
            yield found

    async def aput(self, config: Mapping[str, Any], checkpoint: Mapping[str, Any], metadata: Mapping[str, Any],
                   new_versions: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return self._lg_put(config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        self._lg_put_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        self.delete_thread(str(thread_id))  # type: ignore[attr-defined]
