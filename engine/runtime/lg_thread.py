"""A thread put in LangGraph's form, as a graph reads it: older layouts migrated, the next
superstep planned from `channel_versions` / `versions_seen`, the writes kept beside it in
the engine's form.

A checkpoint dict given to `saver.put(...)` (LangGraph-written data, a tool, a test that
rebuilds a thread) is kept as it was put (checkpoint/lg_form.py): its values, and
LangGraph's bookkeeping, but no plan of the engine's. A graph that loads one (get_state,
get_state_history, a resume) plans its next superstep here, as LangGraph plans it:

- **migration** (`migrate_checkpoint`): layouts of LangGraph before 0.3 name trigger
  channels differently: `start:NODE` (the entry edge), `branch:SRC:COND:NODE` (a router's
  pick), the source node's own name (a plain edge, read through the graph's edges), and
  a `pending_sends` list. They are renamed to `branch:to:NODE` / `__pregel_tasks`, the
  newer version and seen-version winning where two meet;
- **planning**: one task per pending Send, then, in the graph's node order, each node one
  of whose trigger channels holds a value at a version newer than the node has seen.
  Task ids are LangGraph's (a hash of the checkpoint id, namespace, step, node and its
  trigger channels), so a task's kept writes find it, and writes kept under an older
  layout's ids find none, as in LangGraph: the task runs again;
- **writes** (`engine_form`): interrupts one per write, routes as the engine's route
  writes, Sends, errors; a join's arrival is left to the engine's barriers.
"""
from __future__ import annotations

import binascii
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..checkpoint.data import DONE, ERROR, INTERRUPT, RESUME, ROUTE, SEND, Checkpoint, PendingWrite, PlannedTask
from ..checkpoint.ids import new_task_id, split_thread_key
from ..checkpoint.lg_form import is_lg_form, lg_parts
from ..constants import END, PULL_PATH, PUSH_PATH, START
from ..types import Interrupt, Send

if TYPE_CHECKING:
    from .protocols import CompiledGraph

__all__ = ["as_planned", "engine_form", "lg_task_id", "migrate_checkpoint", "node_triggers", "plan_lg"]

TASKS = "__pregel_tasks"
BRANCH_TO = "branch:to:"
INTERRUPT_SEEN = "__interrupt__"
NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"
NO_WRITES = "__no_writes__"


# -- LangGraph's task ids -------------------------------------------------------------
def lg_task_id(checkpoint_id: str, format_version: Any, *parts: str) -> str | None:
    """LangGraph's id of a task planned from checkpoint `checkpoint_id`: a 128-bit hash
    (xxh3 for format 2 and later, SHA-1 before) of the id's bytes and `parts`, written as
    a UUID. None for an id that is not a UUID (LangGraph's ids always are)."""
    try:
        seed = binascii.unhexlify(checkpoint_id.replace("-", ""))
    except (binascii.Error, ValueError):
        return None
    data = b"".join(p.encode() for p in parts)
    if type(format_version) is int and format_version <= 1:
        digest = hashlib.sha1(seed + data, usedforsecurity=False).hexdigest()
    else:
        import xxhash  # noqa: PLC0415 - a dependency only LangGraph-form threads need

        digest = xxhash.xxh3_128_hexdigest(seed + data)
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


# -- the graph's trigger channels, in LangGraph's names -------------------------------
def node_triggers(graph: CompiledGraph) -> dict[str, tuple[str, ...]]:
    """Each node's trigger channels as LangGraph names them (sorted, as its task ids take
    them): `__start__` for the input, else `branch:to:NODE` and the joins it waits on;
    in the graph's node order, START first."""
    joins: dict[str, list[str]] = {}
    for join, (_, target) in (graph.joins or {}).items():
        joins.setdefault(target, []).append(join)
    out: dict[str, tuple[str, ...]] = {START: (START,)}
    for name in graph.node_names:
        out[name] = tuple(sorted([BRANCH_TO + name, *joins.get(name, ())]))
    return out


def _successors(graph: CompiledGraph) -> dict[str, list[str]]:
    """Plain edges' targets per source (not from START, not to END)."""
    out: dict[str, list[str]] = {}
    for source, target in graph.builder.edges:
        if source != START and target != END:
            out.setdefault(source, []).append(target)
    return out


# -- migration ------------------------------------------------------------------------
def _newer(a: Any, b: Any) -> Any:
    try:
        return max(a, b)
    except TypeError:  # versions of two kinds: the later one written wins
        return b


