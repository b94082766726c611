"""A run's records along one branch: what each task of each superstep wrote.

Three sources, best first, for the superstep that made checkpoint C' from C:

1. C'.metadata["record"]: a recording run (`config["record"] = True`; the studio and
   `retrograph run` record) kept every task's writes, Command goto and resume values;
2. pending writes still kept beside C (LangGraph's own stores keep them for ever);
3. derived from the two checkpoints, where that is exact: a one-task superstep whose
   keys are plain values, `operator.add` lists or `add_messages` lists.

Anything else has no record, and a replay asked to answer such a task says so.
"""
from __future__ import annotations

import inspect
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..channels import LastValue, ReducerChannel
from ..checkpoint.base import DONE, ERROR, INTERRUPT, RESUME, ROUTE, SEND, Checkpoint
from ..constants import START
from ..messages import add_messages
from ..types import Command, Overwrite
from ..runtime.task_record import RECORD_KEY

if TYPE_CHECKING:
    from ..runtime.protocols import CompiledGraph

__all__ = ["TaskRecord", "Superstep", "RecordedBranch", "ReplayError", "load_branch"]


class ReplayError(ValueError):
    """A replay or a record cannot be made as asked; the message names the culprit."""


@dataclass(frozen=True, kw_only=True)
class TaskRecord:
    """What one task wrote in a recorded superstep."""

    node: str
    writes: tuple[tuple[str, Any], ...]
    task_id: str = ""
    """The recorded task's id ("" when unknown): a subgraph it ran keeps its checkpoints under it."""
    goto: tuple[Any, ...] = ()
    resume: tuple[Any, ...] = ()
    source: str = "record"
    """"record" (kept by a recording run), "writes" (kept pending writes) or "derived"
    (for an edit: "edit", its writes read from the two checkpoints)."""
    recorded: bool = False
    """This task was itself answered from records (by an earlier replay)."""


@dataclass(frozen=True, kw_only=True)
class Superstep:
    """The superstep that made `after` from `before` (None: the branch ends at `before`)."""

    before: Checkpoint
    after: Checkpoint | None
    tasks: tuple[TaskRecord, ...] | None = None
    """None when no source records it (see the module docstring)."""

    @property
    def step(self) -> int:
        return self.before.step + 1

    @property
    def edit(self) -> bool:
        """An `update_state` edit made `after` (its tasks: each `(values, as_node)` as a record)."""
        return self.after is not None and self.after.source == "update"

    def of(self, node: str) -> list[TaskRecord]:
        return [t for t in self.tasks or () if t.node == node]


@dataclass(frozen=True, kw_only=True)
class RecordedBranch:
    """The checkpoints from a start checkpoint to the head of its branch, as supersteps."""

    thread_id: str
    start: Checkpoint
    steps: tuple[Superstep, ...] = field(default=())

    @property
    def final(self) -> Checkpoint:
        return self.steps[-1].after or self.steps[-1].before if self.steps else self.start


def load_branch(graph: CompiledGraph, saver: Any, thread_id: str, checkpoint_id: str | None = None,
                head_id: str | None = None) -> RecordedBranch:
    """The branch from `checkpoint_id` (default: the thread's first checkpoint) to `head_id`
    (default: the newest checkpoint descending from it), with each superstep's records."""
    headers = list(saver.list_headers(thread_id))
    if not headers:
        known = ", ".join(repr(t.thread_id) for t in saver.threads()[:10]) or "none"
        raise ReplayError(f"thread `{thread_id}` has no checkpoints in this database (threads: {known})")
    by_id = {h.id: h for h in headers}
    start_id = checkpoint_id or headers[-1].id
    if start_id not in by_id:
        raise ReplayError(f"thread `{thread_id}` has no checkpoint `{start_id}`; "
                          f"`retrograph history DB --thread {thread_id}` lists them")
    if head_id is None:  # the newest checkpoint descending from the start (headers are newest first)
        head_id = next(h.id for h in headers if _descends(by_id, h.id, start_id))
    elif head_id not in by_id or not _descends(by_id, head_id, start_id):
        raise ReplayError(f"checkpoint `{head_id}` is not on a branch after `{start_id}` in thread `{thread_id}`")
    chain: list[str] = []
    at: str | None = head_id
    while at is not None:
        chain.append(at)
        if at == start_id:
            break
        at = by_id[at].parent_id
    chain.reverse()
    ckpts = [saver.load(thread_id, cid) for cid in chain]
    start = ckpts[0]
    steps: list[Superstep] = []
    before = start
    for after in ckpts[1:]:
        if after.source == "fork":  # a copy of `before`: no task ran
            before = after
            continue
        if after.source == "update":  # a person's edit (update_state), re-applied by a replay
            tasks = _edit_records(graph, before, after)
        else:
            tasks = _records(graph, saver, thread_id, before, after)
        steps.append(Superstep(before=before, after=after, tasks=tasks))
        before = after
    steps.append(Superstep(before=before, after=None))
    return RecordedBranch(thread_id=thread_id, start=start, steps=tuple(steps))


def _descends(by_id: Mapping[str, Any], cid: str, ancestor: str) -> bool:
    at: str | None = cid
    while at is not None:
        if at == ancestor:
            return True
        h = by_id.get(at)
        at = h.parent_id if h is not None else None
    return False


