"""Saves through a saver subclass's own LangGraph-form methods, when it overrides them.

A LangGraph user may subclass a saver and override `put`/`aput`, `put_writes`/
`aput_writes`, `get_tuple`/`aget_tuple` or `get_next_version` (to log, to delay, to fail
on purpose); an async run reads its thread first through an `aget_tuple` override.
The engine saves through the store's own protocol (base.py: `save`, `save_writes`,
`load`), which would pass those overrides by. So when a run starts, `routed` asks, by one
identity check per method, whether the store's class replaces LangGraphSaverAPI's method;
a store that does is wrapped for that run in `RoutedSaver`, which calls the overrides in
LangGraph's form. An unmodified saver is never wrapped and pays nothing.

The checkpoint dict and the writes list handed to an override carry the engine's own
records (`record`, `records`), so an override that goes on to the base class's method
(`super().put(...)`, which goes on to `save`) stores them whole. An async override (`aput`, `aput_writes`) is used
by runs of the async API (`ainvoke`, `astream`): it is scheduled on the run's event loop,
after the ones before it, and awaited when the run's driver ends (`settle`), also when
the run was cancelled.
"""
from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from .data import Checkpoint, PendingWrite
from .ids import split_thread_key
from .langgraph_api import LangGraphSaverAPI
from .lg_projection import ShapeMemo

__all__ = ["LG_METHODS", "LGCheckpointDict", "LGWrites", "RoutedSaver", "overridden", "routed"]

LG_METHODS = ("put", "aput", "put_writes", "aput_writes", "get_tuple", "get_next_version", "aget_tuple")
"""LangGraph-form saver methods a subclass's override of which the engine calls."""

_USER_DEFINED = frozenset({"aget_tuple"})
"""Methods some engine savers define themselves (AsyncPostgresSaver's `aget_tuple`): only a
definition outside the engine counts as an override."""


def _defined_outside_engine(cls: type, name: str) -> bool:
    owner = next((k for k in cls.__mro__ if name in vars(k)), None)
    return owner is not None and not owner.__module__.startswith("engine.")


def overridden(cls: type) -> frozenset[str]:
    """The LangGraph-form methods that `cls` replaces: those that are not LangGraphSaverAPI's
    own (`get_next_version`, which the base has none of, counts when defined at all)."""
    return frozenset(name for name in LG_METHODS
                     if (_defined_outside_engine(cls, name) if name in _USER_DEFINED
                         else getattr(cls, name, None) is not getattr(LangGraphSaverAPI, name, None)))


class LGCheckpointDict(dict):  # type: ignore[type-arg]
    """LangGraph's checkpoint dict handed to an override, with the engine's record."""

    record: Checkpoint | None = None
    appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None


class LGWrites(list):  # type: ignore[type-arg]
    """LangGraph's `[(channel, value)]` handed to an override, with the engine's records."""

    records: Sequence[PendingWrite] = ()


def _config(key: str, checkpoint_id: str | None) -> dict[str, Any]:
    thread_id, ns = split_thread_key(key)
    conf: dict[str, Any] = {"thread_id": thread_id, "checkpoint_ns": ns}
    if checkpoint_id is not None:
        conf["checkpoint_id"] = checkpoint_id
    return {"configurable": conf}


