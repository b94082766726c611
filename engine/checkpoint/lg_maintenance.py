"""LangGraph's thread maintenance methods on any Retrograph checkpoint store.

`prune(thread_ids, strategy="keep_latest"|"delete")`, `delete_for_runs(run_ids)`,
`copy_thread(source, target)`, `with_allowlist(...)` and their async twins
(`get_delta_channel_history` is delta_history.py's), written once over the engine's store
protocol (base.py: `history`, `save`, `save_writes`, `pending_writes`, `delete_thread`,
`namespaces`, `threads`), so every store has them.

Each call is all or nothing: it runs inside the store's `maintenance_transaction()` (one
SQLite or PostgreSQL transaction, the memory saver's lock with an undo record), so a
process killed in the middle, or an error half-way (copying onto a checkpoint that is
already there), leaves every thread as it was before the call, and no other reader sees
a thread half rewritten. A store without transactions of its own (a user's subclass of
the protocol) gets the same steps without that guarantee.

Keeping some checkpoints of a thread rewrites the thread: its records (every namespace)
are read, the thread is deleted, and the kept ones are saved again oldest first with
their pending writes. A kept checkpoint whose channel value was stored by a dropped one
stores that value itself (its version becomes its own id), so what it loads is unchanged;
a copy keeps every version as it was.
"""
from __future__ import annotations

import asyncio
import builtins
import copy
import dataclasses
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from .data import Checkpoint, PendingWrite
from .ids import NS_SEP, ns_thread_key, split_thread_key

__all__ = ["LangGraphMaintenance"]

_STRATEGIES = ("keep_latest", "delete")

_Thread = builtins.list[tuple[str, builtins.list[tuple[Checkpoint, builtins.list[PendingWrite]]]]]
"""A thread read whole: (store key, its records oldest first with their pending writes) per namespace."""


def _rebased(ckpt: Checkpoint, key: str, stored: set[str]) -> Checkpoint:
    """`ckpt` under store key `key`, a value whose version is not among `stored` stored here."""
    versions = {}
    for name, version in ckpt.versions.items():
        if version in stored or version == ckpt.id:
            versions[name] = version
        elif name in ckpt.values:
            versions[name] = ckpt.id
    return dataclasses.replace(ckpt, thread_id=key, versions=versions)


class LangGraphMaintenance:
    """prune, delete_for_runs, copy_thread (see the module docstring)."""

    def maintenance_transaction(self) -> AbstractContextManager[None]:
        """The block's writes commit together or not at all (a store with transactions
        overrides this; here: no guarantee)."""
        return nullcontext()

    # -- reading and writing a thread whole ------------------------------------------------
    def _read_thread(self, thread_id: str) -> _Thread:
        keys = [thread_id, *(ns_thread_key(thread_id, ns) for ns in self.namespaces(thread_id) if ns)]  # type: ignore[attr-defined]
        out: _Thread = []
        for key in keys:
            records = builtins.list(self.history(key))[::-1]  # type: ignore[attr-defined]
            out.append((key, [(c, builtins.list(self.pending_writes(key, c.id))) for c in records]))  # type: ignore[attr-defined]
        return out

    def _write_thread(self, target: str, thread: _Thread,
                      keep: Callable[[Checkpoint], bool] = lambda c: True) -> None:
        for key, records in thread:
            new_key = ns_thread_key(target, split_thread_key(key)[1]) if split_thread_key(key)[1] else target
            stored: set[str] = set()
            for ckpt, writes in records:
                if not keep(ckpt):
                    continue
                self.save(_rebased(ckpt, new_key, stored))  # type: ignore[attr-defined]
                stored.add(ckpt.id)
                if writes:
                    self.save_writes(new_key, ckpt.id, writes)  # type: ignore[attr-defined]

    def _rewrite(self, thread_id: str, keep: Callable[[str, Checkpoint, Sequence[Checkpoint]], bool]) -> None:
        """Keep the checkpoints of `thread_id` for which keep(key, record, that key's records) holds."""
        thread = self._read_thread(thread_id)
        if not any(records for _, records in thread):
            return
        kept = {id(c) for key, records in thread for c, _ in records
                if keep(key, c, [r for r, _ in records])}
        if len(kept) == sum(len(records) for _, records in thread):
            return
        self.delete_thread(thread_id)  # type: ignore[attr-defined]
        self._write_thread(thread_id, thread, lambda c: id(c) in kept)

    # -- LangGraph's methods ----------------------------------------------------------------
    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """Of each thread, keep the latest checkpoint of each namespace (`"keep_latest"`)
        or nothing (`"delete"`)."""
        if strategy not in _STRATEGIES:
            raise ValueError(f"prune(strategy={strategy!r}): expected one of {', '.join(_STRATEGIES)}")
        thread_ids = [str(t) for t in thread_ids]
        with self.maintenance_transaction():
            for thread_id in thread_ids:
                if strategy == "delete":
                    self.delete_thread(thread_id)  # type: ignore[attr-defined]
                else:
                    self._rewrite(thread_id, lambda key, c, records: c is records[-1])

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Forget every checkpoint (and its pending writes) whose metadata names one of `run_ids`."""
        runs = {str(r) for r in run_ids}
        if not runs:
            return
        with self.maintenance_transaction():
            for info in self.threads():  # type: ignore[attr-defined]
                self._rewrite(info.thread_id, lambda key, c, records: str(c.metadata.get("run_id")) not in runs)

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy every checkpoint of a thread (every namespace, with pending writes) to another
        thread id; copying onto a thread that holds one of the same id raises the store's error."""
        source, target = str(source_thread_id), str(target_thread_id)
        if NS_SEP in target:
            raise ValueError(f"copy_thread(target_thread_id={target!r}): a thread id cannot hold {NS_SEP!r}")
        with self.maintenance_transaction():
            self._write_thread(target, self._read_thread(source))

    def with_allowlist(self, extra_allowlist: Collection[tuple[str, ...]]) -> Any:
        """A shallow copy whose serializer also rebuilds the classes named (module path
        parts, class name); this saver itself when its serializer has no such list."""
        serde = getattr(self, "serde", None)
        derive = getattr(serde, "with_msgpack_allowlist", None)
        if derive is None:
            return self
        new = derive(extra_allowlist)
        if new is serde:
            return self
        clone = copy.copy(self)
        clone.serde = new  # type: ignore[attr-defined]
        return clone

    # -- async twins ----------------------------------------------------------------------
    # (in a worker thread: a rewrite holds the store for its one transaction, not the event loop)
    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await asyncio.to_thread(self.prune, builtins.list(thread_ids), strategy=strategy)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        await asyncio.to_thread(self.delete_for_runs, builtins.list(run_ids))

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        await asyncio.to_thread(self.copy_thread, source_thread_id, target_thread_id)
