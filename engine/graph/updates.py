"""update_state and bulk_update_state: writing checkpoints by hand, as LangGraph does.

A superstep of updates is a list of `(values, as_node)` pairs applied together in one
new checkpoint, through the same commit as a run. Three `as_node` values are special:

- `"__input__"` saves `values` as a run's input (a `source="input"` checkpoint whose
  next task is `__start__`), as invoke() does before step 0;
- `"__copy__"` copies the checkpoint as a sibling (same parent, `source="fork"`), so a
  run from the copy re-runs its next tasks; `values`, when a list of (values, as_node)
  pairs, is then applied to the copy as one more superstep;
- `END` with `values=None` clears the pending tasks (nothing is left to run).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..checkpoint.base import Checkpoint, PlannedTask, new_checkpoint_id, new_task_id, now_iso, ns_thread_key
from ..constants import END, START
from ..errors import InvalidUpdateError
from ..runtime.time_travel import with_map
from ..runtime.head import save_checkpoint

if TYPE_CHECKING:
    from ..runtime.protocols import CompiledGraph, RunHandle

__all__ = ["bulk_update", "INPUT", "COPY"]

INPUT = "__input__"
COPY = "__copy__"


def _pairs(superstep: Any) -> list[tuple[Any, str | None]]:
    """`StateUpdate`s (or plain `(values, as_node)` tuples) as pairs."""
    if isinstance(superstep, (str, bytes, Mapping)) or not isinstance(superstep, Sequence):
        raise InvalidUpdateError(
            f"bulk_update_state: each superstep must be a list of StateUpdate(values, as_node), got {superstep!r:.80}"
        )
    pairs = []
    for item in superstep:
        if not isinstance(item, Sequence) or isinstance(item, (str, bytes)) or not item:
            raise InvalidUpdateError(f"bulk_update_state: {item!r:.80} is not a StateUpdate(values, as_node)")
        pairs.append((item[0], item[1] if len(item) > 1 else None))
    return pairs


def bulk_update(graph: CompiledGraph, config: Mapping[str, Any], supersteps: Sequence[Any]) -> dict[str, Any]:
    """Apply each superstep of updates on top of the previous one; returns the last
    checkpoint's config."""
    saver = graph.require_saver()
    thread_id, checkpoint_id = graph.thread_of(config)
    graph, ns, key = graph.scope_of(config)  # a subgraph's checkpoint_ns: that subgraph, in its namespace
    steps = [_pairs(s) for s in supersteps]
    if not steps:
        raise ValueError("No supersteps provided: bulk_update_state(config, [[StateUpdate(...)], ...])")
    if any(not s for s in steps):
        raise ValueError("No updates provided: every superstep needs at least one StateUpdate")
    base = saver.load(key, checkpoint_id)
    if checkpoint_id and base is None:
        raise ValueError(f"thread {thread_id!r} has no checkpoint {checkpoint_id!r}; pick one from get_state_history()")
    if ns and base is not None and base.metadata.get("parents"):
        # a subgraph's checkpoint made by hand still leads back to its parents' checkpoints
        config = {**config, "metadata": {**(config.get("metadata") or {}), "parents": base.metadata["parents"]}}
    # As LangGraph: the updates' writes are kept beside the checkpoint they build on (its
    # history shows them as its tasks' results), unless the thread had moved on from it.
    head = next(iter(saver.list_headers(key, limit=1)), None)
    keep = base is not None and head is not None and head.id == base.id
    for updates in steps:
        base = _superstep(graph, config, base, updates, keep)
        keep = True
    assert base is not None
    return with_map(graph.checkpoint_config(thread_id, base.id, ns) or {}, base.metadata.get("parents") if ns else None)


def _superstep(graph: CompiledGraph, config: Mapping[str, Any], base: Checkpoint | None,
               updates: list[tuple[Any, str | None]], keep: bool) -> Checkpoint:
    values, as_node = updates[0]
    if as_node == END and values is None:
        _only_one(updates, "Cannot apply multiple updates when clearing state")
        return _clear(graph, config, base)
    if as_node == INPUT:
        _only_one(updates, "Cannot apply multiple updates when updating as input")
        return _as_input(graph, config, base, values)
    if as_node == COPY:
        _only_one(updates, "Cannot copy checkpoint with multiple updates")
        copy = _copy(graph, config, base)
        if isinstance(values, Sequence) and not isinstance(values, (str, bytes)) and values:
            return _superstep(graph, config, copy, _pairs(values), True)
        return copy
    if any(n in (INPUT, COPY) for _, n in updates):
        raise InvalidUpdateError(f"{INPUT!r} and {COPY!r} updates cannot be mixed with others in one superstep")
    return _run(graph, config).apply_updates(base, updates, keep_writes=keep)


