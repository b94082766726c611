"""`stream_events(version="v3")` / `astream_events(version="v3")`: a run's v3 event stream.

The events are the one Run's stream parts (`astream(..., version="v2", subgraphs=True)`
with the stream modes the transformers ask for, chat models reporting protocol events),
framed as protocol events and handed to the run's transformers: the built-in ones
(values, messages, lifecycle, subgraphs), the graph's (`compile(transformers=)`) and the
call's (`transformers=`). Nothing runs until the returned handle is read.
"""
from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from ..streaming.builtin import MessagesTransformer, ValuesTransformer
from ..streaming.mux import EventMux, Factory, normalize_factories
from ..streaming.run_stream import AsyncGraphRunStream, GraphRunStream
from ..streaming.subgraphs import LifecycleTransformer, SubgraphTransformer
from .call_args import STREAM_ARGS, check_kwargs
from .sync_bridge import iterate_sync

if TYPE_CHECKING:
    from ..runtime.protocols import CompiledGraph

__all__ = ["NATIVE_FACTORIES", "stream_events_v3", "astream_events_v3", "astream_events_v2", "check_v3_kwargs"]

NATIVE_FACTORIES: tuple[Factory, ...] = (ValuesTransformer, MessagesTransformer, LifecycleTransformer,
                                         SubgraphTransformer)
"""Registered on every v3 run, before the graph's and the call's own."""

_NOT_IN_V3 = ("stream_mode", "subgraphs")


def check_v3_kwargs(where: str, kwargs: Mapping[str, Any]) -> None:
    for name in _NOT_IN_V3:
        if name in kwargs:
            raise TypeError(f"{where}(version='v3') does not take {name}=: the run's transformers choose "
                            "the stream modes and every subgraph is streamed; pass transformers= instead")
    check_kwargs(where, {k: v for k, v in kwargs.items() if k != "checkpoint_during"}, STREAM_ARGS)


def _mux(graph: CompiledGraph, transformers: Iterable[Any] | None, is_async: bool) -> EventMux:
    factories = [*NATIVE_FACTORIES, *normalize_factories(getattr(graph, "stream_transformers", ())),
                 *normalize_factories(transformers)]
    return EventMux(factories=factories, is_async=is_async)


def _modes(mux: EventMux) -> list[str]:
    modes: list[str] = []
    for t in mux._transformers:
        for mode in getattr(t, "required_stream_modes", ()) or ():
            if mode not in modes:
                modes.append(mode)
    return modes or ["values"]


def stream_events_v3(graph: CompiledGraph, input: Any, config: Mapping[str, Any] | None,
                     transformers: Iterable[Any] | None, kwargs: dict[str, Any]) -> GraphRunStream:
    check_v3_kwargs("stream_events", kwargs)
    mux = _mux(graph, transformers, is_async=False)
    parts = iterate_sync(graph.astream(input, config, stream_mode=_modes(mux), subgraphs=True, version="v2",
                                       _inline_sync=True, _protocol_messages=True, **kwargs))
    return GraphRunStream(parts, mux)


async def astream_events_v3(graph: CompiledGraph, input: Any, config: Mapping[str, Any] | None,
                      transformers: Iterable[Any] | None, kwargs: dict[str, Any]) -> AsyncGraphRunStream:
    check_v3_kwargs("astream_events", kwargs)
    mux = _mux(graph, transformers, is_async=True)
    parts = graph.astream(input, config, stream_mode=_modes(mux), subgraphs=True, version="v2",
                          _protocol_messages=True, **kwargs)
    return AsyncGraphRunStream(parts, mux)


async def astream_events_v2(graph: CompiledGraph, input: Any, config: Mapping[str, Any] | None,
                            version: str, kwargs: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
    """LangChain's event stream (version "v2"): on_chain_start/stream/end for the graph and
    each node, on_chat_model_stream for tokens of chat models called in nodes. Needs
    langchain-core (`pip install 'retrograph[langchain]'`)."""
    if version != "v2":
        raise ValueError(f"astream_events supports version='v2' or 'v3', got {version!r}")
    try:
        from langchain_core.tracers.event_stream import _astream_events_implementation_v2
    except ImportError:
        raise ImportError("astream_events needs langchain-core: pip install 'retrograph[langchain]'") from None
    events_of = _astream_events_implementation_v2(graph, input, dict(config or {}), **kwargs)
    async with aclosing(events_of) as events:
        async for event in events:  # closed with this one: a consumer that stops cancels the nodes
            yield event