def _rename(cp: dict[str, Any], old: str, new: str, nodes: Sequence[str], value: Any, version: Any) -> None:
    """Channel `old` (popped already: `value`, `version`) read as `new`, for `nodes`' seen."""
    versions, values, seen = cp["channel_versions"], cp["channel_values"], cp["versions_seen"]
    versions[new] = _newer(versions[new], version) if new in versions else version
    for node in nodes:
        for entry in (seen.get(node), seen.get(INTERRUPT_SEEN)):
            if isinstance(entry, dict) and old in entry:
                was = entry.pop(old)
                entry[new] = _newer(entry[new], was) if new in entry else was
    if new not in values and value is not _MISSING:
        values[new] = value


_MISSING = object()


def migrate_checkpoint(graph: CompiledGraph, cp: dict[str, Any]) -> None:
    """Rename, in place, an older layout's trigger channels in LangGraph's checkpoint dict
    `cp` to the current ones (see the module docstring); a current one is left as it is."""
    versions = cp.setdefault("channel_versions", {})
    values = cp.setdefault("channel_values", {})
    cp.setdefault("versions_seen", {})
    version = cp.get("v")
    sends = cp.pop("pending_sends", None)
    if (type(version) is not int or version < 4) and sends:
        values[TASKS] = list(sends)
        versions[TASKS] = max(versions.values(), default=1)
    if not versions or (type(version) is int and version >= 3):
        return
    nodes = set(graph.node_names)
    for key in list(versions):
        parts = key.split(":")
        picked = key.startswith("start:") or (key.startswith("branch:") and len(parts) == 4)
        if picked and parts[-1] in nodes and key != BRANCH_TO + parts[-1]:
            node = parts[-1]
            _rename(cp, key, BRANCH_TO + node, [node], values.pop(key, _MISSING), versions.pop(key))
    if nodes.isdisjoint(versions):
        return
    successors = _successors(graph)
    for key in [k for k in versions if k in nodes]:
        version_of, value = versions.pop(key), values.pop(key, _MISSING)
        for target in successors.get(key, ()):
            _rename(cp, key, BRANCH_TO + target, [target], value, version_of)
        seen_at_interrupt = cp["versions_seen"].get(INTERRUPT_SEEN)
        if isinstance(seen_at_interrupt, dict):
            seen_at_interrupt.pop(key, None)


# -- planning -------------------------------------------------------------------------
def _is_newer(version: Any, seen: Any) -> bool:
    try:
        return bool(version > seen)
    except TypeError:
        return str(version) > str(seen)


def _available(channel: str, values: Mapping[str, Any], joins: Mapping[str, Any]) -> bool:
    if channel not in values:
        return False
    if channel in joins:  # a join is ready once every source arrived
        arrived = values[channel]
        return isinstance(arrived, (set, frozenset, list, tuple)) and set(joins[channel][0]) <= set(arrived)
    return True


def plan_lg(graph: CompiledGraph, cp: Mapping[str, Any], step: int, ns: str = "") -> tuple[PlannedTask, ...]:
    """The next superstep of LangGraph's (migrated) checkpoint dict `cp`, planned at `step`
    in namespace `ns` as LangGraph plans it (see the module docstring)."""
    cid = str(cp.get("id", ""))
    version = cp.get("v")
    values = cp.get("channel_values") or {}
    versions = cp.get("channel_versions") or {}
    seen_all = cp.get("versions_seen") or {}
    tasks: list[PlannedTask] = []

    def task_id(name: str, *parts: str) -> str:
        task_ns = f"{ns}|{name}" if ns else name
        return lg_task_id(cid, version, task_ns, str(step), name, *parts) or new_task_id(cid, len(tasks))

    sends = values.get(TASKS)
    for i, send in enumerate(sends if isinstance(sends, list) else ()):
        if isinstance(send, Send) and send.node in graph.node_set:
            tasks.append(PlannedTask(id=task_id(send.node, PUSH_PATH, str(i)), name=send.node, trigger="send",
                                     is_send=True, arg=send.arg))
    if not versions:
        return tuple(tasks)
    null = type(next(iter(versions.values())))()
    joins = graph.joins or {}
    for name, triggers in node_triggers(graph).items():
        seen = seen_all.get(name)
        fired = [ch for ch in triggers if _available(ch, values, joins)
                 and (seen is None or _is_newer(versions.get(ch, null), seen.get(ch, null)))]
        if not fired:
            continue
        tid = task_id(name, PULL_PATH, *triggers)
        if name == START:  # the engine's input task carries the input as its argument
            tasks.append(PlannedTask(id=tid, name=START, trigger="input", is_send=True, arg=values.get(START)))
        else:
            tasks.append(PlannedTask(id=tid, name=name, trigger=",".join(fired)))
    return tuple(tasks)


