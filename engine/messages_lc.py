"""langchain-core's messages as the state's messages, when langchain-core is installed.

Chat models and tools expect langchain-core's classes, so with it installed
`add_messages` keeps them, and turns everything else it is given (dicts in LangChain's
or OpenAI's form, `(role, content)` pairs, strings, the engine's own messages, chunks)
into them, as LangGraph does. langchain-core is imported on first use only.
"""
from __future__ import annotations

import dataclasses
import importlib.util
from types import ModuleType
from typing import Any

from .checkpoint.langchain_types import ensure_registered

__all__ = ["available", "module", "convert"]

_module: ModuleType | None = None
_available: bool | None = None


def available() -> bool:
    """Whether langchain-core can be imported (checked once, without importing it)."""
    global _available
    if _available is None:
        try:
            _available = importlib.util.find_spec("langchain_core") is not None
        except (ImportError, ValueError):
            _available = False
    return _available


def module() -> ModuleType:
    """`langchain_core.messages`, imported (and its classes allowed in checkpoints) once."""
    global _module
    if _module is None:
        from langchain_core import messages

        ensure_registered()
        _module = messages
    return _module


def _engine_fields(msg: Any) -> dict[str, Any]:
    """One of the engine's own messages as a LangChain-style dict."""
    data: dict[str, Any] = {"type": msg.type, "content": msg.content}
    for f in dataclasses.fields(msg):
        if f.name not in ("content",) and getattr(msg, f.name, None) not in (None, [], {}):
            data[f.name] = getattr(msg, f.name)
    for key, value in vars(msg).items():  # extra attributes given as keywords
        if key not in data and not key.startswith("_") and value is not None:
            data[key] = value
    return data


def convert(value: Any) -> Any:
    """One langchain-core message from anything LangGraph's add_messages accepts."""
    lc = module()
    if isinstance(value, lc.BaseMessageChunk):
        return lc.message_chunk_to_message(value)
    if isinstance(value, lc.BaseMessage):
        return value
    from .message_types import BaseMessage as EngineMessage

    if isinstance(value, EngineMessage):
        data = _engine_fields(value)
        if data["type"] == "remove":
            return lc.RemoveMessage(id=data["id"])
        value = data
    if isinstance(value, dict) and value.get("type") == "remove" or (
            isinstance(value, dict) and value.get("role") == "remove"):
        return lc.RemoveMessage(id=value["id"])
    try:
        [msg] = lc.convert_to_messages([value])
    except NotImplementedError as exc:
        raise TypeError(
            f"cannot turn {type(value).__name__} into a message ({exc}): use a message object, "
            "a {'role': ..., 'content': ...} dict, a (role, content) pair or a string"
        ) from None
    return msg