class RoutedSaver:
    """A store for one run whose saves and loads go through its class's LangGraph-form
    overrides; everything else is the store's own."""

    engine_save_many = None  # durability="async" stores its queue one save at a time, which routes

    def __init__(self, store: Any, overrides: frozenset[str], use_async: bool) -> None:
        self.store = store
        self.overrides = overrides
        self.use_async = use_async
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._last: asyncio.Future[Any] | None = None
        self._memo: ShapeMemo | None = None
        """The LangGraph layout replayed so far, for put overrides."""
        self._latest: dict[str, str] = {}
        self._prefetched: dict[tuple[str, str | None], str | None] = {}
        """(thread key, checkpoint id asked) -> the checkpoint id an `aget_tuple` override
        answered (None: no checkpoint), for the run's first load."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    # -- loads --------------------------------------------------------------------------
    async def aprefetch(self, thread_id: str, checkpoint_id: str | None = None) -> None:
        """An async run's first read, through the class's own `aget_tuple` when it has one
        (what it raises ends the run; what it answers is what the run loads)."""
        if not (self.use_async and "aget_tuple" in self.overrides):
            return
        found = await self.store.aget_tuple(_config(thread_id, checkpoint_id))
        conf = (getattr(found, "config", None) or {}).get("configurable") or {}
        self._prefetched[(thread_id, checkpoint_id)] = None if found is None else conf.get("checkpoint_id", checkpoint_id)

    def load(self, thread_id: str, checkpoint_id: str | None = None) -> Checkpoint | None:
        if (thread_id, checkpoint_id) in self._prefetched:
            found_id = self._prefetched.pop((thread_id, checkpoint_id))
            return None if found_id is None else self.store.load(thread_id, found_id)
        if "get_tuple" not in self.overrides:
            return self.store.load(thread_id, checkpoint_id)  # type: ignore[no-any-return]
        found = self.store.get_tuple(_config(thread_id, checkpoint_id))
        if found is None:
            return None
        conf = (getattr(found, "config", None) or {}).get("configurable") or {}
        return self.store.load(thread_id, conf.get("checkpoint_id", checkpoint_id))  # type: ignore[no-any-return]

    # -- saves --------------------------------------------------------------------------
    def save(self, checkpoint: Checkpoint, *, appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None) -> None:
        store, overrides = self.store, self.overrides
        if "get_next_version" in overrides:
            store.get_next_version(None, None)
        use_async = self.use_async and "aput" in overrides
        if not use_async and "put" not in overrides:
            store.save(checkpoint, appended=appended)
            return
        lg, new_versions = self._layout(checkpoint)
        lg.record, lg.appended = checkpoint, appended
        metadata = {"source": checkpoint.source, "step": checkpoint.step, "parents": {}, **dict(checkpoint.metadata)}
        config = _config(checkpoint.thread_id, checkpoint.parent_id)
        if use_async:
            self._call_async(lambda: store.aput(config, lg, metadata, new_versions))
        else:
            store.put(config, lg, metadata, new_versions)

    def _layout(self, checkpoint: Checkpoint) -> tuple[LGCheckpointDict, dict[str, Any]]:
        """LangGraph's raw dict of `checkpoint` (lg_projection), replayed from the saved
        ancestry at a run's first save and one step at a time after it (only the state's
        channels if the records do not allow it), and the versions that moved since its parent."""
        memo = self._memo
        if memo is None:
            memo = self._memo = ShapeMemo(self.store)
        try:
            shape = memo.shape(checkpoint)  # (its parent's shape too)
            before = memo.known(checkpoint.parent_id) if checkpoint.parent_id else None
            raw = shape.checkpoint(checkpoint)
            moved = {k: v for k, v in shape.versions.items() if before is None or before.versions.get(k) != v}
        except Exception:  # noqa: BLE001 - a view for the override; the record is what is stored
            versions = dict(checkpoint.versions)
            raw = {"v": 4, "id": checkpoint.id, "ts": checkpoint.created_at, "channel_values": dict(checkpoint.values),
                   "channel_versions": versions, "versions_seen": {},
                   "updated_channels": sorted(k for k, v in versions.items() if v == checkpoint.id)}
            moved = {k: v for k, v in versions.items() if v == checkpoint.id}
        else:  # keep what the next save of each namespace builds on
            self._latest[checkpoint.thread_id] = checkpoint.id
            memo.keep_only(self._latest.values())
            memo.clear_reads()
        return LGCheckpointDict(raw), moved

    def save_writes(self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite]) -> None:
        store, overrides = self.store, self.overrides
        use_async = self.use_async and "aput_writes" in overrides
        if not use_async and "put_writes" not in overrides:
            if self.use_async and "aput" in overrides:  # after the aput of their checkpoint (its error first)
                async def in_turn() -> None:
                    store.save_writes(thread_id, checkpoint_id, writes)

                self._call_async(in_turn)
                return
            store.save_writes(thread_id, checkpoint_id, writes)
            return
        by_task: dict[str, list[PendingWrite]] = {}
        for w in writes:
            by_task.setdefault(w.task_id, []).append(w)
        config = _config(thread_id, checkpoint_id)
        for task_id, records in by_task.items():
            lg = LGWrites((w.channel, w.value) for w in records)
            lg.records = records
            if use_async:
                self._call_async(functools.partial(store.aput_writes, config, lg, task_id))
            else:
                store.put_writes(config, lg, task_id)

    # -- async overrides ----------------------------------------------------------------
    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop (and its thread) the run drives on."""
        self._loop, self._loop_thread = loop, threading.get_ident()

    def _call_async(self, call: Callable[[], Awaitable[Any]]) -> None:
        """Schedule an async override after those scheduled before it (from a writer thread
        too: it is handed to the loop, never waited for there, as the loop may be waiting
        for that thread)."""
        loop = self._loop
        if loop is None:
            loop = asyncio.get_running_loop()
            self.bind(loop)
        if threading.get_ident() != self._loop_thread:
            loop.call_soon_threadsafe(self._chain, call)
        else:
            self._chain(call)

    def _chain(self, call: Callable[[], Awaitable[Any]]) -> None:
        before = self._last

        async def in_order() -> Any:
            if before is not None:
                await before
            return await call()

        assert self._loop is not None
        self._last = self._loop.create_task(in_order())

    async def settle(self) -> None:
        """Await the async saves scheduled so far (their first error is raised)."""
        await asyncio.sleep(0)  # those a writer thread handed over run their callbacks first
        last, self._last = self._last, None
        if last is not None:
            await asyncio.shield(last)


def routed(store: Any, use_async: bool) -> Any:
    """`store`, or a `RoutedSaver` over it when its class overrides LangGraph-form methods
    (`use_async`: the run was started by the async API)."""
    if not isinstance(store, LangGraphSaverAPI):  # None, a RoutedSaver already, or not a saver
        return store
    overrides = overridden(type(store))
    if not overrides:
        return store
    return RoutedSaver(store, overrides, use_async)
