"""What a RemoteGraph does with each part of a server's run stream: the modes it asks the
server for, the parts it hands on to the graph it runs in (a RemoteGraph used as a node of
a graph streamed with `subgraphs=True`), the interrupts and errors it raises, and the
chunks it yields, in the stream's format (v1 bare, with mode and namespace, or v2 dicts).

One `RemoteStream` per call, shared by the sync and the async paths (engine/remote/graph.py
only iterates the client's stream)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..constants import INTERRUPT_KEY
from ..errors import GraphInterrupt, ParentCommand
from ..runtime.context import current_task
from ..runtime.nested import task_namespace
from ..runtime.run import Run
from ..runtime.stream import StreamCollector
from ..types import Command
from .shapes import interrupts_of

__all__ = ["RemoteException", "RemoteStream", "caller_namespace"]

SERVER_MODES = frozenset({"values", "updates", "messages", "messages-tuple", "custom", "debug", "tasks",
                          "checkpoints", "events"})
"""The stream modes a LangGraph server knows."""

_SEP = "|"


class RemoteException(Exception):
    """The remote graph's run failed on the server (an `error` part of its stream)."""


def _parent_streams(run: Any) -> list[StreamCollector]:
    """The streams of the graph(s) running the calling task that show subgraphs, found
    through the listeners: a stream's collector, or a parent run's `forward`."""
    found: list[StreamCollector] = []
    todo, seen = [run], set()
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        for listener in current.listeners:
            if isinstance(listener, StreamCollector):
                if listener.subgraphs:
                    found.append(listener)
            elif isinstance(getattr(listener, "__self__", None), Run):
                todo.append(listener.__self__)
    return found


def caller_namespace(config: Mapping[str, Any] | None) -> tuple[tuple[str, ...], list[StreamCollector]]:
    """(the namespace of the task this call runs in, the subgraph streams of its graph):
    inside a running node, that task's; else the config's `checkpoint_ns`, no stream."""
    ctx = current_task.get()
    run = ctx.run if ctx is not None else None
    if ctx is not None and run is not None and run.status == "ready":
        ns = task_namespace(run.checkpoint_ns, ctx.name, ctx.task_id)
        return tuple(ns.split(_SEP)), _parent_streams(run)
    own = ((config or {}).get("configurable") or {}).get("checkpoint_ns")
    return (tuple(own.split(_SEP)) if own else ()), []


class RemoteStream:
    """The modes of one call and how each part of the server's stream is handled."""

    def __init__(self, stream_mode: str | Sequence[str] | None, config: Mapping[str, Any] | None, *,
                 subgraphs: bool, version: str) -> None:
        if version not in ("v1", "v2"):
            raise ValueError(f"unknown version {version!r}: use 'v1' or 'v2'")
        self.caller_ns, self.parents = caller_namespace(config)
        self.subgraphs = subgraphs
        self.v2 = version == "v2"
        self.single = stream_mode is None or isinstance(stream_mode, str)
        requested = ["updates"] if not stream_mode else [stream_mode] if isinstance(stream_mode, str) \
            else list(stream_mode)
        sent = list(requested)
        for parent in self.parents:  # the modes the streams above show come back for them
            sent.extend(m for m in sorted(parent.modes) if m in SERVER_MODES and m not in sent)
        self.parent_modes = frozenset(m for p in self.parents for m in p.modes)
        # as LangGraph: "messages" is asked as "messages-tuple"; "updates" always (it
        # carries the interrupts); "events" is not a graph stream mode
        sent = ["messages-tuple" if m == "messages" else m for m in sent if m != "events"]
        if "updates" not in sent:
            sent.append("updates")
        self.sent = list(dict.fromkeys(sent))
        self.requested = frozenset("messages" if m == "messages-tuple" else m for m in requested)

    @property
    def stream_subgraphs(self) -> bool:
        return self.subgraphs or bool(self.parents)

    def handle(self, part: Any) -> tuple[bool, Any]:
        """(whether to yield, what) for one part of the server's stream; raises the remote
        graph's interrupt (when it runs as a node), its error, or its Command for the parent."""
        event: str = part.event
        data = part.data
        mode, _, rest = event.partition(_SEP)
        ns = self.caller_ns + (tuple(rest.split(_SEP)) if rest else ())
        if mode == "command" and isinstance(data, Mapping) and data.get("graph") == Command.PARENT:
            raise ParentCommand(Command(**data))
        if self.parents and mode in self.parent_modes:
            for parent in self.parents:
                parent.put_remote(mode, data, ns)
        if mode == "updates":
            if isinstance(data, Mapping) and INTERRUPT_KEY in data and self.caller_ns:
                raised = list(interrupts_of(data[INTERRUPT_KEY]))
                error = GraphInterrupt(raised)
                error.args = (raised,)  # as LangGraph's: the list the server sent
                raise error
        elif mode == "error":
            raise RemoteException(data)
        if mode not in self.requested:
            return False, None
        if rest and not self.subgraphs and mode != "messages":  # asked only for the streams above
            return False, None
        if mode == "messages":
            data = tuple(data)
            part = part._replace(data=data)
        return True, self._chunk(part, mode, ns, data)

    def _chunk(self, part: Any, mode: str, ns: tuple[str, ...], data: Any) -> Any:
        if self.v2:
            interrupts: tuple[Any, ...] = ()
            if mode == "values" and isinstance(data, dict):
                interrupts = interrupts_of(data.pop(INTERRUPT_KEY, ()))
            return {"type": mode, "ns": ns, "data": data, "interrupts": interrupts}
        if self.subgraphs:
            return (ns, data) if self.single else (ns, mode, data)
        return data if self.single else part
