"""Subgraphs in a v3 event stream, read from the `tasks` mode.

A subgraph is known by its namespace (`node:task_id` segments): it starts with the first
task event seen in that namespace, and ends with the result of the task that ran it (the
last segment's id) in the namespace above: completed, failed (with the error) or
interrupted. `LifecycleTransformer` turns that into lifecycle payloads for every depth
below its scope; `SubgraphTransformer` gives each direct child a handle with a mux of its
own (the same transformers, scoped to the child), fed every event under the child.
Both keep `tasks` events out of the main log (a `TasksTransformer` still sees them).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypedDict

from ..errors import GraphInterrupt
from .channel import StreamChannel
from .transformer import ProtocolEvent, StreamTransformer

__all__ = ["LifecyclePayload", "LifecycleTransformer", "SubgraphStatus", "SubgraphTransformer", "parse_segment",
           "task_outcome", "is_task_start", "failure_status"]

SubgraphStatus = Literal["started", "completed", "failed", "interrupted", "drained"]


class LifecyclePayload(TypedDict, total=False):
    """One lifecycle change of a subgraph (the `lifecycle` projection and event method)."""

    event: SubgraphStatus
    namespace: list[str]
    graph_name: str
    trigger_call_id: str | None
    error: str


def parse_segment(segment: str) -> tuple[str, str | None]:
    """`"node:task_id"` -> ("node", "task_id"); a segment without ":" has no id."""
    name, sep, call_id = segment.partition(":")
    return (name, call_id) if sep else (segment, None)


def is_task_start(data: Any) -> bool:
    """A `tasks` event's payload that starts a task (its triggers, no result yet)."""
    return isinstance(data, dict) and "triggers" in data and "result" not in data


def task_outcome(data: dict[str, Any]) -> tuple[SubgraphStatus, str | None]:
    """A task result's outcome for the subgraph it ran: interrupts win over an error."""
    if data.get("interrupts"):
        return "interrupted", None
    error = data.get("error")
    if error:
        return "failed", str(error)
    return "completed", None


def failure_status(err: BaseException) -> SubgraphStatus:
    """The status of the subgraphs still open when the run ends with `err`."""
    from ..errors import GraphDrained

    if isinstance(err, GraphDrained):
        return "drained"
    return "interrupted" if isinstance(err, GraphInterrupt) else "failed"


