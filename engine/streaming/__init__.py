"""The v3 event stream of a run: projections over the one Run's stream parts.

`graph.stream_events(input, version="v3")` (or `await graph.astream_events(...,
version="v3")`) returns a run handle; reading it (its events, `run.values`,
`run.messages`, `run.subgraphs`, `run.lifecycle`, `run.output`) advances the run as far
as the reader needs. Transformers (`StreamTransformer` subclasses, passed as
`transformers=` to compile() or the call) read every protocol event and offer
projections of their own (`StreamChannel`s). Served to LangGraph code as `langgraph.stream`.
"""
from __future__ import annotations

from .builtin import (
    CheckpointsTransformer,
    CustomTransformer,
    DebugTransformer,
    MessagesTransformer,
    TasksTransformer,
    UpdatesTransformer,
    ValuesTransformer,
)
from .channel import StreamChannel
from .mux import EventMux, normalize_factories
from .run_stream import AsyncGraphRunStream, AsyncSubgraphRunStream, GraphRunStream, SubgraphRunStream
from .subgraphs import LifecyclePayload, LifecycleTransformer, SubgraphStatus, SubgraphTransformer
from .transformer import ProtocolEvent, StreamTransformer, to_protocol_event

__all__ = [
    "AsyncGraphRunStream",
    "AsyncSubgraphRunStream",
    "CheckpointsTransformer",
    "CustomTransformer",
    "DebugTransformer",
    "EventMux",
    "GraphRunStream",
    "LifecyclePayload",
    "LifecycleTransformer",
    "MessagesTransformer",
    "ProtocolEvent",
    "StreamChannel",
    "StreamTransformer",
    "SubgraphRunStream",
    "SubgraphStatus",
    "SubgraphTransformer",
    "TasksTransformer",
    "UpdatesTransformer",
    "ValuesTransformer",
    "normalize_factories",
    "to_protocol_event",
]
