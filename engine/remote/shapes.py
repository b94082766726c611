"""The LangGraph API server's shapes and the engine's, both ways: a thread state as a
`StateSnapshot`, a config as the `checkpoint` dict the server names a checkpoint with,
a config cleaned of what cannot (or must not) go over the wire, a graph drawing.

Pure functions over dicts: no client, no I/O (engine/remote/graph.py does the calls)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from ..types import Command, Interrupt, PregelTask, Send, StateSnapshot

__all__ = ["sanitize_config", "checkpoint_of", "config_of", "snapshot_of", "command_payload", "drawable_graph",
           "interrupts_of"]

_NOT_SENT = frozenset({"checkpoint_map", "checkpoint_id", "checkpoint_ns", "__pregel_task_id",
                       "__pregel_strict_resume"})
"""configurable keys that name the caller's own checkpoint or task: never sent (the server
keeps its own), as LangGraph's RemoteGraph drops them."""

_CHECKPOINT_KEYS = ("thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint_map")


def _primitive(value: Any) -> Any:
    """`value` with only what JSON carries (str, numbers, bools, UUIDs, and lists and dicts
    of them with string keys); anything else (a function, an object) is None, so dropped."""
    if isinstance(value, (str, int, float, bool, UUID)):
        return value
    if isinstance(value, Mapping):
        out = {k: _primitive(v) for k, v in value.items() if isinstance(k, str)}
        return {k: v for k, v in out.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [v for v in map(_primitive, value) if v is not None]
    return None


def _primitive_items(items: Mapping[Any, Any], skip: frozenset[str] = frozenset()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in items.items():
        if isinstance(key, str) and key not in skip and (clean := _primitive(value)) is not None:
            out[key] = clean
    return out


def sanitize_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a run's config a server is sent: recursion_limit, the string tags, and
    metadata and configurable values made of primitives (the caller's checkpoint keys left out)."""
    out: dict[str, Any] = {}
    if "recursion_limit" in config:
        out["recursion_limit"] = config["recursion_limit"]
    if "tags" in config:
        out["tags"] = [tag for tag in config["tags"] if isinstance(tag, str)]
    if "metadata" in config:
        out["metadata"] = _primitive_items(config["metadata"] or {})
    if "configurable" in config:
        out["configurable"] = _primitive_items(config["configurable"] or {}, _NOT_SENT)
    return out


def checkpoint_of(config: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The server's `checkpoint` dict for a config (thread, namespace, id, map: those given),
    or None when the config names none."""
    if config is None:
        return None
    conf = config.get("configurable") or {}
    found = {key: conf[key] for key in _CHECKPOINT_KEYS if key in conf}
    return found or None


def config_of(checkpoint: Mapping[str, Any]) -> dict[str, Any]:
    """The config that names a checkpoint the server returned."""
    return {"configurable": {"thread_id": checkpoint["thread_id"], "checkpoint_ns": checkpoint["checkpoint_ns"],
                             "checkpoint_id": checkpoint["checkpoint_id"],
                             "checkpoint_map": checkpoint.get("checkpoint_map", {})}}


def interrupts_of(items: Any) -> tuple[Interrupt, ...]:
    """The server's interrupts (dicts of Interrupt's fields) as Interrupts."""
    return tuple(Interrupt(**i) if isinstance(i, Mapping) else i for i in items or ())


def _task_of(task: Mapping[str, Any]) -> PregelTask:
    state: Any = None
    if task.get("state"):
        state = snapshot_of(task["state"])
    elif task.get("checkpoint"):
        state = {"configurable": task["checkpoint"]}
    error = task.get("error")
    return PregelTask(id=task["id"], name=task["name"], path=(), error=Exception(error) if error else None,  # type: ignore[arg-type]
                      interrupts=interrupts_of(task.get("interrupts")), state=state, result=task.get("result"))


def snapshot_of(state: Mapping[str, Any]) -> StateSnapshot:
    """A thread state of the server as the StateSnapshot get_state() returns."""
    tasks = tuple(_task_of(task) for task in state.get("tasks") or ())
    parent = state.get("parent_checkpoint")
    return StateSnapshot(values=state["values"], next=tuple(state.get("next") or ()),
                         config=config_of(state["checkpoint"]),
                         metadata=dict(state.get("metadata") or {}), created_at=state.get("created_at"),
                         parent_config=config_of(parent) if parent else None,
                         tasks=tasks, interrupts=tuple(i for task in tasks for i in task.interrupts))


def _wire(value: Any) -> Any:
    if isinstance(value, Send):
        return {"node": value.node, "input": value.arg}
    if isinstance(value, (list, tuple)):
        return [_wire(v) for v in value]
    return value


def command_payload(command: Command[Any]) -> dict[str, Any]:
    """A Command as the server's `command` field (its Sends as {"node", "input"})."""
    return {"update": _wire(command.update), "goto": _wire(command.goto), "resume": command.resume,
            "graph": command.graph}


def drawable_graph(graph: Mapping[str, Any]) -> Any:
    """The server's graph JSON (`nodes`, `edges`) as LangChain's drawable Graph."""
    from langchain_core.runnables.graph import Edge, Graph, Node

    nodes = {}
    for node in graph["nodes"]:
        node_id = str(node["id"])
        data = node.get("data", {})
        name = node.get("name")
        if name is None:
            name = data.get("name", node_id) if isinstance(data, Mapping) else node_id
        nodes[node_id] = Node(id=node_id, name=name, data=data, metadata=node.get("metadata"))
    return Graph(nodes=nodes, edges=[Edge(**edge) for edge in graph["edges"]])
