"""What the studio shows of a LangGraph checkpoint, worked out without the graph's code.

A LangGraph checkpoint stores channel values and versions, and per node the versions it
has seen. The next superstep (what `get_state(...).next` gives) is:
- one PUSH task per pending `Send` (the `__pregel_tasks` channel), in order; then
- one PULL task per node with a trigger channel that holds a value and whose version
  is newer than the node has seen. Trigger channels are named after their node:
  `branch:to:NODE` (edges, routers, Command), `join:A+B:NODE` (a join, ready when every
  source arrived), `__start__` for the input.
A join is listed once its stored barrier holds every source. The order of several
PULL tasks is the graph's node order, which the store does not keep: nodes keep the order
the thread first ran them in (the newest checkpoint's `versions_seen`), new ones follow.

Pending writes name their task by path: `~__pregel_pull, NODE` or `~__pregel_push, I, ...`
(the I-th pending Send); that gives the nodes that ran, and the writes' channels map to
the engine's (interrupts, resumes, errors, sends, routes).
"""
from __future__ import annotations

import functools
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ...constants import START
from ...types import Interrupt, Send
from ..base import ERROR, INTERRUPT, RESUME, ROUTE, SEND, PendingWrite, PlannedTask
from ..registry import UnknownValue

__all__ = [
    "TASKS",
    "is_state_channel",
    "plan",
    "task_name",
    "engine_writes",
    "version_key",
    "uuid6_time",
]

TASKS = "__pregel_tasks"
_NULL_TASK = "00000000-0000-0000-0000-000000000000"


def is_state_channel(name: str) -> bool:
    """A channel of the graph's state (not one of LangGraph's internal channels)."""
    return not (name.startswith(("branch:", "join:", "split:", "start:", "__")) or name == TASKS)


def version_key(v: Any) -> tuple[int, Any]:
    """Versions compare as LangGraph compares them: numbers, or zero-padded strings."""
    if isinstance(v, bool) or v is None:
        return (0, 0)
    if isinstance(v, (int, float)):
        return (1, v)
    return (2, str(v))


def _target(channel: str) -> str | None:
    """The node a trigger channel wakes up."""
    if channel.startswith("branch:to:"):
        return channel[len("branch:to:"):]
    if channel.startswith("join:"):
        head, _, node = channel.rpartition(":")
        return node if head != "join" else None
    if channel == START:
        return START
    return None


def _join_ready(channel: str, value: Any) -> bool:
    """A join runs once every source named in `join:A+B:NODE` has arrived (the stored set)."""
    sources = channel[len("join:"):].rpartition(":")[0]
    if isinstance(value, (set, frozenset, list)):
        return set(sources.split("+")) <= set(value)
    return True


def plan(
    checkpoint_id: str,
    versions: Mapping[str, Any],
    seen: Mapping[str, Any],
    available: Collection[str],
    values: Mapping[str, Any],
    sends: Sequence[Any],
    writes: Sequence[tuple[str, str, str]] = (),
    node_order: Sequence[str] = (),
) -> tuple[PlannedTask, ...]:
    """The next superstep's tasks. `available`: channels that hold a value; `writes`:
    (task id, task path, channel) of the pending writes, which give the tasks' real ids;
    `node_order`: the nodes in the order the thread first ran them (the best guess of the
    graph's node order, which orders PULL tasks)."""
    ids: dict[str, str] = {}
    for task_id, path, _ in writes:
        if path not in ids:
            ids[path] = task_id
    tasks: list[PlannedTask] = []
    for i, send in enumerate(sends):
        node = send.node if isinstance(send, Send) else None
        if node is None:
            continue
        task_id = next((t for p, t in ids.items() if _push_index(p) == i), f"{checkpoint_id}/{len(tasks)}")
        tasks.append(PlannedTask(id=task_id, name=node, trigger="send", is_send=True, arg=send.arg))
    for node, channel in _pulled(versions, seen, available, values, node_order):
        path = f"~__pregel_pull, {node}"
        trigger = "start" if node == START else channel
        tasks.append(PlannedTask(id=ids.get(path, f"{checkpoint_id}/{len(tasks)}"), name=node, trigger=trigger))
    return tuple(tasks)


