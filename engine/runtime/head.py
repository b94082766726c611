"""A run's head: the checkpoint it stands on, what each of its checkpoints keeps in its
metadata, and saving one (through durability's held or background saves when the run has
them). Starting (start.py) and committing (commit.py) both move the head through here.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..checkpoint.base import DONE, SEND, Checkpoint, PendingWrite
from ..channels.reducer import overwrite_value
from ..checkpoint.delta_record import mark_delta_keys
from ..types import Send
from .durability import HeldSaves

if TYPE_CHECKING:
    from .protocols import RunHandle

__all__ = ["checkpoint_metadata", "set_checkpoint", "save_checkpoint", "stored_writes"]


def checkpoint_metadata(run: RunHandle) -> dict[str, Any]:
    """Only what the user put under config['metadata']; configurable keys (API keys
    included) are never persisted."""
    meta = run.config.get("metadata")
    out = dict(meta) if meta and isinstance(meta, Mapping) else {}
    parents = run.options.parents
    if parents:
        out["parents"] = parents
    return out


def set_checkpoint(run: RunHandle, ckpt: Checkpoint, owned: bool = False) -> None:
    """Make `ckpt` the head; `owned` when its values dict was built by this run (a commit),
    which never changes a values dict in place, so it need not be copied."""
    run.checkpoint = ckpt
    run.values = ckpt.values if owned else dict(ckpt.values)  # type: ignore[assignment]
    run.plan = ckpt.tasks
    run.results = {}
    run.unsaved_result = None
    resumes = run.resumes
    if resumes.by_task or resumes.by_interrupt:
        resumes.forget_answers()


def save_checkpoint(run: RunHandle, ckpt: Checkpoint,
                    appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None) -> Checkpoint:
    """Store the checkpoint (channels whose version is its id changed in it); the record
    the run goes on from (with its delta keys' entries, checkpoint/delta_record.py)."""
    if run.saver is None:
        return ckpt
    if run.graph.schema.delta_keys:
        ckpt = _mark_delta_keys(run, ckpt)
    kept = ckpt
    unsaved = run.graph.schema.unsaved_keys
    if unsaved:
        ckpt = _without(ckpt, unsaved)
        if appended:
            appended = {k: v for k, v in appended.items() if k not in unsaved}
    if run.held is not None:
        run.held.save(run, ckpt, appended or None)
        return kept
    run.saver.save(ckpt, appended=appended or None)
    return kept


def _mark_delta_keys(run: RunHandle, ckpt: Checkpoint) -> Checkpoint:
    """`ckpt` with what LangGraph's form needs of its delta keys (checkpoint/delta_record.py)."""
    every = run.graph.schema.delta_keys
    parent = _parent(run, ckpt)
    held = isinstance(run.held, HeldSaves)
    stepped = ckpt.source in ("loop", "update")
    writes = [(ch, v) for r in run.results.values() for ch, v in r.writes if ch in every] if stepped else []
    return mark_delta_keys(ckpt, parent, every, overwritten={ch for ch, v in writes if overwrite_value(v)[0]},
                           written={ch for ch, _ in writes} if stepped else None, held=held,
                           parent_held=held and parent is not None and _held_id(run) == parent.id)


def _held_id(run: RunHandle) -> str | None:
    last = run.held.last if isinstance(run.held, HeldSaves) else None
    return last.id if last is not None else None


def _parent(run: RunHandle, ckpt: Checkpoint) -> Checkpoint | None:
    """The record `ckpt` follows: the run's head, or the stored one it names."""
    head = run.checkpoint
    if head is not None and head.id and head.id == ckpt.parent_id:
        return head
    if ckpt.parent_id is None or run.saver is None:
        return None
    found: Checkpoint | None = run.saver.load(run.store_key, ckpt.parent_id)
    return found


def _without(ckpt: Checkpoint, keys: frozenset[str]) -> Checkpoint:
    """The checkpoint as stored: without the values of the run-only keys, nor those keys
    in the state a Send carries."""
    tasks = ckpt.tasks
    if any(t.is_send and isinstance(t.arg, Mapping) and keys.intersection(t.arg) for t in tasks):
        tasks = tuple(replace(t, arg={k: v for k, v in t.arg.items() if k not in keys})
                      if t.is_send and isinstance(t.arg, Mapping) else t for t in tasks)
    return replace(ckpt, values={k: v for k, v in ckpt.values.items() if k not in keys},
                   versions={k: v for k, v in ckpt.versions.items() if k not in keys}, tasks=tasks)


def stored_writes(writes: list[PendingWrite], keys: frozenset[str]) -> list[PendingWrite]:
    """Pending writes as stored: none to a run-only key, nor those keys in the state a
    Send carries (as in a stored plan); a task left with no write keeps a DONE mark."""
    out = []
    for w in writes:
        if w.channel in keys:
            continue
        value = w.value
        if w.channel == SEND and isinstance(value, Send) and isinstance(value.arg, Mapping) \
                and keys.intersection(value.arg):
            w = replace(w, value=replace(value, arg={k: v for k, v in value.arg.items() if k not in keys}))
        out.append(w)
    if out or not writes:
        return out
    first = writes[0]
    return [PendingWrite(task_id=first.task_id, task_name=first.task_name, channel=DONE, value=None)]
