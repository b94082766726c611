"""LangGraph's checkpointer object API, on any Retrograph checkpoint store.

LangGraph users call their saver directly: `saver.list(config, filter=, before=, limit=)`,
`get_tuple(config)`, `get(config)`, `put(config, checkpoint, metadata, new_versions)`,
`put_writes(config, writes, task_id)`, `delete_thread(thread_id)` and the async twins.
Retrograph's stores answer the engine's own protocol (base.py: `save`, `save_writes`,
`load`, `history`, ...), keyed by thread id. `LangGraphSaverAPI`, a base of
`BaseCheckpointSaver`, gives every store LangGraph's methods as ordinary methods that
translate a config into a store key and a LangGraph record into the engine's, so a new
store gets the LangGraph API by implementing the engine's protocol alone. A subclass may
override them; a run then saves through the overrides (routing.py).

Records come back in LangGraph's shapes: `CheckpointTuple(config, checkpoint, metadata,
parent_config, pending_writes)`, the checkpoint as a dict with `id`, `ts`,
`channel_values` and `channel_versions`, pending writes as `(task_id, channel, value)`.
"""
from __future__ import annotations

import builtins
import heapq
import re
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from ..errors import MissingCheckpointError
from .data import ERROR
from .delta_record import delta_view
from .ids import ns_thread_key, split_thread_key
from .lg_form import fresh_writes, is_lg_form, lg_parts, lg_pending, public_metadata, record_of
from .lg_maintenance import LangGraphMaintenance
from .lg_projection import ShapeMemo, lg_writes

__all__ = ["CheckpointTuple", "LangGraphSaverAPI"]


class CheckpointTuple(NamedTuple):
    """A checkpoint as LangGraph's savers return it."""

    config: dict[str, Any]
    checkpoint: dict[str, Any]
    metadata: dict[str, Any]
    parent_config: dict[str, Any] | None = None
    pending_writes: list[tuple[str, str, Any]] | None = None


def _config(key: str, checkpoint_id: str | None) -> dict[str, Any] | None:
    """The config of a checkpoint stored under `key` (a thread, and a subgraph's namespace)."""
    if checkpoint_id is None:
        return None
    thread_id, ns = split_thread_key(key)
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}}


def _address(config: Mapping[str, Any] | None, method: str = "get_tuple") -> tuple[str | None, str | None]:
    """(the store key the config names, with its checkpoint_ns; its checkpoint id)."""
    if config is not None and not isinstance(config, Mapping):
        raise TypeError(
            f"{method}(config): expected a config dict such as {{'configurable': {{'thread_id': ...}}}}, "
            f"got a {type(config).__name__}; the engine's own form by thread id is "
            f"{_OWN_FORM.get(method, 'load(thread_id, checkpoint_id)')}"
        )
    conf = (config or {}).get("configurable") or {}
    thread_id = conf.get("thread_id")
    if thread_id is None:
        return None, conf.get("checkpoint_id")
    return ns_thread_key(str(thread_id), str(conf.get("checkpoint_ns") or "")), conf.get("checkpoint_id")


_OWN_FORM = {"get": "load(thread_id, checkpoint_id)", "get_tuple": "load(thread_id, checkpoint_id)",
             "list": "history(thread_id, before=, limit=)", "put": "save(checkpoint, appended=)",
             "put_writes": "save_writes(thread_id, checkpoint_id, writes)"}


_BAD_FILTER_KEY = re.compile(r"""['"();=\\`]|--""")


def check_filter_keys(filter: Mapping[str, Any] | None) -> None:
    """A `list(filter=...)` key is a metadata name or dotted path: one with quotes,
    parentheses, `;`, `=`, a backslash or `--` raises, as LangGraph's SQL savers do."""
    for key in filter or ():
        if not isinstance(key, str) or not key or _BAD_FILTER_KEY.search(key):
            raise ValueError(f"Invalid filter key {key!r:.80} in list(filter=...): a metadata name or a dotted "
                             "path such as 'user.level'")


def _matches(metadata: Mapping[str, Any], key: str, expected: Any) -> bool:
    """Whether metadata[key] == expected; a dotted key not in the metadata as such names
    a nested entry (`"user.level"`), as LangGraph's SQL savers read it."""
    if key in metadata or "." not in key:
        return bool(metadata.get(key) == expected)
    found: Any = metadata
    for part in key.split("."):
        if not isinstance(found, Mapping) or part not in found:
            return False
        found = found[part]
    return bool(found == expected)


