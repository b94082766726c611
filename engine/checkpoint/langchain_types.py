"""langchain-core's message classes, known to the serializer by a fixed allow-list.

A checkpoint that holds langchain-core messages stores each under a short stable name
(`lc.HumanMessage`...). Reading one registers these classes from `langchain_core.messages`
(a fixed module, never a name taken from the data), so a database opened without the
graph's code still shows its conversation. Without langchain-core installed the names
stay unknown and load as inert `UnknownValue`s.
"""
from __future__ import annotations

import threading

from .registry import GLOBAL_TYPES

__all__ = ["ALLOWED", "ensure_registered", "maybe_langchain"]

ALLOWED: tuple[str, ...] = (
    "BaseMessage", "HumanMessage", "AIMessage", "SystemMessage", "ToolMessage", "RemoveMessage",
    "ChatMessage", "FunctionMessage", "AIMessageChunk", "HumanMessageChunk", "SystemMessageChunk",
    "ToolMessageChunk", "ChatMessageChunk", "FunctionMessageChunk",
)
"""The classes of `langchain_core.messages` a checkpoint may hold."""

_PREFIX = "lc."
_lock = threading.Lock()
_done = False


def ensure_registered() -> bool:
    """Register the allow-listed classes (once); False when langchain-core is absent."""
    global _done
    if _done:
        return True
    with _lock:
        if _done:
            return True
        try:
            from langchain_core import messages
        except ImportError:
            return False

        for name in ALLOWED:
            cls = getattr(messages, name, None)
            if cls is not None:
                GLOBAL_TYPES.add(cls, _PREFIX + name)
        _done = True
        return True


def maybe_langchain(*, name: str | None = None, cls: type | None = None) -> bool:
    """Called on a registry miss: registers langchain-core's messages when the missing
    stored name or class is one of them. True when something was registered."""
    if _done:
        return False
    if name is not None and not (name.startswith(_PREFIX) and name[len(_PREFIX):] in ALLOWED):
        return False
    if cls is not None and not (getattr(cls, "__module__", "").startswith("langchain_core.messages")
                                and cls.__name__ in ALLOWED):
        return False
    return ensure_registered()
