"""The `messages` mode of a v3 event stream: chat models' protocol events, not token chunks.

The handler declares itself a v2 streaming handler to langchain-core, so a chat model
called in a node (even by `invoke`) reports its reply as protocol events
(`message-start`, content-block start/delta/finish, `message-finish`) through
`on_stream_event`; each goes out as a `messages` part `(event, metadata)` in the
namespace of the graph that called the model. A message a node returns without a model
having streamed it (built by hand, or from a model that cannot stream) goes out whole,
`(message, metadata)`; the `MessagesTransformer` replays it as a finished stream.
"""
from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from ..runtime.tracing import MessagesMoves, graph_namespace, messages_in

__all__ = ["protocol_messages_handler", "is_protocol_handler"]

_HANDLER: Any = None


class _ProtocolMoves(MessagesMoves):
    """`MessagesMoves` with the model's reply as protocol events (see the module doc)."""

    ai_class: Any = object
    chunk_class: Any = object

    def on_llm_new_token(self, token: str, *, chunk: Any = None, run_id: uuid.UUID, **kwargs: Any) -> None:
        return None  # the reply comes as protocol events

    def on_stream_event(self, event: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        meta = self.meta.get(run_id)
        if meta is None or not isinstance(event, dict):
            return
        meta = {**meta, "run_id": str(run_id)}
        if event.get("event") == "message-start":
            streamed: set[uuid.UUID] = self.__dict__.setdefault("streamed", set())
            streamed.add(run_id)
            if event.get("id"):
                self.seen.add(event["id"])
        self.put((event, meta), graph_namespace(meta))

    def on_llm_end(self, response: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        meta = self.meta.pop(run_id, None)
        streamed: set[uuid.UUID] = self.__dict__.setdefault("streamed", set())
        generations = getattr(response, "generations", None) or [[]]
        message = getattr(generations[0][0], "message", None) if generations[0] else None
        if run_id in streamed:
            streamed.discard(run_id)
            if message is not None and getattr(message, "id", None):
                self.seen.add(message.id)  # the node returning it does not send it again
            return
        if meta is not None and isinstance(message, self.ai_class):
            self._whole(message, {**meta, "run_id": str(run_id)})

    def _whole(self, message: Any, meta: dict[str, Any]) -> None:
        if isinstance(message, self.chunk_class):
            return
        self._send(message, meta, dedupe=True)

    def on_chain_end(self, outputs: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        meta = self.meta.pop(run_id, None)
        if meta is not None:
            for message in messages_in(outputs, self.ai_class):  # AI messages only: no tool results
                self._whole(message, meta)


def is_protocol_handler(handler: Any) -> bool:
    """Whether `handler` is a v3 `messages` handler (made by protocol_messages_handler)."""
    return isinstance(handler, _ProtocolMoves)


def protocol_messages_handler(put: Callable[..., None], subgraphs: bool = False) -> Any:
    """A callback handler for the v3 `messages` mode (`put((event_or_message, metadata), ns)`)."""
    global _HANDLER
    if _HANDLER is None:
        from langchain_core.callbacks import BaseCallbackHandler
        from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
        from langchain_core.outputs import ChatGeneration, ChatGenerationChunk

        try:  # chat models report protocol events only when such a handler listens
            from langchain_core.tracers._streaming import _V2StreamingCallbackHandler as V2
        except ImportError:  # pragma: no cover - a langchain-core without v3 streaming
            V2 = object

        class ProtocolMessagesHandler(_ProtocolMoves, BaseCallbackHandler, V2):  # type: ignore[misc]
            message_class, generation, generation_chunk = BaseMessage, ChatGeneration, ChatGenerationChunk
            ai_class, chunk_class = AIMessage, AIMessageChunk

        _HANDLER = ProtocolMessagesHandler
    return _HANDLER(put, subgraphs)