def _write_value(channel: str, value: Any) -> Any:

    if channel == ERROR and isinstance(value, Mapping):  # as LangGraph shows an error: its repr
        return f"{value.get('type', 'Exception')}({value.get('message', '')!r})"
    return value


class LangGraphSaverAPI(LangGraphMaintenance):
    """LangGraph's saver methods over a store's own protocol (see the module docstring)."""

    # -- records ------------------------------------------------------------------------
    def _tuple(self, ckpt: Any, with_writes: bool = True, memo: ShapeMemo | None = None) -> CheckpointTuple:
        memo = memo if memo is not None else ShapeMemo(self)
        if is_lg_form(ckpt):  # put in LangGraph's form: handed back as it was put
            checkpoint, metadata = lg_parts(ckpt, raw=True)
            return CheckpointTuple(config=_config(ckpt.thread_id, ckpt.id) or {}, checkpoint=checkpoint,
                                   metadata=metadata, parent_config=_config(ckpt.thread_id, ckpt.parent_id),
                                   pending_writes=lg_pending(memo.writes(ckpt)) if with_writes else None)
        shape = memo.shape(ckpt)
        metadata = {"source": ckpt.source, "step": ckpt.step, "parents": {}, **public_metadata(ckpt.metadata)}
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
        return self._get_tuple(config)

    def _history_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        """get_tuple for `get_delta_channel_history`: with the whole values of the delta
        keys, which the records keep (a nearer seed than LangGraph's snapshots), unless a
        subclass replaced get_tuple."""
        if type(self).get_tuple is not LangGraphSaverAPI.get_tuple:
            return self.get_tuple(config)
        return self._get_tuple(config, whole=True)

    def _get_tuple(self, config: Mapping[str, Any], whole: bool = False) -> CheckpointTuple | None:
        thread_id, checkpoint_id = _address(config, "get_tuple")
        if thread_id is None:
            return None
        ckpt = self.load(thread_id, checkpoint_id)  # type: ignore[attr-defined]
        if ckpt is None:
            return None
        memo = ShapeMemo(self)
        if checkpoint_id is not None:  # an older one: its tasks' writes may be read back from its child
            child = next((h for h in self.list_headers(thread_id)  # type: ignore[attr-defined]
                          if h.parent_id == ckpt.id and h.source == "loop"), None)
            found = self.load(thread_id, child.id) if child is not None else None  # type: ignore[attr-defined]
            if found is not None:
                memo.shape(found)
        tup = self._tuple(ckpt, memo=memo)
        view = delta_view(ckpt) if whole else None
        if view:
            written = memo.shape(ckpt).state_keys
            tup.checkpoint["channel_values"].update(
                (k, ckpt.values[k]) for k in view if k in written and k in ckpt.values)
        return tup

    def get(self, config: Mapping[str, Any]) -> dict[str, Any] | None:
        """The checkpoint dict the config names (see get_tuple)."""
        _address(config, "get")
        found = self.get_tuple(config)
        return found.checkpoint if found is not None else None

    def list(self, config: Mapping[str, Any] | None, *, filter: Mapping[str, Any] | None = None,
             before: Mapping[str, Any] | None = None, limit: int | None = None) -> Iterator[CheckpointTuple]:
        """Checkpoints newest first as CheckpointTuples: of the config's thread (every
        namespace when it names none; every thread for None), matching `filter`."""
        thread_id, checkpoint_id = _address(config, "list")
        check_filter_keys(filter)
        threads = [thread_id] if thread_id is not None else [t.thread_id for t in self.threads()]  # type: ignore[attr-defined]
        conf = (config or {}).get("configurable") or {}
        if conf.get("checkpoint_ns") is None:  # as LangGraph: no namespace named, every namespace
            threads = [key for tid in threads for key in self._with_namespaces(tid)]
        before_key, before_id = _address(before) if before else (None, None)
        left = limit
        memo = ShapeMemo(self)
        for ckpt in self._candidates(threads, before_key, before_id):
            if left is not None and left <= 0:
                return
            if checkpoint_id is not None and ckpt.id != checkpoint_id:
                continue
            found = self._tuple(ckpt, memo=memo)
            if filter and not all(_matches(found.metadata, k, v) for k, v in filter.items()):
                continue
            if left is not None:
                left -= 1
            yield found

    lists_by_id = False
    """`list` over several threads or namespaces: True gives one order, newest checkpoint id
    first, as LangGraph's SQL savers do (`ORDER BY checkpoint_id DESC`); False, each thread
    and namespace in turn, as its memory saver does."""

    def _candidates(self, keys: builtins.list[str], before_key: str | None,
                    before_id: str | None) -> Iterator[Any]:
        def one(tid: str) -> Iterator[Any]:
            # the thread `before` names lists what was put before it; another, the older ids
            own = before_id if before_key is None or before_key == tid else None
            for ckpt in self.history(tid, before=own):  # type: ignore[attr-defined]
                if before_id is None or own is not None or ckpt.id < before_id:
                    yield ckpt

        if self.lists_by_id and len(keys) > 1:
            return heapq.merge(*(one(tid) for tid in keys), key=lambda c: c.id, reverse=True)
        return (ckpt for tid in keys for ckpt in one(tid))

    def _with_namespaces(self, key: str) -> builtins.list[str]:
        """A thread's store key, then those of its subgraphs' namespaces."""
        if split_thread_key(key)[1]:
            return [key]
        spaces = self.namespaces(key)  # type: ignore[attr-defined]
        return [key, *(ns_thread_key(key, ns) for ns in spaces if ns)]

    def put(self, config: Mapping[str, Any], checkpoint: Mapping[str, Any], metadata: Mapping[str, Any],
            new_versions: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Store a LangGraph checkpoint dict as a child of the checkpoint `config` names."""
        thread_id, parent_id = _address(config, "put")
        if thread_id is None:
            raise ValueError("put(config, ...): the config names no thread: {'configurable': {'thread_id': ...}}")
        record = getattr(checkpoint, "record", None)
        if record is not None and record.id == checkpoint.get("id"):  # a run's save, through an override
            self.save(record, appended=getattr(checkpoint, "appended", None))  # type: ignore[attr-defined]
            return _config(record.thread_id, record.id) or {}
        parent = self.load(thread_id, parent_id) if parent_id is not None else None  # type: ignore[attr-defined]
        self.save(record_of(thread_id, parent_id, parent, config, checkpoint, metadata, new_versions))  # type: ignore[attr-defined]
        cid = str(checkpoint["id"])
        early = self.__dict__.get("_early_writes")
        if early and (thread_id, cid) in early:  # writes given before their checkpoint (older LangGraph's order)
            self.save_writes(thread_id, cid, early.pop((thread_id, cid)))  # type: ignore[attr-defined]
        return _config(thread_id, cid) or {}

    def put_writes(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str,
                   task_path: str = "") -> None:
        """Keep a task's `(channel, value)` writes beside the checkpoint `config` names."""
        thread_id, checkpoint_id = _address(config, "put_writes")
        if thread_id is None or checkpoint_id is None:
            raise ValueError("put_writes(config, ...): the config must name a thread and a checkpoint_id")
        records = getattr(writes, "records", None)
        if records:  # a run's writes, through an override
            self.save_writes(thread_id, checkpoint_id, list(records))  # type: ignore[attr-defined]
            return
        early = self.__dict__.setdefault("_early_writes", {})
        held = early.get((thread_id, checkpoint_id), [])
        existing = [*self.pending_writes(thread_id, checkpoint_id), *held]  # type: ignore[attr-defined]
        kept = fresh_writes(existing, str(task_id), list(writes), task_path)
        if not kept:
            return
        try:
            self.save_writes(thread_id, checkpoint_id, kept)  # type: ignore[attr-defined]
        except MissingCheckpointError:  # kept until put() stores that checkpoint, as LangGraph's savers allow
            early.setdefault((thread_id, checkpoint_id), []).extend(kept)

    # -- async twins ----------------------------------------------------------------------
    async def aget_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        return self.get_tuple(config)

    async def aget(self, config: Mapping[str, Any]) -> dict[str, Any] | None:
        return self.get(config)

    async def alist(self, config: Mapping[str, Any] | None, *, filter: Mapping[str, Any] | None = None,
                    before: Mapping[str, Any] | None = None, limit: int | None = None) -> AsyncIterator[CheckpointTuple]:
        for found in self.list(config, filter=filter, before=before, limit=limit):
            yield found

    async def aput(self, config: Mapping[str, Any], checkpoint: Mapping[str, Any], metadata: Mapping[str, Any],
                   new_versions: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return self.put(config, checkpoint, metadata, new_versions)

    async def aput_writes(self, config: Mapping[str, Any], writes: Sequence[tuple[str, Any]], task_id: str,
                          task_path: str = "") -> None:
        self.put_writes(config, writes, task_id, task_path)

    async def adelete_thread(self, thread_id: str) -> None:
        self.delete_thread(str(thread_id))  # type: ignore[attr-defined]
