"""The mux: hands each protocol event to every transformer in order, then to the main log.

It owns the main event log (a `StreamChannel` of the events no transformer kept out),
numbers those events (`seq`), stamps every push of every channel from one counter (so
`interleave` merges in arrival order), binds the transformers' channels to the run
(sync or async, the pump that advances it, named channels wired into the main log),
and closes or fails them all when the run ends. A subgraph handle gets a mux of its
own over the same factories, scoped to its namespace, sharing the root's counter.
"""
from __future__ import annotations

import asyncio
import functools
import itertools
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from .channel import APump, Pump, StreamChannel
from .transformer import ProtocolEvent, StreamTransformer, cancel_scheduled, join_scheduled, overrides

__all__ = ["EventMux", "Factory", "normalize_factories"]

log = logging.getLogger(__name__)

Factory = Callable[[tuple[str, ...]], StreamTransformer]
"""A transformer class, or a callable taking the scope, that makes one transformer."""


def normalize_factories(factories: Iterable[Any] | None) -> list[Factory]:
    """The `transformers=` of compile() or stream_events(): classes or factories, never
    ready-made instances (each run, and each subgraph handle, needs transformers of its own)."""
    out: list[Factory] = []
    for factory in factories or ():
        if isinstance(factory, StreamTransformer):
            raise TypeError(
                f"transformers= got a pre-built instance of {type(factory).__name__}: pass the class "
                "(or a factory taking the scope, e.g. functools.partial(Cls, option=...)); each run "
                "builds its own transformers")
        if not callable(factory):
            raise TypeError(f"transformers= entries must be StreamTransformer classes or factories, got {factory!r}")
        out.append(factory)
    return out


def _make(factory: Factory, scope: tuple[str, ...]) -> StreamTransformer:
    try:
        made = factory(scope)
    except TypeError:
        if scope:
            raise
        made = factory()  # type: ignore[call-arg]  # a class whose __init__ takes no scope
    if scope and tuple(getattr(made, "scope", ())) != scope:
        made.scope = scope
    return made