def _barriers(graph: CompiledGraph, values: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    """The joins' arrived sources, as the engine keeps them."""
    out: dict[str, tuple[str, ...]] = {}
    for join, (sources, _) in (graph.joins or {}).items():
        arrived = values.get(join)
        if isinstance(arrived, (set, frozenset, list, tuple)) and arrived:
            out[join] = tuple(s for s in sources if s in arrived)
    return out


# -- writes ---------------------------------------------------------------------------
def _route_target(graph: CompiledGraph, channel: str) -> list[str] | None:
    """The nodes a trigger write wakes up (any layout), or None for a state write."""
    if channel.startswith(BRANCH_TO):
        return [channel[len(BRANCH_TO):]]
    parts = channel.split(":")
    if (channel.startswith("start:") or (channel.startswith("branch:") and len(parts) == 4)) \
            and parts[-1] in graph.node_set:
        return [parts[-1]]
    if channel in graph.node_set and channel not in graph.schema.channels:
        return _successors(graph).get(channel, [])
    return None


def _error_record(value: Any) -> Any:
    if isinstance(value, Mapping):
        return value
    if isinstance(value, BaseException):
        return {"type": type(value).__name__, "message": str(value), "traceback": ""}
    return {"type": "Exception", "message": str(value), "traceback": ""}


def engine_form(graph: CompiledGraph, writes: Sequence[PendingWrite],
                tasks: Sequence[PlannedTask] = ()) -> list[PendingWrite]:
    """Writes kept in LangGraph's form (`put_writes`) as the engine keeps them: an
    interrupt list as one write per interrupt, `branch:to:X` (or an older layout's
    trigger) as a route, `__pregel_tasks` as a Send, a join's arrival dropped (the
    engine's barriers follow the task that ran). Each names its planned task's node."""
    names = {t.id: t.name for t in tasks}
    out: list[PendingWrite] = []
    for w in writes:
        ch, tid = w.channel, w.task_id
        name = w.task_name if w.task_name and not w.task_name.startswith("~") else names.get(tid, w.task_name)
        if ch == INTERRUPT:
            for item in w.value if isinstance(w.value, (list, tuple)) else [w.value]:
                out.append(PendingWrite(task_id=tid, task_name=name, channel=INTERRUPT,
                                        value=item if isinstance(item, Interrupt) else Interrupt(value=item)))
            continue
        if ch == RESUME:
            if tid == NULL_TASK_ID:  # the run-wide answer: a resumed run is handed its own
                continue
            value: Any = list(w.value) if isinstance(w.value, (list, tuple)) else [w.value]
        elif ch == ERROR:
            value = _error_record(w.value)
        elif ch == TASKS:
            ch, value = SEND, w.value
        elif ch == NO_WRITES:
            ch, value = DONE, None
        elif ch.startswith("join:"):
            continue
        else:
            targets = _route_target(graph, ch)
            if targets is not None:
                out += [PendingWrite(task_id=tid, task_name=name, channel=ROUTE, value=[t, f"edge:{name}"])
                        for t in targets]
                continue
            value = w.value
        out.append(PendingWrite(task_id=tid, task_name=name, channel=ch, value=value))
    return out


# -- a record, as a graph plans it ----------------------------------------------------
def as_planned(graph: CompiledGraph, ckpt: Checkpoint,
               writes: Sequence[PendingWrite] | None = None) -> tuple[Checkpoint, list[PendingWrite]]:
    """`ckpt` with its next superstep planned and `writes` (kept beside it) in the engine's
    form when it was put in LangGraph's form; anything else as it is."""
    if not is_lg_form(ckpt):
        return ckpt, list(writes or ())
    cp, meta = lg_parts(ckpt)
    cp = {**cp, "channel_values": dict(cp.get("channel_values") or {}),
          "channel_versions": dict(cp.get("channel_versions") or {}),
          "versions_seen": {k: dict(v) for k, v in (cp.get("versions_seen") or {}).items() if isinstance(v, Mapping)}}
    migrate_checkpoint(graph, cp)
    step = meta.get("step")
    _, ns = split_thread_key(ckpt.thread_id)
    tasks = plan_lg(graph, cp, (step if type(step) is int else -1) + 1, ns)
    channels = graph.schema.channels
    values = {k: v for k, v in graph.schema.initial_values().items() if k not in ckpt.values}
    values.update((k, v) for k, v in ckpt.values.items()
                  if k in channels or not (k in graph.node_set or k.startswith(("start:", "branch:"))))
    versions = {**{k: ckpt.id for k in values if k not in ckpt.versions}, **ckpt.versions}
    planned = replace(ckpt, values=values, versions=versions, tasks=tasks,
                      barriers=_barriers(graph, cp["channel_values"]))
    return planned, engine_form(graph, writes or (), tasks)
