"""The handles that `stream_events(version="v3")` returns: a run's projections, pulled on demand.

Nothing runs until something is read: iterating the run (its main event log), a
projection (`run.values`, `run.messages`, `run.subgraphs`, `run.lifecycle`, a custom
transformer's in `run.extensions`), or asking for `output` advances the one Run by one
stream part at a time (the pump) until the reader has what it wants. A subgraph handle
is the same view of one subgraph, over its own mux, advancing the same run.
"""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any

from .channel import StreamChannel
from .mux import EventMux
from .transformer import ProtocolEvent, to_protocol_event

__all__ = ["GraphRunStream", "AsyncGraphRunStream", "SubgraphRunStream", "AsyncSubgraphRunStream",
           "handle_class"]


class _Projections:
    """What every run handle has: the mux's projections, native ones also as attributes."""

    _mux: EventMux

    def __init__(self, mux: EventMux) -> None:
        self._mux = mux
        self._latest: Any = None
        self._interrupts: tuple[Any, ...] = ()
        self._interrupted = False
        self._exhausted = False
        self._error: BaseException | None = None

    @property
    def extensions(self) -> Mapping[str, Any]:
        """Every projection by name (read-only)."""
        return self._mux.extensions

    def __getattr__(self, name: str) -> Any:
        mux = self.__dict__.get("_mux")
        if mux is not None and not name.startswith("_") and name in mux.native_keys:
            return mux.extensions[name]
        raise AttributeError(f"{type(self).__name__!r} has no attribute {name!r}"
                             + (f": projections are {sorted(mux.extensions)}" if mux is not None else ""))

    def _observe_values(self, data: Any, interrupts: Any) -> None:
        self._latest = data
        if interrupts:
            self._interrupted, self._interrupts = True, tuple(interrupts)

    def _channels(self, names: tuple[str, ...], is_async: bool) -> list[StreamChannel[Any]]:
        """The named projections, subscribed together for interleave (all or none)."""
        channels: list[StreamChannel[Any]] = []
        for name in names:
            channel = self.extensions[name]  # KeyError: no such projection
            if not isinstance(channel, StreamChannel):
                raise TypeError(f"projection {name!r} is not a StreamChannel and cannot be interleaved")
            if channel.subscribed:
                raise RuntimeError(f"projection {name!r} already has a subscriber: interleave reads it itself")
            channels.append(channel)
        for channel in channels:
            channel.subscribe(is_async)
        return channels

    @staticmethod
    def _oldest(names: tuple[str, ...], channels: list[StreamChannel[Any]]) -> tuple[str, Any] | None:
        best: tuple[int, int] | None = None
        for i, channel in enumerate(channels):
            head = channel.next_stamped()
            if head is not None and (best is None or head[0] < best[0]):
                best = (head[0], i)
        if best is None:
            return None
        return names[best[1]], channels[best[1]].take()

    @staticmethod
    def _release(channels: list[StreamChannel[Any]]) -> None:
        for channel in channels:
            channel.release()

    @staticmethod
    def _ended(channels: list[StreamChannel[Any]]) -> bool:
        """All drained channels closed (raises the first failure)."""
        for channel in channels:
            if channel.error is not None:
                raise channel.error
        return all(channel.closed for channel in channels)