def _pulled(versions: Mapping[str, Any], seen: Mapping[str, Any], available: Collection[str],
            values: Mapping[str, Any], node_order: Sequence[str]) -> list[tuple[str, str]]:
    """(node, the channel that triggers it) for each node a channel's new version wakes,
    in the graph's node order (best guess), ties in the order channels were first versioned."""
    order = _order(tuple(node_order))
    pulled: list[tuple[int, int, str, str]] = []
    for channel in available:  # few: the channels holding a value
        node = _cached_target(channel)
        if node is None or channel not in versions:
            continue
        version = versions[channel]
        if channel.startswith("join:") and not _join_ready(channel, values.get(channel)):
            continue
        node_seen = seen.get(node)
        last = node_seen.get(channel) if isinstance(node_seen, Mapping) else None
        if last is not None and version_key(version) <= version_key(last):
            continue
        if any(p[2] == node for p in pulled):
            continue
        rank = order.get(node)
        if rank is None:  # a node the thread never ran: after those it did, in the seen order
            rank = len(order) + (list(seen).index(node) if node in seen else len(seen))
        pulled.append((rank, 0, node, channel))
    if len(pulled) > 1:  # ties: the order the channels were first versioned
        position = {ch: i for i, ch in enumerate(versions)}
        pulled = sorted((rank, position.get(ch, 0), node, ch) for rank, _, node, ch in pulled)
    return [(node, channel) for _, _, node, channel in pulled]


def _cached_target(channel: str) -> str | None:
    """The node `channel` triggers (None: not a trigger), remembered in `_TARGETS`."""
    node = _TARGETS.get(channel, "")
    if node == "":
        node = _target(channel)
        if len(_TARGETS) < 100_000:
            _TARGETS[channel] = node
    return node


_TARGETS: dict[str, str | None] = {}
"""channel -> the node it triggers (None: not a trigger), remembered across checkpoints."""


@functools.lru_cache(maxsize=64)
def _order(node_order: tuple[str, ...]) -> dict[str, int]:
    return {name: i for i, name in enumerate(node_order)}


def _push_index(path: str) -> int | None:
    if not path.startswith("~__pregel_push, "):
        return None
    part = path[len("~__pregel_push, "):].split(",", 1)[0].strip()
    return int(part) if part.isdigit() else None


def task_name(path: str, sends: Sequence[Any]) -> str:
    """The node of a task from its path; push tasks via the checkpoint's pending Sends."""
    if path.startswith("~__pregel_pull, "):
        return path[len("~__pregel_pull, "):].split(",", 1)[0]
    i = _push_index(path)
    if i is not None and i < len(sends) and isinstance(sends[i], Send):
        node: str = sends[i].node
        return node
    return ""


def engine_writes(rows: Sequence[tuple[str, str, str, Any]], sends: Sequence[Any]) -> list[PendingWrite]:
    """LangGraph's pending writes `(task id, task path, channel, value)` as the engine's."""
    out: list[PendingWrite] = []
    for task_id, path, channel, value in rows:
        name = task_name(path, sends)
        if task_id == _NULL_TASK and channel == "__resume__":
            continue  # the run-wide resume value; each task also has its own
        if channel == "__interrupt__":
            for item in value if isinstance(value, (list, tuple)) else [value]:
                if not isinstance(item, Interrupt):
                    item = Interrupt(value=item)
                out.append(PendingWrite(task_id=task_id, task_name=name, channel=INTERRUPT, value=item))
            continue
        if channel == "__resume__":
            out.append(PendingWrite(task_id=task_id, task_name=name, channel=RESUME,
                                    value=list(value) if isinstance(value, (list, tuple)) else [value]))
        elif channel == "__error__":
            out.append(PendingWrite(task_id=task_id, task_name=name, channel=ERROR, value=_error(value)))
        elif channel == TASKS:
            out.append(PendingWrite(task_id=task_id, task_name=name, channel=SEND, value=value))
        elif _target(channel) is not None and channel != START:
            out.append(PendingWrite(task_id=task_id, task_name=name, channel=ROUTE, value=_target(channel)))
        else:
            out.append(PendingWrite(task_id=task_id, task_name=name, channel=channel, value=value))
    return out


def _error(value: Any) -> dict[str, Any]:
    if isinstance(value, UnknownValue):
        data = value.data
        message = " ".join(map(str, data)) if isinstance(data, list) else str(data)
        return {"type": value.type_name.rpartition(".")[2], "message": message, "traceback": ""}
    return {"type": "Error", "message": str(value), "traceback": ""}


def uuid6_time(checkpoint_id: str) -> str:
    """The ISO time a LangGraph checkpoint id (a UUID v6) was made, or "" for another id."""
    import datetime as dt

    h = checkpoint_id.replace("-", "")
    if len(h) != 32 or h[12] != "6":
        return ""
    try:
        ticks = int(h[:12] + h[13:16], 16)
    except ValueError:
        return ""
    seconds = (ticks - 0x01B21DD213814000) / 1e7
    try:
        return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat()
    except (OverflowError, OSError, ValueError):
        return ""
