"""`RemoteGraph.stream_events(version="v3")` and `astream_events(version="v3")`: a remote
run's v3 event stream, read through langgraph-sdk's thread stream (`client.threads.stream`).

The handle has the surface of a local run's (`engine.streaming.GraphRunStream`): iterate it
for the raw protocol events; `values`, `messages`, `tool_calls`, `subgraphs` and the
`extensions` mapping are the server's projections, decoded by the SDK; `output`,
`interrupted`, `interrupts`, `interleave`, `abort`. The run starts on the server when the
handle is entered (`with` / `async with`) or, without a `with`, when it is first read; the
handle is then closed by `abort()` or on leaving the `with`.

As LangGraph's RemoteGraph: `interrupted` and `interrupts` read what the stream has seen so
far (they do not wait for the run to end), and `output` waits for the run to end (a run
paused at an interrupt ends only once it is answered: `respond(...)`, or a new call with
`Command(resume=...)`).
"""
from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator, Mapping
from typing import Any

from ..types import Command

__all__ = ["RemoteRunStream", "AsyncRemoteRunStream", "RemoteProjections", "start_arguments", "check_v3_call",
           "V3_KWARGS"]

V3_KWARGS = frozenset({"metadata", "headers"})
"""The keyword arguments a remote v3 event stream takes besides input and config."""

_REFUSED = ("control", "transformers", "interrupt_before", "interrupt_after")

_TYPED = ("values", "messages", "tool_calls", "subgraphs")
"""Projections the SDK decodes itself (its thread stream's attributes)."""

_PLAIN = ("updates", "checkpoints", "tasks", "custom")
"""Wire channels whose projection is each event's data, as the local transformers push it."""


def check_v3_call(where: str, refused: Mapping[str, Any], extra: Mapping[str, Any]) -> None:
    """Refuse, before anything is sent, what a server's v3 stream cannot take."""
    for name in _REFUSED:
        if refused.get(name):
            raise NotImplementedError(
                f"RemoteGraph.{where}(version='v3') does not take {name}=: the server runs the graph "
                "with its own settings (drop the argument, or use stream() for interrupt_before/after)")
    unknown = sorted(set(extra) - V3_KWARGS)
    if unknown:
        raise NotImplementedError(
            f"RemoteGraph.{where}(version='v3') does not take {', '.join(unknown)}: it takes "
            f"{', '.join(sorted(V3_KWARGS))} besides the input and config")


def wire_input(input: Any) -> Any:
    """The `input` of the server's `run.start`: a `Command(resume=...)` is its resume value
    (the server resumes a thread paused at an interrupt with it); goto/update cannot be sent."""
    if not isinstance(input, Command):
        return input
    parts = [name for name in ("goto", "update") if getattr(input, name)]
    if getattr(input, "graph", None) is not None:
        parts.append("graph")
    if parts:
        raise NotImplementedError(
            f"RemoteGraph v3 event streams send Command(resume=...) only, not Command({'/'.join(parts)}=...): "
            "use stream() or invoke() for a Command that moves the remote graph")
    return input.resume


def start_arguments(input: Any, config: Mapping[str, Any] | None, metadata: Any) -> dict[str, Any]:
    """What `run.start` is sent (the config already sanitized, its thread id taken out)."""
    return {"input": wire_input(input), "config": None if config is None else dict(config), "metadata": metadata}


class _DataOf:
    """A wire channel's events, each as its `params.data` (events without data skipped)."""

    def __init__(self, thread: Any, channel: str) -> None:
        self._thread, self.channel = thread, channel

    def _take(self, event: Mapping[str, Any]) -> Any:
        if event.get("method") != self.channel:
            return None
        params = event.get("params")
        return params.get("data") if isinstance(params, Mapping) else None

    def __iter__(self) -> Iterator[Any]:
        for event in self._thread.subscribe([self.channel]):
            data = self._take(event)
            if data is not None:
                yield data

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._aiter()

    async def _aiter(self) -> AsyncIterator[Any]:
        async for event in self._thread.subscribe([self.channel]):
            data = self._take(event)
            if data is not None:
                yield data