class GraphRunStream(_Projections):
    """A sync run: iterate it for protocol events; `output`, `interrupted`, `interrupts`."""

    def __init__(self, graph_iter: Iterator[Mapping[str, Any]], mux: EventMux) -> None:
        super().__init__(mux)
        self._graph_iter = graph_iter
        mux.bind_pump(self._pump_next)

    def _pump_next(self) -> bool:
        """One stream part through the mux; False once the run has ended."""
        if self._exhausted:
            return False
        try:
            part = next(self._graph_iter)
        except StopIteration:
            self._finish(None)
            return False
        except BaseException as exc:
            self._finish(exc)
            return False
        if part.get("type") == "values" and not part.get("ns"):
            self._observe_values(part.get("data"), part.get("interrupts"))
        try:
            self._mux.push(to_protocol_event(part))
        except BaseException as exc:  # a transformer failed: so does the run
            self._close_graph()
            self._finish(exc)
            return False
        return True

    def _finish(self, error: BaseException | None) -> None:
        self._exhausted = True
        if error is not None:
            self._error = error
            self._mux.fail(error)
            return
        try:
            self._mux.close()
        except BaseException as exc:
            self._error = exc

    def _close_graph(self) -> None:
        close = getattr(self._graph_iter, "close", None)
        if close is not None:
            close()

    def _drain(self) -> None:
        while self._pump_next():
            pass
        if self._error is not None:
            raise self._error

    def __iter__(self) -> Iterator[ProtocolEvent]:
        return iter(self._mux._events)

    @property
    def output(self) -> Any:
        """The final state (runs the graph to its end)."""
        self._drain()
        return self._latest

    @property
    def interrupted(self) -> bool:
        self._drain()
        return self._interrupted

    @property
    def interrupts(self) -> list[Any]:
        self._drain()
        return list(self._interrupts)

    def interleave(self, *names: str) -> Iterator[tuple[str, Any]]:
        """(projection name, item) of several projections, in the order the items arrived."""
        channels = self._channels(names, False)
        return self._interleaving(names, channels)

    def _interleaving(self, names: tuple[str, ...], channels: list[StreamChannel[Any]]) -> Iterator[tuple[str, Any]]:
        try:
            while True:
                got = self._oldest(names, channels)
                if got is not None:
                    yield got
                    continue
                if self._ended(channels) or not self._pump_next():
                    if self._oldest_left(channels):
                        continue
                    self._ended(channels)
                    return
        finally:
            self._release(channels)

    @staticmethod
    def _oldest_left(channels: list[StreamChannel[Any]]) -> bool:
        return any(channel.buffered for channel in channels)

    def abort(self) -> None:
        """Stop the run now (its running nodes are cancelled); every projection ends."""
        if self._exhausted and self._mux.closed:
            return
        self._exhausted = True
        self._close_graph()
        if not self._mux.closed:
            try:
                self._mux.close()
            except Exception:  # a transformer's finalize: the run is being given up anyway
                pass

    def __enter__(self) -> GraphRunStream:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.abort()


class _SubgraphMixin:
    """A subgraph handle's own fields (path, name, status, error) and its end."""

    path: tuple[str, ...]
    graph_name: str
    trigger_call_id: str | None
    status: str
    error: str | None
    _mux: EventMux
    _exhausted: bool

    def _set_identity(self, path: tuple[str, ...], graph_name: str, trigger_call_id: str | None) -> None:
        self.path, self.graph_name, self.trigger_call_id = tuple(path), graph_name, trigger_call_id
        self.status, self.error = "started", None
        self._seen_terminal = False  # set by a transformer that ends the handle itself

    def terminate(self, status: str, error: str | None, exc: BaseException | None = None) -> None:
        """End this handle (SubgraphTransformer, when the task that ran the subgraph ends)."""
        self.status, self.error = status, error
        mux = self._mux
        if mux.closed:
            return
        if status == "failed":
            mux.fail(exc if exc is not None else RuntimeError(error or "subgraph failed"))
        elif exc is not None:
            mux.fail(exc)
        else:
            mux.close()

    def forward_event(self, event: ProtocolEvent) -> None:
        """An event under this subgraph, from the parent's mux (SubgraphTransformer)."""
        if self._mux.closed:
            return
        self._observe_event(event)
        self._mux.push(event, forwarded=True)

    def _observe_event(self, event: ProtocolEvent) -> None:
        """Keep this subgraph's own latest values and interrupts (its `output`)."""
        if event["method"] == "values" and tuple(event["params"]["namespace"]) == self.path:
            self._observe_values(event["params"]["data"], event["params"].get("interrupts"))  # type: ignore[attr-defined]

    def _stop_following(self) -> None:
        self._exhausted = True
        if not self._mux.closed:
            try:
                self._mux.close()
            except Exception:  # a transformer's finalize: this view is being given up anyway
                pass

    def _failure(self) -> BaseException | None:
        if self.status == "failed":
            return RuntimeError(self.error or "subgraph failed")
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.graph_name!r} {self.status} at {list(self.path)}>"


class SubgraphRunStream(_SubgraphMixin, GraphRunStream):
    """A subgraph's view (sync): its projections, advancing the root run."""

    def __init__(self, mux: EventMux, *, path: tuple[str, ...], graph_name: str | None = None,
                 trigger_call_id: str | None = None, pump: Callable[[], bool] | None = None) -> None:
        _Projections.__init__(self, mux)
        self._set_identity(path, graph_name or path[-1].partition(":")[0], trigger_call_id)
        self._root_pump = pump if pump is not None else mux.pump  # default: what advances its mux

    def _pump_next(self) -> bool:
        if self.status != "started" or self._exhausted or self._root_pump is None:
            return False
        return bool(self._root_pump())

    def _drain(self) -> None:
        while self._pump_next():
            pass
        failure = self._failure()
        if failure is not None:
            raise failure

    def abort(self) -> None:
        """Stop following this subgraph (the run goes on)."""
        self._stop_following()


