"""The callback handlers a stream attaches for the modes made from LangChain callbacks.

`messages` (chat-model tokens and node messages) and `tools` (each tool call's start,
deltas and end) come from handlers added to the run's config, only when asked for;
`set_home` tells them the namespace of the streamed graph when a node streams a graph.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["attach_handlers", "set_home"]


def attach_handlers(collector: Any, config: Mapping[str, Any] | None, subgraphs: bool,
                    protocol_messages: bool) -> tuple[Mapping[str, Any] | None, list[Any]]:
    """(the config with the handlers the collector's modes need, those handlers)."""
    handlers: list[Any] = []
    if "messages" not in collector.modes and "tools" not in collector.modes:
        return config, handlers
    from ..runtime.tracing import add_handler, messages_handler

    if "messages" in collector.modes:
        if protocol_messages:  # a v3 event stream: chat models report protocol events
            from ..streaming.messages_handler import protocol_messages_handler as messages_handler
        else:  # a v1 stream inside a v3 one: an inherited protocol handler would flip chat models to events
            config = _without_protocol_handlers(config)
        handlers.append(messages_handler(collector.put_message, subgraphs))
    if "tools" in collector.modes:
        from ..runtime.tool_events import tools_handler

        handlers.append(tools_handler(collector.put_tool_event, subgraphs))
    for handler in handlers:
        config = add_handler(config, handler)
    return config, handlers


def _without_protocol_handlers(config: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """`config` without the v3 `messages` handlers it inherited (an outer v3 event stream's):
    langchain-core streams a chat model as protocol events as soon as one listens, and a
    `stream_mode="messages"` stream wants token chunks. Other handlers stay, so an outer v1
    `messages` stream still hears the inner graph's tokens."""
    callbacks = (config or {}).get("callbacks")
    if not callbacks:
        return config
    from ..streaming.messages_handler import is_protocol_handler

    if isinstance(callbacks, list):
        kept = [h for h in callbacks if not is_protocol_handler(h)]
        return config if len(kept) == len(callbacks) else {**(config or {}), "callbacks": kept}
    handlers = list(getattr(callbacks, "handlers", ()))
    inheritable = list(getattr(callbacks, "inheritable_handlers", ()))
    if not any(is_protocol_handler(h) for h in (*handlers, *inheritable)):
        return config
    manager = callbacks.copy()
    manager.handlers = [h for h in handlers if not is_protocol_handler(h)]
    manager.inheritable_handlers = [h for h in inheritable if not is_protocol_handler(h)]
    return {**(config or {}), "callbacks": manager}


def set_home(handlers: list[Any], checkpoint_ns: str) -> None:
    """A graph streamed inside a node: its handlers' own namespace is that node's."""
    if checkpoint_ns:
        for handler in handlers:
            handler.home = tuple(checkpoint_ns.split("|"))