class RemoteProjections(Mapping[str, Any]):
    """`run.extensions` of a remote run: the typed projections, the plain-data channels,
    and any other name as the server's custom channel of that name."""

    names = _TYPED + _PLAIN

    def __init__(self, thread: Any) -> None:
        self._thread = thread

    def __getitem__(self, name: str) -> Any:
        if name in _TYPED:
            return getattr(self._thread, name)
        if name in _PLAIN:
            return _DataOf(self._thread, name)
        return self._thread.extensions[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


class _Handle:
    """What the sync and async handles share: the SDK thread, the start arguments, the run id."""

    def __init__(self, client: Any, thread: Any, start: dict[str, Any]) -> None:
        self._client = client
        self._sdk = thread
        self._start_kwargs = start
        self._run_id: str | None = None
        self._entered = False
        self._closed = False
        self._events: Any = None

    def _refuse_closed(self) -> None:
        if self._closed:
            raise RuntimeError("this remote run stream is closed (aborted or left its `with`): "
                               "call stream_events(..., version='v3') again for a new run")

    @property
    def run_id(self) -> str | None:
        """The server's id of the run (None until it started)."""
        return self._run_id

    @property
    def thread_id(self) -> Any:
        return getattr(self._sdk, "thread_id", None)

    def _cancel_args(self) -> tuple[Any, Any] | None:
        return None if self._run_id is None else (self._sdk.thread_id, self._run_id)

    def _projection(self, name: str) -> Any:
        raise NotImplementedError

    @property
    def values(self) -> Any:
        """The run's values projection (the SDK's; starts the run when read)."""
        return self._projection("values")

    @property
    def messages(self) -> Any:
        return self._projection("messages")

    @property
    def tool_calls(self) -> Any:
        return self._projection("tool_calls")

    @property
    def subgraphs(self) -> Any:
        return self._projection("subgraphs")


class RemoteRunStream(_Handle):
    """A remote run's v3 event stream (sync)."""

    def _started(self) -> Any:
        if not self._entered:
            self.__enter__()
        return self._sdk

    def __enter__(self) -> RemoteRunStream:
        self._refuse_closed()
        if self._entered:
            return self
        self._sdk.__enter__()
        try:
            result = self._sdk.run.start(**self._start_kwargs)
        except BaseException:
            self._sdk.__exit__(*sys.exc_info())
            self._closed = True
            raise
        self._entered = True
        self._run_id = (result or {}).get("run_id")
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self._closed:
            return
        self._closed = True
        if self._entered:
            self._sdk.__exit__(exc_type, exc, tb)

    @property
    def output(self) -> Any:
        """The thread's final values (waits for the run to end)."""
        return self._started().output

    @property
    def interrupted(self) -> bool:
        """Whether the stream has seen the run pause at an interrupt (does not wait)."""
        return bool(self._started().interrupted)

    @property
    def interrupts(self) -> list[Any]:
        """The interrupts seen so far: `{"interrupt_id", "value", "namespace"}` each."""
        return list(self._started().interrupts)

    def respond(self, response: Any, *, interrupt_id: str | None = None) -> Any:
        """Answer the run's interrupt (the only one, or `interrupt_id`): the run goes on."""
        return self._started().run.respond(response, interrupt_id=interrupt_id)

    def _projection(self, name: str) -> Any:
        return getattr(self._started(), name)

    @property
    def extensions(self) -> Mapping[str, Any]:
        return RemoteProjections(self._started())

    def __iter__(self) -> Iterator[Any]:
        if self._events is None:
            self._events = iter(self._started().events)
        events: Iterator[Any] = self._events
        return events

    def interleave(self, *names: str) -> Iterator[tuple[str, Any]]:
        """(projection name, item) of several projections, in the order the server sent them."""
        yield from self._started().interleave_projections(list(names))

    def abort(self) -> None:
        """Cancel the run on the server (when it started) and close the stream."""
        if self._closed:
            return
        self._closed = True
        cancel = self._cancel_args()
        if cancel is not None:
            try:
                self._client.runs.cancel(*cancel, wait=False)
            except Exception:  # the run may have ended meanwhile: closing is what matters
                pass
        try:
            self._sdk.close()
        except Exception:
            pass


class _LazyAsync:
    """An async projection of a handle not yet started: starts it when iterated."""

    def __init__(self, owner: AsyncRemoteRunStream, name: str) -> None:
        self._owner, self._name = owner, name

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._aiter()

    async def _aiter(self) -> AsyncIterator[Any]:
        sdk = await self._owner._astarted()
        async for item in getattr(sdk, self._name):
            yield item


class AsyncRemoteRunStream(_Handle):
    """A remote run's v3 event stream (async): `async with await graph.astream_events(...)`."""

    async def _astarted(self) -> Any:
        if not self._entered:
            await self.__aenter__()
        return self._sdk

    async def __aenter__(self) -> AsyncRemoteRunStream:
        self._refuse_closed()
        if self._entered:
            return self
        await self._sdk.__aenter__()
        try:
            result = await self._sdk.run.start(**self._start_kwargs)
        except BaseException:
            await self._sdk.__aexit__(*sys.exc_info())
            self._closed = True
            raise
        self._entered = True
        self._run_id = (result or {}).get("run_id")
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if self._closed:
            return
        self._closed = True
        if self._entered:
            await self._sdk.__aexit__(exc_type, exc, tb)

    async def output(self) -> Any:
        """The thread's final values (waits for the run to end)."""
        return await (await self._astarted()).output

    async def interrupted(self) -> bool:
        return bool((await self._astarted()).interrupted)

    async def interrupts(self) -> list[Any]:
        return list((await self._astarted()).interrupts)

    async def respond(self, response: Any, *, interrupt_id: str | None = None) -> Any:
        """Answer the run's interrupt (the only one, or `interrupt_id`): the run goes on."""
        return await (await self._astarted()).run.respond(response, interrupt_id=interrupt_id)

    def _projection(self, name: str) -> Any:
        return getattr(self._sdk, name) if self._entered else _LazyAsync(self, name)

    @property
    def extensions(self) -> Mapping[str, Any]:
        if not self._entered:
            raise RuntimeError("enter the remote run stream first (`async with await graph.astream_events(...)`) "
                               "to read its extensions")
        return RemoteProjections(self._sdk)

    def __aiter__(self) -> AsyncIterator[Any]:
        if self._events is None:
            self._events = self._events_of()
        events: AsyncIterator[Any] = self._events
        return events

    async def _events_of(self) -> AsyncIterator[Any]:
        sdk = await self._astarted()
        async for event in sdk.events:
            yield event

    async def abort(self) -> None:
        """Cancel the run on the server (when it started) and close the stream."""
        if self._closed:
            return
        self._closed = True
        cancel = self._cancel_args()
        if cancel is not None:
            try:
                await self._client.runs.cancel(*cancel, wait=False)
            except Exception:  # the run may have ended meanwhile: closing is what matters
                pass
        try:
            await self._sdk.close()
        except Exception:
            pass