class AsyncGraphRunStream(_Projections):
    """An async run: `async for` it; `await run.output()`, `interrupted()`, `interrupts()`."""

    def __init__(self, graph_aiter: AsyncIterator[Mapping[str, Any]], mux: EventMux) -> None:
        super().__init__(mux)
        self._graph_aiter = graph_aiter
        self._lock = asyncio.Lock()
        self._pumps = 0
        self._pump_task: asyncio.Task[Any] | None = None
        self._aborted = False
        mux.bind_pump(None, self._apump_next)

    async def _apump_next(self) -> bool:
        if self._exhausted:
            return False
        seen = self._pumps
        async with self._lock:
            if self._pumps != seen:  # another reader pumped meanwhile: look again first
                return True
            if self._exhausted:
                return False
            self._pump_task = asyncio.current_task()
            try:
                part = await self._graph_aiter.__anext__()
            except StopAsyncIteration:
                await self._afinish(None)
                return False
            except asyncio.CancelledError:
                if self._aborted:
                    await self._afinish(None)
                raise
            except BaseException as exc:
                await self._afinish(exc)
                return False
            finally:
                self._pump_task = None
                self._pumps += 1
            if part.get("type") == "values" and not part.get("ns"):
                self._observe_values(part.get("data"), part.get("interrupts"))
            try:
                await self._mux.apush(to_protocol_event(part))
            except BaseException as exc:
                await self._aclose_graph()
                await self._afinish(exc)
                return False
            return True

    async def _afinish(self, error: BaseException | None) -> None:
        self._exhausted = True
        if error is not None:
            self._error = error
            await self._mux.afail(error)
            return
        try:
            await self._mux.aclose()
        except BaseException as exc:
            self._error = exc

    async def _aclose_graph(self) -> None:
        aclose = getattr(self._graph_aiter, "aclose", None)
        if aclose is not None:
            try:
                await aclose()
            except RuntimeError:  # still running in another reader: it is being cancelled
                pass

    async def _adrain(self) -> None:
        while await self._apump_next():
            pass
        if self._error is not None:
            raise self._error

    def __aiter__(self) -> AsyncIterator[ProtocolEvent]:
        return self._mux._events.__aiter__()

    async def output(self) -> Any:
        await self._adrain()
        return self._latest

    async def interrupted(self) -> bool:
        await self._adrain()
        return self._interrupted

    async def interrupts(self) -> list[Any]:
        await self._adrain()
        return list(self._interrupts)

    async def interleave(self, *names: str) -> AsyncIterator[tuple[str, Any]]:
        channels = self._channels(names, True)
        try:
            while True:
                got = self._oldest(names, channels)
                if got is not None:
                    yield got
                    continue
                if self._ended(channels) or not await self._apump_next():
                    if any(channel.buffered for channel in channels):
                        continue
                    self._ended(channels)
                    return
        finally:
            self._release(channels)

    async def abort(self) -> None:
        """Stop the run now: a reader waiting on the graph is cancelled, and so are the nodes."""
        if self._aborted:
            return
        self._aborted = True
        self._exhausted = True
        task = self._pump_task
        if task is not None and task is not asyncio.current_task() and not task.done():
            task.cancel()  # the reader parked inside the graph: its cancellation closes the graph
        else:
            await self._aclose_graph()
        if not self._mux.closed:
            try:
                await self._mux.aclose()
            except Exception:
                pass

    async def __aenter__(self) -> AsyncGraphRunStream:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.abort()


class AsyncSubgraphRunStream(_SubgraphMixin, AsyncGraphRunStream):
    """A subgraph's view (async)."""

    def __init__(self, mux: EventMux, *, path: tuple[str, ...], graph_name: str | None = None,
                 trigger_call_id: str | None = None, pump: Callable[[], Any] | None = None) -> None:
        _Projections.__init__(self, mux)
        self._set_identity(path, graph_name or path[-1].partition(":")[0], trigger_call_id)
        self._root_apump = pump if pump is not None else mux.apump
        self._aborted = False

    async def _apump_next(self) -> bool:
        if self.status != "started" or self._exhausted or self._root_apump is None:
            return False
        return bool(await self._root_apump())

    async def _adrain(self) -> None:
        while await self._apump_next():
            pass
        failure = self._failure()
        if failure is not None:
            raise failure

    async def abort(self) -> None:
        """Stop following this subgraph (the run goes on)."""
        self._stop_following()


def handle_class(is_async: bool) -> Any:
    return AsyncSubgraphRunStream if is_async else SubgraphRunStream
