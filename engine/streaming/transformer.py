"""What a v3 event stream is made of: protocol events, and the transformers that read them.

A protocol event is one stream part of the one Run (`{"type": mode, "ns": ..., "data":
...}`) as the wire protocol frames it:

    {"type": "event", "method": mode, "seq": n,
     "params": {"namespace": [...], "timestamp": ms, "data": payload[, "interrupts": (...)]}}

A transformer sees every event of its mux in order (`process`; False keeps the event
out of the main log, every transformer still sees it), and offers projections
(`init() -> {name: StreamChannel | value}`) that the run stream exposes.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine, Mapping
from typing import Any, ClassVar, Literal

__all__ = ["ProtocolEvent", "StreamTransformer", "to_protocol_event", "overrides", "join_scheduled",
           "cancel_scheduled"]

ProtocolEvent = dict[str, Any]
"""`{"type": "event", "method": str, "params": {"namespace", "timestamp", "data", ...}, "seq": int}`."""

log = logging.getLogger(__name__)


def to_protocol_event(part: Mapping[str, Any]) -> ProtocolEvent:
    """A v2 stream part as a protocol event (no seq yet: the mux gives it one)."""
    params: dict[str, Any] = {"namespace": list(part.get("ns") or ()),
                              "timestamp": int(time.time() * 1000), "data": part.get("data")}
    if "interrupts" in part:
        params["interrupts"] = part["interrupts"]
    return {"type": "event", "method": part["type"], "params": params}


def overrides(obj: Any, name: str) -> bool:
    """Whether `obj`'s class defines `name` itself rather than inheriting the base's."""
    return getattr(type(obj), name, None) is not getattr(StreamTransformer, name)


class StreamTransformer:
    """A reader of a run's protocol events that offers projections.

    Subclass it and pass the class (or a factory taking `scope`) as `transformers=`.
    `scope`: the namespace the transformer sees as its root (() for the run's own).
    `required_stream_modes`: the graph stream modes it needs (only those are asked for).
    `requires_async`: it only works under `astream_events` (it has `aprocess` or
    schedules work). `before_builtins`: it runs before the built-in transformers."""

    scope: tuple[str, ...] = ()
    required_stream_modes: ClassVar[tuple[str, ...]] = ()
    requires_async: ClassVar[bool] = False
    before_builtins: ClassVar[bool] = False
    _native: ClassVar[bool] = False
    """Its projections are also attributes of the run stream (`run.values`)."""

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        self.scope = tuple(scope)

    def init(self) -> dict[str, Any]:
        return {}

    def process(self, event: ProtocolEvent) -> bool:
        return True

    async def aprocess(self, event: ProtocolEvent) -> bool:
        return self.process(event)

    def finalize(self) -> None:
        return None

    async def afinalize(self) -> None:
        self.finalize()

    def fail(self, err: BaseException) -> None:
        return None

    async def afail(self, err: BaseException) -> None:
        self.fail(err)

    # -- helpers for subclasses ----------------------------------------------
    def in_scope(self, event: ProtocolEvent) -> bool:
        """The event is of this transformer's own graph (its namespace is the scope)."""
        return tuple(event["params"]["namespace"]) == tuple(self.scope)

    def schedule(self, coro: Coroutine[Any, Any, Any], *, on_error: Literal["log", "raise"] = "log") -> None:
        """Run `coro` beside the stream; the run's close waits for it (`on_error="raise"`:
        its error fails the run; "log": it is logged)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise RuntimeError(f"{type(self).__name__}.schedule() requires a running event loop: "
                               "use astream_events(version='v3')") from None
        if on_error not in ("log", "raise"):
            raise ValueError(f"on_error must be 'log' or 'raise', got {on_error!r}")
        tasks: list[tuple[asyncio.Task[Any], str]] = self.__dict__.setdefault("_scheduled", [])
        tasks.append((loop.create_task(coro), on_error))


async def join_scheduled(transformer: StreamTransformer) -> None:
    """Wait for the work `transformer` scheduled (the mux's close does); the first error of
    an `on_error="raise"` task is raised."""
    first: BaseException | None = None
    for task, on_error in transformer.__dict__.pop("_scheduled", []):
        try:
            await task
        except Exception as exc:
            if on_error == "raise" and first is None:
                first = exc
            elif on_error == "log":
                log.warning("work scheduled by %s failed: %r", type(transformer).__name__, exc)
    if first is not None:
        raise first


def cancel_scheduled(transformer: StreamTransformer) -> list[asyncio.Task[Any]]:
    """Cancel the work `transformer` scheduled (the mux's fail does); the cancelled tasks."""
    tasks = [task for task, _ in transformer.__dict__.pop("_scheduled", [])]
    for task in tasks:
        task.cancel()
    return tasks
