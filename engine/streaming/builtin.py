"""The built-in transformers: one projection per stream mode of the graph's own scope.

`ValuesTransformer` (state snapshots), `MessagesTransformer` (one chat-model stream per
message), and the opt-in data projections `UpdatesTransformer`, `CustomTransformer`,
`CheckpointsTransformer`, `TasksTransformer`, `DebugTransformer` (each the payloads of
its mode, as they came). Each keeps only the events whose namespace is its scope.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from .channel import StreamChannel
from .transformer import ProtocolEvent, StreamTransformer

__all__ = ["ValuesTransformer", "MessagesTransformer", "ModeTransformer", "UpdatesTransformer",
           "CustomTransformer", "CheckpointsTransformer", "TasksTransformer", "DebugTransformer"]


class ValuesTransformer(StreamTransformer):
    """`values`: the graph's state after each step; keeps the interrupts it saw last."""

    required_stream_modes = ("values",)
    _native = True

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[Any] = StreamChannel()
        self._latest: Any = None
        self._interrupted = False
        self._interrupts: tuple[Any, ...] = ()

    def init(self) -> dict[str, Any]:
        return {"values": self._log}

    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] == "values" and self.in_scope(event):
            params = event["params"]
            self._latest = params["data"]
            interrupts = tuple(params.get("interrupts") or ())
            if interrupts:
                self._interrupted, self._interrupts = True, interrupts
            self._log.push(params["data"])
        return True


class ModeTransformer(StreamTransformer):
    """A projection of one stream mode's payloads in scope (the mode is the key)."""

    mode: ClassVar[str] = ""
    _native = True

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[Any] = StreamChannel()

    def init(self) -> dict[str, Any]:
        return {self.mode: self._log}

    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] == self.mode and self.in_scope(event):
            self._log.push(event["params"]["data"])
        return True


class UpdatesTransformer(ModeTransformer):
    mode = "updates"
    required_stream_modes = ("updates",)


class CustomTransformer(ModeTransformer):
    mode = "custom"
    required_stream_modes = ("custom",)


class CheckpointsTransformer(ModeTransformer):
    mode = "checkpoints"
    required_stream_modes = ("checkpoints",)


class TasksTransformer(ModeTransformer):
    mode = "tasks"
    required_stream_modes = ("tasks",)


class DebugTransformer(ModeTransformer):
    mode = "debug"
    required_stream_modes = ("debug",)


def _stream_classes() -> tuple[type, type]:
    from langchain_core.language_models.chat_model_stream import AsyncChatModelStream, ChatModelStream

    return ChatModelStream, AsyncChatModelStream


class MessagesTransformer(StreamTransformer):
    """`messages`: one `ChatModelStream` per AI message of this scope, pushed when it
    starts and fed its protocol events as they come (reading its `.text` pulls the run);
    a message a node returned whole is replayed as a finished stream. Tool messages and
    v1 token chunks are not messages of this projection."""

    required_stream_modes = ("messages",)
    _native = True

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[Any] = StreamChannel()
        self._by_run: dict[str, Any] = {}
        self._pump_fn: Callable[[], Any] | None = None

    def init(self) -> dict[str, Any]:
        return {"messages": self._log}

    def _bind_pump(self, pump: Callable[[], Any] | None) -> None:
        self._pump_fn = pump

    def _new_stream(self, namespace: list[str], meta: dict[str, Any], message_id: Any) -> Any:
        sync_cls, async_cls = _stream_classes()
        is_async = bool(self._log.is_async)
        stream = (async_cls if is_async else sync_cls)(
            namespace=list(namespace), node=meta.get("langgraph_node"),
            message_id=None if message_id is None else str(message_id))
        if self._pump_fn is not None:
            if is_async:
                stream.set_arequest_more(self._pump_fn)
            else:
                stream.set_request_more(self._pump_fn)
        return stream

    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] != "messages" or not self.in_scope(event):
            return True
        data = event["params"]["data"]
        if not isinstance(data, (tuple, list)) or len(data) != 2:
            return True
        payload, meta = data
        meta = meta if isinstance(meta, dict) else {}
        if isinstance(payload, dict):
            self._on_protocol(event["params"]["namespace"], payload, meta)
        else:
            self._on_whole(event["params"]["namespace"], payload, meta)
        return True

    def _on_protocol(self, namespace: list[str], payload: dict[str, Any], meta: dict[str, Any]) -> None:
        key = str(meta.get("run_id") or payload.get("message_id") or payload.get("id") or "")
        kind = payload.get("event")
        if kind == "message-start":
            if payload.get("role", "ai") != "ai":
                return
            stream = self._new_stream(namespace, meta, payload.get("message_id") or payload.get("id") or key)
            self._by_run[key] = stream
            self._log.push(stream)
        stream = self._by_run.get(key)
        if stream is None:
            return
        stream.dispatch(payload)
        if kind in ("message-finish", "error"):
            self._by_run.pop(key, None)

    def _on_whole(self, namespace: list[str], message: Any, meta: dict[str, Any]) -> None:
        from langchain_core.language_models._compat_bridge import message_to_events
        from langchain_core.messages import AIMessage, AIMessageChunk

        if not isinstance(message, AIMessage) or isinstance(message, AIMessageChunk):
            return  # a tool or human message, or a v1 token chunk
        stream = self._new_stream(namespace, meta, message.id)
        for payload in message_to_events(message, message_id=message.id):
            stream.dispatch(payload)
        self._log.push(stream)

    def finalize(self) -> None:
        self._by_run.clear()

    def fail(self, err: BaseException) -> None:
        for stream in self._by_run.values():
            try:
                stream.fail(err)
            except Exception:  # a stream already finished refuses a failure
                pass
        self._by_run.clear()
