"""Tool calls as handles of a v3 event stream: `ToolCallTransformer` reads the run's
`tools` events (`tool-started`, `tool-output-delta`, `tool-finished`, `tool-error`) and
offers `run.tool_calls`, one `ToolCallStream` per call, each with its output deltas.

Registered by `compile(transformers=[ToolCallTransformer])` (langchain's create_agent
does); the raw `tools` events stay in the main log for wire readers.
"""
from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, ClassVar

from ..runtime.stream import STREAM_MODES
from ..streaming.channel import StreamChannel
from ..streaming.transformer import ProtocolEvent, StreamTransformer

__all__ = ["ToolCallStream", "ToolCallTransformer"]


def tool_output(output: Any) -> Any:
    """A tool's result as the handle shows it: a ToolMessage (or its serialized form) by
    its content, anything else as it is."""
    content = getattr(output, "content", None)
    if content is not None and type(output).__name__ == "ToolMessage":
        return content
    if isinstance(output, dict) and output.get("type") == "constructor":
        ident, kwargs = output.get("id"), output.get("kwargs")
        if isinstance(ident, list) and ident and ident[-1] == "ToolMessage" and isinstance(kwargs, dict):
            return kwargs.get("content")
    return output


class ToolCallStream:
    """One tool call of a run: `tool_call_id`, `tool_name`, `input` from its start;
    `output_deltas` (iterate them as the run is iterated, sync or async); `output` or
    `error` and `completed` once it ended."""

    def __init__(self, tool_call_id: str, tool_name: str, input: dict[str, Any] | None = None) -> None:
        self.tool_call_id = tool_call_id
        self.tool_name = tool_name
        self.input = input
        self._output_deltas: StreamChannel[Any] = StreamChannel()
        self.output: Any = None
        self.error: str | None = None
        self.completed = False

    @property
    def output_deltas(self) -> StreamChannel[Any]:
        return self._output_deltas

    def _end(self, output: Any = None, error: str | None = None) -> None:
        self.output, self.error, self.completed = output, error, True
        self._output_deltas.close()

    def __iter__(self) -> Iterator[Any]:
        return iter(self._output_deltas)

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._output_deltas.__aiter__()

    def __repr__(self) -> str:
        status = "running" if not self.completed else ("failed" if self.error is not None else "completed")
        return f"ToolCallStream(tool_call_id={self.tool_call_id!r}, tool_name={self.tool_name!r}, status={status})"


class ToolCallTransformer(StreamTransformer):
    """`run.tool_calls`: a ToolCallStream per `tool-started` event of this scope."""

    _native = True
    # the engine has no "tools" stream mode yet: until it does, run.tool_calls stays empty
    # (rather than the run refusing an unknown mode)
    required_stream_modes: ClassVar[tuple[str, ...]] = ("tools",) if "tools" in STREAM_MODES else ()

    def __init__(self, scope: tuple[str, ...] = ()) -> None:
        super().__init__(scope)
        self._log: StreamChannel[ToolCallStream] = StreamChannel()
        self._active: dict[str, ToolCallStream] = {}
        self._pump: Callable[..., Any] | None = None

    def init(self) -> dict[str, Any]:
        return {"tool_calls": self._log}

    def _bind_pump(self, fn: Callable[..., Any] | None) -> None:
        self._pump = fn

    def _start(self, call_id: str, data: dict[str, Any]) -> None:
        handle = ToolCallStream(call_id, data.get("tool_name", ""), data.get("input"))
        deltas = handle._output_deltas
        deltas.follow(self._log)
        self._active[call_id] = handle
        self._log.push(handle)

    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] != "tools" or not self.in_scope(event):
            return True
        data = event["params"]["data"]
        call_id = data.get("tool_call_id") if isinstance(data, dict) else None
        if call_id is None:
            return True
        kind = data.get("event")
        if kind == "tool-started":
            self._start(call_id, data)
        elif kind == "tool-output-delta":
            if call_id in self._active:
                self._active[call_id]._output_deltas.push(data.get("delta"))
        elif kind == "tool-finished":
            handle = self._active.pop(call_id, None)
            if handle is not None:
                handle._end(output=tool_output(data.get("output")))
        elif kind == "tool-error":
            handle = self._active.pop(call_id, None)
            if handle is not None:
                handle._end(error=data.get("message", ""))
        return True

    def finalize(self) -> None:
        for handle in self._active.values():
            handle._end()
        self._active.clear()

    def fail(self, err: BaseException) -> None:
        for handle in self._active.values():
            handle._end(error=str(err))
        self._active.clear()