class _TasksLifecycleBase(StreamTransformer):
    """Finds subgraphs below the scope from `tasks` events (see the module doc)."""

    required_stream_modes = ("tasks",)
    _native = True

    def _below(self, ns: tuple[str, ...]) -> bool:
        depth = len(self.scope)
        return len(ns) > depth and ns[:depth] == tuple(self.scope)

    def _tracks(self, ns: tuple[str, ...]) -> bool:
        return self._below(ns)

    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] != "tasks":
            self.observe(event)
            return True
        ns = tuple(event["params"]["namespace"])
        data = event["params"]["data"]
        start = is_task_start(data)
        if start and self._tracks(ns) and not self.is_open(ns):
            self.on_start(ns)
        self.observe(event)
        if not start and isinstance(data, dict):
            call_id = data.get("id")
            for child in self.open_children(ns, call_id):
                status, error = task_outcome(data)
                self.on_end(child, status, error)
        return False

    # what a subclass decides
    def observe(self, event: ProtocolEvent) -> None:
        return None

    def is_open(self, ns: tuple[str, ...]) -> bool:
        raise NotImplementedError

    def open_children(self, parent: tuple[str, ...], call_id: Any) -> list[tuple[str, ...]]:
        raise NotImplementedError

    def on_start(self, ns: tuple[str, ...]) -> None:
        raise NotImplementedError

    def on_end(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        raise NotImplementedError


class LifecycleTransformer(_TasksLifecycleBase):
    """`lifecycle`: started / completed / failed / interrupted for every subgraph below."""

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._channel: StreamChannel[LifecyclePayload] = StreamChannel("lifecycle")
        self._seen: set[tuple[str, ...]] = set()
        self._open: dict[tuple[str, ...], None] = {}

    def init(self) -> dict[str, Any]:
        return {"lifecycle": self._channel}

    def is_open(self, ns: tuple[str, ...]) -> bool:
        return ns in self._seen

    def open_children(self, parent: tuple[str, ...], call_id: Any) -> list[tuple[str, ...]]:
        return [ns for ns in self._open
                if ns[:-1] == parent and parse_segment(ns[-1])[1] == call_id]

    def on_start(self, ns: tuple[str, ...]) -> None:
        self._seen.add(ns)
        self._open[ns] = None
        name, call_id = parse_segment(ns[-1])
        self._channel.push({"event": "started", "namespace": list(ns), "graph_name": name,
                            "trigger_call_id": call_id})

    def on_end(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        self._open.pop(ns, None)
        payload: LifecyclePayload = {"event": status, "namespace": list(ns)}
        if error is not None:
            payload["error"] = error
        self._channel.push(payload)

    def finalize(self) -> None:
        for ns in reversed(list(self._open)):
            self.on_end(ns, "completed", None)

    def fail(self, err: BaseException) -> None:
        status = failure_status(err)
        for ns in reversed(list(self._open)):
            self._open.pop(ns, None)
            payload: LifecyclePayload = {"event": status, "namespace": list(ns)}
            if status == "failed":
                payload["error"] = str(err)
            if not self._channel.closed:
                self._channel.push(payload)


class SubgraphTransformer(_TasksLifecycleBase):
    """`subgraphs`: a handle per direct child subgraph (see `run_stream.SubgraphRunStream`)."""

    def __init__(self, scope: tuple[str, ...] = (), *, factories: list[Any] | None = None) -> None:
        super().__init__(scope)
        self._log: StreamChannel[Any] = StreamChannel()
        self._handles: dict[tuple[str, ...], Any] = {}
        self._factories = factories
        self._pump_fn: Callable[[], Any] | None = None
        self._is_async: bool | None = None
        self._stamps: Callable[[], int] | None = None

    def init(self) -> dict[str, Any]:
        return {"subgraphs": self._log}

    def _bind_pump(self, pump: Callable[[], Any] | None) -> None:
        self._pump_fn = pump

    def _on_register(self, mux: Any) -> None:
        """LangGraph's hook, called by the mux that holds this transformer: unless given its
        own, a subgraph handle's mux is built from that mux's factories."""
        if self._factories is None:
            self._factories = mux.factories

    def _tracks(self, ns: tuple[str, ...]) -> bool:
        return len(ns) == len(self.scope) + 1 and self._below(ns)

    def is_open(self, ns: tuple[str, ...]) -> bool:
        return ns in self._handles

    def open_children(self, parent: tuple[str, ...], call_id: Any) -> list[tuple[str, ...]]:
        return [ns for ns, h in self._handles.items()
                if h.status == "started" and ns[:-1] == parent and parse_segment(ns[-1])[1] == call_id]

    def observe(self, event: ProtocolEvent) -> None:
        ns = tuple(event["params"]["namespace"])
        if len(ns) <= len(self.scope):
            return
        handle = self._handles.get(ns[: len(self.scope) + 1])
        if handle is not None:
            handle.forward_event(event)

    def on_start(self, ns: tuple[str, ...]) -> None:
        from .mux import EventMux
        from .run_stream import handle_class

        if self._factories is None:
            raise RuntimeError("SubgraphTransformer needs the run's transformer factories to build a "
                               "subgraph's mux: it is made by stream_events(version='v3')")
        is_async = bool(self._log.is_async)
        mux = EventMux(factories=self._factories, scope=ns, is_async=is_async, stamps=self._log.stamps)
        mux.bind_pump(None if is_async else self._pump_fn, self._pump_fn if is_async else None)
        name, call_id = parse_segment(ns[-1])
        handle = handle_class(is_async)(mux, path=ns, graph_name=name, trigger_call_id=call_id,
                                        pump=self._pump_fn)
        self._handles[ns] = handle
        self._log.push(handle)

    def on_end(self, ns: tuple[str, ...], status: SubgraphStatus, error: str | None) -> None:
        handle = self._handles.get(ns)
        if handle is not None:
            handle.terminate(status, error)

    def finalize(self) -> None:
        first: BaseException | None = None
        for handle in self._handles.values():
            if handle.status == "started":
                try:
                    handle.terminate("completed", None)
                except Exception as exc:
                    first = first or exc
        if first is not None:
            raise first

    def fail(self, err: BaseException) -> None:
        status = failure_status(err)
        for handle in self._handles.values():
            if handle.status == "started":
                handle.terminate(status, str(err) if status == "failed" else None, err)
