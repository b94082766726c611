"""A projection of a v3 event stream: one consumer, drained as it is read, pulled on demand.

A channel holds what a transformer pushed for its one subscriber; nothing is kept
before someone subscribes (iterating is subscribing) and each item is dropped once
read, so an unread projection costs no memory. When the subscriber has read
everything, the channel asks its pump for more: the run stream advances the graph
by one part. Each item carries a stamp from the mux's counter, so `interleave` can
merge channels in arrival order.
"""
from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Generic, TypeVar

__all__ = ["StreamChannel"]

T = TypeVar("T")

Pump = Callable[[], bool]
"""Advance the run by one part; False once it has nothing more to give."""
APump = Callable[[], Awaitable[bool]]


def _zero() -> int:
    return 0


class StreamChannel(Generic[T]):
    """One projection: `push` from a transformer, iterate (sync or async, as bound) once.

    `name`: a named channel's pushes also go to the run's main event log (as
    `custom:<name>`, or `<name>` for the built-in projections)."""

    def __init__(self, name: str | None = None, *, maxlen: int | None = None) -> None:
        if maxlen is not None and (not isinstance(maxlen, int) or isinstance(maxlen, bool) or maxlen <= 0):
            raise ValueError(f"StreamChannel maxlen must be a positive int or None, got {maxlen!r}")
        self.name = name
        self.maxlen = maxlen
        self._items: deque[tuple[int, T]] = deque()
        self._subscribed = False
        self._closed = False
        self._error: BaseException | None = None
        self._is_async: bool | None = None
        self._wire_fn: Callable[[T], None] | None = None
        self._stamp: Callable[[], int] = _zero
        self._pump: Pump | None = None
        self._apump: APump | None = None
        self._event: asyncio.Event | None = None

    # -- set-up by the mux ------------------------------------------------
    def _bind(self, *, is_async: bool) -> None:
        if self._is_async is not None:
            raise RuntimeError("StreamChannel is already bound: a channel belongs to one run")
        self._is_async = is_async

    def _wire(self, fn: Callable[[T], None] | None) -> None:
        self._wire_fn = fn

    @property
    def is_async(self) -> bool | None:
        """The mode the channel is bound to (None: not bound to a run yet)."""
        return self._is_async

    @property
    def stamps(self) -> Callable[[], int]:
        """The counter that stamps each push (the mux's, shared by all its channels)."""
        return self._stamp

    def set_stamps(self, stamps: Callable[[], int]) -> None:
        self._stamp = stamps

    def set_pump(self, pump: Pump | None) -> None:
        """What a sync reader calls when it has read everything (the run stream's pump)."""
        self._pump = pump

    def set_apump(self, apump: APump | None) -> None:
        """What an async reader awaits when it has read everything."""
        self._apump = apump

    def follow(self, other: StreamChannel[Any]) -> None:
        """Bind this channel as `other` is bound: same mode, pumps and stamps (a projection
        made while the run goes, such as a tool call's output deltas)."""
        self._bind(is_async=bool(other._is_async))
        self._pump, self._apump, self._stamp = other._pump, other._apump, other._stamp

    # -- producing ----------------------------------------------------------
    def push(self, item: T) -> None:
        if self._closed:
            raise RuntimeError("Cannot push to a closed StreamChannel"
                               + (f" ({self.name!r})" if self.name else ""))
        stamp = self._stamp()
        if self._wire_fn is not None:
            self._wire_fn(item)
        if self._subscribed:
            self._items.append((stamp, item))
            self._wake()

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._wake()

    def fail(self, error: BaseException) -> None:
        if not self._closed:
            self._error = error
            self._closed = True
            self._wake()

    @property
    def closed(self) -> bool:
        return self._closed

    def _wake(self) -> None:
        if self._event is not None:
            self._event.set()

    # -- consuming ----------------------------------------------------------
    @property
    def subscribed(self) -> bool:
        return self._subscribed

    @property
    def error(self) -> BaseException | None:
        """What the channel failed with (None: open, or closed without error)."""
        return self._error

    @property
    def buffered(self) -> int:
        """Items pushed and not read yet."""
        return len(self._items)

    def subscribe(self, is_async: bool) -> None:
        """Become this channel's one reader (iterating does it; interleave does it for
        several channels at once, then reads them with `next_stamped`/`take`)."""
        if self._is_async is None:
            raise TypeError("StreamChannel has not been bound to a run: iterate a projection of "
                            "stream_events(version='v3'), or call _bind(is_async=...) first")
        if self._is_async != is_async:
            mode = "async" if self._is_async else "sync"
            use = "`async for`" if self._is_async else "`for`"
            raise TypeError(f"StreamChannel is bound to {mode} mode: iterate it with {use}")
        if self._subscribed:
            raise RuntimeError("StreamChannel already has a subscriber: a projection is read once "
                               "(use tee(n) for several readers)")
        self._subscribed = True

    def __iter__(self) -> Iterator[T]:
        self.subscribe(False)
        return self._cursor()

    def _cursor(self) -> Iterator[T]:
        try:
            while True:
                if self._items:
                    yield self._items.popleft()[1]
                    continue
                if self._closed:
                    if self._error is not None:
                        raise self._error
                    return
                if self._pump is None or not self._pump():
                    if not self._items and not self._closed:
                        return
        finally:
            self._subscribed = False
            self._items.clear()

    def __aiter__(self) -> AsyncIterator[T]:
        self.subscribe(True)
        return self._acursor()

    async def _acursor(self) -> AsyncIterator[T]:
        try:
            while True:
                if self._items:
                    yield self._items.popleft()[1]
                    continue
                if self._closed:
                    if self._error is not None:
                        raise self._error
                    return
                if self._apump is not None:
                    if not await self._apump() and not self._items and not self._closed:
                        return
                    continue
                if self._event is None:
                    self._event = asyncio.Event()
                self._event.clear()
                await self._event.wait()
        finally:
            self._subscribed = False
            self._items.clear()

    def next_stamped(self) -> tuple[int, T] | None:
        """For interleave: the oldest unread item with its stamp (None: none buffered)."""
        return self._items[0] if self._items else None

    def take(self) -> T:
        """For interleave: remove and give the oldest unread item (IndexError: none)."""
        return self._items.popleft()[1]

    def release(self) -> None:
        """For interleave: stop reading (unread items are dropped; another reader may come)."""
        self._subscribed = False
        self._items.clear()

    def tee(self, n: int = 2) -> tuple[Iterator[T], ...]:
        """`n` independent readers of this channel (it is subscribed once, for all)."""
        source = iter(self)
        queues: list[deque[T]] = [deque() for _ in range(n)]
        done = [False]

        def reader(q: deque[T]) -> Iterator[T]:
            while True:
                if q:
                    yield q.popleft()
                    continue
                if done[0]:
                    return
                try:
                    item = next(source)
                except StopIteration:
                    done[0] = True
                    continue
                for other in queues:
                    other.append(item)

        return tuple(reader(q) for q in queues)

    def atee(self, n: int = 2) -> tuple[AsyncIterator[T], ...]:
        """`tee` for a channel bound to async mode."""
        source = self.__aiter__()
        queues: list[deque[T]] = [deque() for _ in range(n)]
        done = [False]
        lock = asyncio.Lock()

        async def reader(q: deque[T]) -> AsyncIterator[T]:
            while True:
                if q:
                    yield q.popleft()
                    continue
                if done[0]:
                    return
                async with lock:
                    if q or done[0]:
                        continue
                    try:
                        item = await source.__anext__()
                    except StopAsyncIteration:
                        done[0] = True
                        continue
                    for other in queues:
                        other.append(item)

        return tuple(reader(q) for q in queues)

    def __repr__(self) -> str:
        state = "failed" if self._error else "closed" if self._closed else "open"
        return f"StreamChannel({self.name!r}, {state}, {len(self._items)} buffered)"