def _only_one(updates: Sequence[Any], message: str) -> None:
    if len(updates) > 1:
        raise InvalidUpdateError(message)


def _save(graph: CompiledGraph, config: Mapping[str, Any], ckpt: Checkpoint) -> Checkpoint:
    return save_checkpoint(_run(graph, config), ckpt)


def _clear(graph: CompiledGraph, config: Mapping[str, Any], base: Checkpoint | None) -> Checkpoint:
    """A checkpoint with the same values and nothing left to run (the writes of tasks
    that finished in the pending superstep are kept, as LangGraph does)."""
    thread_id = _key(graph, config)
    if base is None:
        cid = new_checkpoint_id()
        return _save(graph, config, Checkpoint(
            id=cid, thread_id=thread_id, parent_id=None, step=0, source="update", created_at=now_iso(),
            values={}, versions={}))
    snap = graph.snapshot(base, graph.require_saver().pending_writes(thread_id, base.id), live=True)
    cid = new_checkpoint_id()
    values = dict(snap.values)
    versions = dict(base.versions)
    for key, value in values.items():
        if base.values.get(key, _ABSENT) is not value:
            versions[key] = cid
    return _save(graph, config, Checkpoint(
        id=cid, thread_id=thread_id, parent_id=base.id, step=base.step + 1, source="update",
        created_at=now_iso(), values=values, versions=versions, barriers=dict(base.barriers), tasks=(),
        nodes_ran=base.nodes_ran, metadata=_metadata(config)))


_ABSENT = object()


def _as_input(graph: CompiledGraph, config: Mapping[str, Any], base: Checkpoint | None, values: Any) -> Checkpoint:
    """The input checkpoint a run would save: `values` go to the `__start__` task."""
    thread_id = _key(graph, config)
    if values is None:
        raise InvalidUpdateError(f"Received no input writes for {', '.join(graph.schema.input_keys)}")
    cid = new_checkpoint_id()
    state = dict(base.values) if base is not None else graph.schema.initial_values()
    versions = dict(base.versions) if base is not None else {k: cid for k in state}
    start = PlannedTask(id=new_task_id(cid, 0), name=START, trigger="input", is_send=True, arg=values)
    return _save(graph, config, Checkpoint(
        id=cid, thread_id=thread_id, parent_id=base.id if base else None, step=(base.step + 1) if base else -1,
        source="input", created_at=now_iso(), values=state, versions=versions,
        barriers=dict(base.barriers) if base else {}, tasks=(start,), metadata=_metadata(config)))


def _copy(graph: CompiledGraph, config: Mapping[str, Any], base: Checkpoint | None) -> Checkpoint:
    """A sibling of `base` with the same state and plan: running from it re-runs the plan."""
    if base is None:
        raise InvalidUpdateError("Cannot copy a non-existent checkpoint: the thread has no checkpoint yet")
    cid = new_checkpoint_id()
    return _save(graph, config, replace(
        base, id=cid, parent_id=base.parent_id, step=base.step + 1, source="fork", created_at=now_iso(),
        tasks=tuple(replace(t, id=new_task_id(cid, i)) for i, t in enumerate(base.tasks)),
        metadata=_metadata(config)))


def _ns(config: Mapping[str, Any]) -> str:
    return str((config.get("configurable") or {}).get("checkpoint_ns") or "")


def _key(graph: CompiledGraph, config: Mapping[str, Any]) -> str:
    """The store key of the thread (and the subgraph namespace) the config names."""
    return ns_thread_key(graph.thread_of(config)[0], _ns(config))


def _run(graph: CompiledGraph, config: Mapping[str, Any]) -> RunHandle:
    return graph.new_run(None, config, checkpoint_ns=_ns(config))


def _metadata(config: Mapping[str, Any]) -> dict[str, Any]:
    meta = config.get("metadata")
    return dict(meta) if isinstance(meta, Mapping) else {}
