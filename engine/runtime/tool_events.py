"""`stream_mode="tools"`: each tool call's start, partial outputs, end or error, as it runs.

A LangChain callback handler (attached only when the mode is asked for) turns a tool's
`on_tool_start` / `on_tool_end` / `on_tool_error` into chunks of the `tools` mode, keyed
by the tool call's id, under the namespace of the graph the tool runs in:

    {"event": "tool-started", "tool_call_id", "tool_name", "input"}
    {"event": "tool-output-delta", "tool_call_id", "delta"}     (ToolRuntime.emit_output_delta)
    {"event": "tool-finished", "tool_call_id", "output"}
    {"event": "tool-error", "tool_call_id", "message"}

While a tool runs, `current_tool_writer` holds the function that sends its deltas, so a
tool's `runtime.emit_output_delta(x)` reaches the stream without being handed anything.
A tool paused by an interrupt reports neither an end nor an error (it runs again on
resume). A subgraph's tools are sent only with `subgraphs=True` (as the messages mode).
"""
from __future__ import annotations

import contextvars
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import GraphDrained, GraphInterrupt
from .tracing import graph_namespace

__all__ = ["current_tool_writer", "tools_handler"]

current_tool_writer: contextvars.ContextVar[Callable[[Any], None] | None] = contextvars.ContextVar(
    "retrograph_tool_writer", default=None)
"""The running tool call's delta writer (None outside a tool streamed with the `tools` mode)."""

_HANDLER_CLASS: Any = None


class _ToolMoves:
    """What the `tools` mode's handler does (put on langchain-core's handler class lazily)."""

    run_inline = True

    def __init__(self, put: Callable[[dict[str, Any], tuple[str, ...]], None], subgraphs: bool) -> None:
        self.put = put
        self.subgraphs = subgraphs
        self.home: tuple[str, ...] = ()
        """The namespace of the streamed graph (not () when a node streams a graph)."""
        self.calls: dict[uuid.UUID, tuple[tuple[str, ...], str, contextvars.Token[Any]]] = {}

    def _ns(self, metadata: Mapping[str, Any] | None, tags: Sequence[str] | None) -> tuple[str, ...] | None:
        if not metadata or (tags and "nostream" in tags):
            return None
        ns = graph_namespace(metadata)
        if not self.subgraphs and len(ns) > len(self.home):
            return None
        return ns

    def on_tool_start(self, serialized: Any, input_str: str, *, run_id: uuid.UUID,
                      tags: Sequence[str] | None = None, metadata: dict[str, Any] | None = None,
                      inputs: dict[str, Any] | None = None, **kwargs: Any) -> None:
        ns = self._ns(metadata, tags)
        if ns is None:
            return
        call_id = str(kwargs.get("tool_call_id") or run_id)
        name = (serialized or {}).get("name") or kwargs.get("name") or ""

        def write(delta: Any) -> None:
            self.put({"event": "tool-output-delta", "tool_call_id": call_id, "delta": delta}, ns)

        self.calls[run_id] = (ns, call_id, current_tool_writer.set(write))
        payload: dict[str, Any] = {"event": "tool-started", "tool_call_id": call_id, "tool_name": name}
        if inputs is not None:
            payload["input"] = inputs
        self.put(payload, ns)

    def _close(self, run_id: uuid.UUID) -> tuple[tuple[str, ...], str] | None:
        found = self.calls.pop(run_id, None)
        if found is None:
            return None
        ns, call_id, token = found
        try:
            current_tool_writer.reset(token)
        except ValueError:  # ended in another context than it started in: nothing to undo there
            pass
        return ns, call_id

    def on_tool_end(self, output: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        found = self._close(run_id)
        if found is not None:
            self.put({"event": "tool-finished", "tool_call_id": found[1], "output": output}, found[0])

    def on_tool_error(self, error: BaseException, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        found = self._close(run_id)
        if found is None or isinstance(error, (GraphInterrupt, GraphDrained)):  # paused: it runs again
            return
        self.put({"event": "tool-error", "tool_call_id": found[1], "message": str(error)}, found[0])

    def tap_output_aiter(self, run_id: Any, output: Any) -> Any:
        return output

    def tap_output_iter(self, run_id: Any, output: Any) -> Any:
        return output


def tools_handler(put: Callable[[dict[str, Any], tuple[str, ...]], None], subgraphs: bool = False) -> Any:
    """The callback handler of `stream_mode="tools"`: calls `put(payload, ns)` per tool event."""
    global _HANDLER_CLASS
    if _HANDLER_CLASS is None:
        from langchain_core.callbacks import BaseCallbackHandler

        class ToolEventsHandler(_ToolMoves, BaseCallbackHandler):  # type: ignore[misc]
            pass

        _HANDLER_CLASS = ToolEventsHandler
    return _HANDLER_CLASS(put, subgraphs)