class EventMux:
    """Dispatches protocol events through transformers; holds the run's projections."""

    def __init__(self, transformers: Sequence[StreamTransformer] | None = None, *,
                 factories: Sequence[Factory] | None = None, scope: tuple[str, ...] = (),
                 is_async: bool = False, stamps: Callable[[], int] | None = None,
                 native_keys: Iterable[str] = ()) -> None:
        self.scope = tuple(scope)
        self.is_async = is_async
        self.factories: list[Factory] = list(factories or ())
        made = list(transformers or ()) + [_make(f, self.scope) for f in self.factories]
        made.sort(key=lambda t: not getattr(t, "before_builtins", False))  # stable: pre-lane first
        if not is_async:
            for t in made:
                # `supports_sync`: its aprocess is an async twin of a process that works alone
                if getattr(t, "requires_async", False) or (overrides(t, "aprocess")
                                                           and not getattr(t, "supports_sync", False)):
                    raise RuntimeError(f"{type(t).__name__} requires an async run: use "
                                       "astream_events(version='v3') instead of stream_events")
        self._transformers = made
        self._stamp = stamps or itertools.count(1).__next__
        self._seq = 0
        self._pump: Pump | None = None
        self._apump: APump | None = None
        self._closed = False
        self._events: StreamChannel[ProtocolEvent] = StreamChannel()
        self._own_channel(self._events)
        self._channels: list[StreamChannel[Any]] = []
        self._by_key: dict[str, StreamTransformer] = {}
        self._native: set[str] = set(native_keys)
        projections: dict[str, Any] = {}
        for t in made:
            offered = t.init()
            if not isinstance(offered, Mapping):
                raise TypeError(f"{type(t).__name__}.init() must return a dict of projections, got {offered!r}")
            for key, value in offered.items():
                if key in projections:
                    raise ValueError(f"projection key conflict: {key!r} of {type(t).__name__} is already "
                                     f"registered by {type(self._by_key[key]).__name__}")
                projections[key] = value
                self._by_key[key] = t
                if getattr(t, "_native", False):
                    self._native.add(key)
                if isinstance(value, StreamChannel):
                    self._own_channel(value, t)
        self.extensions: Mapping[str, Any] = MappingProxyType(projections)
        for t in made:  # a transformer that makes child muxes of its own keeps this one
            register = getattr(t, "_on_register", None)
            if register is not None:
                register(self)

    # -- set-up -------------------------------------------------------------
    def _own_channel(self, channel: StreamChannel[Any], owner: StreamTransformer | None = None) -> None:
        if channel.is_async is None:
            channel._bind(is_async=self.is_async)
        channel.set_stamps(self._stamp)
        if owner is not None:
            self._channels.append(channel)
            if channel.name and channel._wire_fn is None:
                method = channel.name if getattr(owner, "_native", False) else f"custom:{channel.name}"
                scope = list(getattr(owner, "scope", ()) or self.scope)
                channel._wire(functools.partial(self._forward, method, scope))
        if self._pump is not None:
            channel.set_pump(self._pump)
        if self._apump is not None:
            channel.set_apump(self._apump)

    def _forward(self, method: str, namespace: list[str], item: Any) -> None:
        """A named channel's push, as an event of the main log."""
        if self._events.closed:
            return
        from .transformer import to_protocol_event

        event = to_protocol_event({"type": method, "ns": namespace, "data": item})
        self._emit(event)

    def bind_pump(self, pump: Pump | None = None, apump: APump | None = None) -> None:
        """What advances the run when a reader has read everything (set by the run stream)."""
        self._pump, self._apump = pump, apump
        for channel in (self._events, *self._channels):
            channel.set_pump(pump)
            channel.set_apump(apump)
        for t in self._transformers:
            bind = getattr(t, "_bind_pump", None)
            if bind is not None:
                bind(apump if self.is_async else pump)

    @property
    def pump(self) -> Pump | None:
        """What advances the run for a sync reader (None before the run stream binds it)."""
        return self._pump

    @property
    def apump(self) -> APump | None:
        """What advances the run for an async reader."""
        return self._apump

    def _make_child(self, scope: tuple[str, ...]) -> EventMux:
        """A mux for the subgraph at `scope`: the same factories scoped to it, the same stamps
        and lane, advanced by this mux's pump (a transformer's own subgraph handles use it)."""
        if not self.factories:
            raise RuntimeError("this mux has no transformer factories to build a child mux from: "
                               "it is made by stream_events(version='v3')")
        child = EventMux(factories=self.factories, scope=tuple(scope), is_async=self.is_async, stamps=self._stamp)
        child.bind_pump(self._pump, self._apump)
        return child

    def adopt(self, channel: StreamChannel[Any]) -> None:
        """A channel made during the run (a subgraph handle's): bound like the mux's own."""
        self._own_channel(channel)

    def transformer_by_key(self, key: str) -> StreamTransformer:
        return self._by_key[key]

    @property
    def native_keys(self) -> frozenset[str]:
        return frozenset(self._native)

    @property
    def closed(self) -> bool:
        return self._closed

    # -- events ---------------------------------------------------------------
    def _emit(self, event: ProtocolEvent, number: bool = True) -> None:
        if number and "seq" not in event:
            self._seq += 1
            event["seq"] = self._seq
        self._events.push(event)

    def push(self, event: ProtocolEvent, *, forwarded: bool = False) -> None:
        """Every transformer sees the event; it reaches the main log unless one returned False.
        `forwarded`: an event of the parent's mux (it keeps the parent's seq)."""
        if self._closed:
            return
        keep = True
        for t in self._transformers:
            if t.process(event) is False:
                keep = False
        if keep:
            self._emit(event, number=not forwarded)

    async def apush(self, event: ProtocolEvent, *, forwarded: bool = False) -> None:
        if self._closed:
            return
        keep = True
        for t in self._transformers:
            kept = await t.aprocess(event) if overrides(t, "aprocess") else t.process(event)
            if kept is False:
                keep = False
        if keep:
            self._emit(event, number=not forwarded)

    # -- the end ----------------------------------------------------------------
    def _close_channels(self) -> None:
        for channel in self._channels:
            channel.close()
        self._events.close()

    def close(self) -> None:
        """The run ended: each transformer finalizes (all of them, even after one fails),
        then every channel closes; the first finalize error is raised."""
        if self._closed:
            return
        self._closed = True
        first: BaseException | None = None
        for t in self._transformers:
            try:
                t.finalize()
            except Exception as exc:
                first = first or exc
        self._close_channels()
        if first is not None:
            raise first

    def fail(self, err: BaseException) -> None:
        """The run failed: each transformer hears it, then every channel fails with `err`."""
        if self._closed:
            return
        self._closed = True
        for t in self._transformers:
            try:
                t.fail(err)
            except Exception as exc:
                log.warning("%s.fail raised %r while the run failed with %r", type(t).__name__, exc, err)
        for channel in (*self._channels, self._events):
            channel.fail(err)

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        first: BaseException | None = None
        for t in self._transformers:
            try:
                await join_scheduled(t)
                if overrides(t, "afinalize"):
                    await t.afinalize()
                else:
                    t.finalize()
            except Exception as exc:
                first = first or exc
        self._close_channels()
        if first is not None:
            raise first

    async def afail(self, err: BaseException) -> None:
        if self._closed:
            return
        self._closed = True
        for t in self._transformers:
            cancelled = cancel_scheduled(t)
            if cancelled:
                await asyncio.gather(*cancelled, return_exceptions=True)
            try:
                if overrides(t, "afail"):
                    await t.afail(err)
                else:
                    t.fail(err)
            except Exception as exc:
                log.warning("%s.afail raised %r while the run failed with %r", type(t).__name__, exc, err)
        for channel in (*self._channels, self._events):
            channel.fail(err)