def _records(graph: CompiledGraph, saver: Any, thread_id: str, before: Checkpoint,
             after: Checkpoint) -> tuple[TaskRecord, ...] | None:
    kept = after.metadata.get(RECORD_KEY) if isinstance(after.metadata, Mapping) else None
    if isinstance(kept, list):
        return tuple(TaskRecord(node=str(r.get("node")), task_id=str(r.get("task") or ""),
                                writes=tuple((str(k), v) for k, v in r.get("writes", ())),
                                goto=tuple(r.get("goto", ())) + tuple(r.get("sends", ())),
                                resume=tuple(r.get("resume", ())), recorded=bool(r.get("recorded")))
                     for r in kept if isinstance(r, Mapping))
    try:
        writes = list(saver.pending_writes(thread_id, before.id))
    except Exception:  # noqa: BLE001 - a store that cannot list them has no such record
        writes = []
    pending = _from_pending(writes, before)
    if pending is not None:
        return pending
    derived = _derived(graph, before, after)
    if derived is not None and len(derived) == 1 and before.tasks:  # its resume values, when kept
        resume = tuple(v for w in writes if w.channel == RESUME and w.task_id == before.tasks[0].id for v in w.value)
        if resume:
            derived = (replace(derived[0], resume=resume),)
    return derived


def _from_pending(writes: list[Any], before: Checkpoint) -> tuple[TaskRecord, ...] | None:
    """Every task's kept writes, or None unless each task of the superstep finished in them."""
    if not writes:
        return None
    by_task: dict[str, list[Any]] = {}
    for w in writes:
        by_task.setdefault(w.task_id, []).append(w)
    out = []
    for task in before.tasks:
        ws = by_task.get(task.id)
        if ws is None:
            return None  # a task of the superstep left nothing: not a full record
        if not any(w.channel not in (INTERRUPT, RESUME, ERROR) for w in ws):
            return None  # it failed or was interrupted there: its finished writes are not these
        resume = tuple(v for w in ws if w.channel == RESUME for v in w.value)
        out.append(TaskRecord(
            node=task.name, task_id=task.id, source="writes", resume=resume,
            writes=tuple((w.channel, w.value) for w in ws
                         if w.channel not in (ROUTE, SEND, INTERRUPT, ERROR, RESUME, DONE)),
        ))
    return tuple(out)


def _derived(graph: CompiledGraph, before: Checkpoint, after: Checkpoint) -> tuple[TaskRecord, ...] | None:
    if len(before.tasks) != 1 or after.source != "loop":
        return None
    task = before.tasks[0]
    if task.name == START and task.is_send:  # the input, which the plan keeps
        arg = task.arg.update if isinstance(task.arg, Command) else task.arg
        if not isinstance(arg, Mapping):
            return None
        return (TaskRecord(node=START, task_id=task.id, source="derived",
                           writes=tuple((k, v) for k, v in arg.items() if k in graph.schema.input_keys)),)
    if after.nodes_ran != (task.name,):
        return None
    writes: list[tuple[str, Any]] = []
    for key, new, old, channel in _changed(graph, before, after):
        write = _delta(channel, new, old)
        if write is _NOT_EXACT:
            return None
        writes.append((key, write))
    return (TaskRecord(node=task.name, task_id=task.id, writes=tuple(writes), source="derived"),)


def _edit_records(graph: CompiledGraph, before: Checkpoint, after: Checkpoint) -> tuple[TaskRecord, ...] | None:
    """An edit's `(values, as_node)` pairs as records: kept by a recording (update_state
    with config["record"]), else read from the two checkpoints: a plain key's new value,
    what was appended to an `operator.add` or `add_messages` list, and otherwise the
    recorded value itself as an `Overwrite`. None when it cannot be told (a bulk edit
    as several nodes, or a clear)."""
    kept = after.metadata.get(RECORD_KEY) if isinstance(after.metadata, Mapping) else None
    if isinstance(kept, list) and kept:
        return tuple(TaskRecord(node=str(r.get("node")), writes=tuple((str(k), v) for k, v in r.get("writes", ())),
                                source="edit") for r in kept if isinstance(r, Mapping))
    if len(after.nodes_ran) != 1 or after.nodes_ran[0] not in graph.runners:
        return None
    writes = []
    for key, new, old, channel in _changed(graph, before, after):
        write = _delta(channel, new, old)
        writes.append((key, Overwrite(new) if write is _NOT_EXACT else write))
    if not writes and not after.tasks:
        return None  # cleared (as_node END): nothing tells it from an empty edit
    return (TaskRecord(node=after.nodes_ran[0], writes=tuple(writes), source="edit"),)


_NOT_EXACT: Any = object()


def _changed(graph: CompiledGraph, before: Checkpoint, after: Checkpoint) -> list[tuple[str, Any, Any, Any]]:
    """(key, new value, old value, channel) of each key the step from `before` wrote."""
    channels = graph.schema.channels
    return [(key, after.values[key], before.values.get(key), channels.get(key))
            for key, version in after.versions.items()
            if version == after.id and key in after.values and before.versions.get(key) != version]


def _delta(channel: Any, new: Any, old: Any) -> Any:
    """The write that turned `old` into `new` through `channel`, or _NOT_EXACT."""
    if type(channel) is LastValue:
        return new
    if type(channel) is ReducerChannel and type(new) is list and type(old) is list:
        fn = inspect.unwrap(channel.fn)
        if fn is operator.add and len(new) >= len(old) and new[:len(old)] == old:
            return new[len(old):]
        if fn is add_messages and (delta := _message_delta(old, new)) is not None:
            return delta
    return _NOT_EXACT


def _message_delta(old: Sequence[Any], new: Sequence[Any]) -> list[Any] | None:
    """The messages an add_messages write must have carried (new ids, and changed ones);
    None when one was removed, which only a RemoveMessage write can say."""
    before = {getattr(m, "id", None): m for m in old}
    after = {getattr(m, "id", None) for m in new}
    if None in before or not set(before) <= after:
        return None
    return [m for m in new if getattr(m, "id", None) not in before or before[getattr(m, "id", None)] != m]
