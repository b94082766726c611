"""The engine's own message classes: the state's messages when langchain-core is absent.

Small dataclasses with the attributes LangChain's have (`type`, `content`, `id`,
`tool_calls`...), so code that reads `msg.content` or `msg.tool_calls` works on either.
When langchain-core is installed its classes are the state's messages instead
(messages_lc.py); these remain for files written without it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .checkpoint.registry import GLOBAL_TYPES

__all__ = ["BaseMessage", "HumanMessage", "AIMessage", "SystemMessage", "ToolMessage", "RemoveMessage",
           "ROLES"]


@dataclass(kw_only=True)
class BaseMessage:
    content: Any = ""
    id: str | None = None
    name: str | None = None
    additional_kwargs: dict[str, Any] = field(default_factory=dict)

    type: ClassVar[str] = "base"

    def __init__(self, content: Any = "", **kwargs: Any) -> None:  # positional content, like LangChain
        self.content = content
        self.id = kwargs.pop("id", None)
        self.name = kwargs.pop("name", None)
        self.additional_kwargs = kwargs.pop("additional_kwargs", None) or {}
        for key, value in kwargs.items():
            setattr(self, key, value)
        self.__post_init__()

    def __post_init__(self) -> None:
        pass

    @property
    def text(self) -> str:
        return self.content if isinstance(self.content, str) else str(self.content)

    def pretty(self) -> str:
        return f"{self.type}: {self.text}"


@dataclass(kw_only=True, init=False)
class HumanMessage(BaseMessage):
    type: ClassVar[str] = "human"


@dataclass(kw_only=True, init=False)
class SystemMessage(BaseMessage):
    type: ClassVar[str] = "system"


@dataclass(kw_only=True, init=False)
class AIMessage(BaseMessage):
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    type: ClassVar[str] = "ai"

    def __post_init__(self) -> None:
        if getattr(self, "tool_calls", None) is None or "tool_calls" not in self.__dict__:
            self.tool_calls = []


@dataclass(kw_only=True, init=False)
class ToolMessage(BaseMessage):
    tool_call_id: str = ""
    type: ClassVar[str] = "tool"

    def __post_init__(self) -> None:
        if "tool_call_id" not in self.__dict__:
            self.tool_call_id = ""


@dataclass(kw_only=True, init=False)
class RemoveMessage(BaseMessage):
    """Passed through add_messages, removes the message with this id."""

    type: ClassVar[str] = "remove"



ROLES: dict[str, type[BaseMessage]] = {
    "human": HumanMessage,
    "user": HumanMessage,
    "ai": AIMessage,
    "assistant": AIMessage,
    "system": SystemMessage,
    "developer": SystemMessage,
    "tool": ToolMessage,
    "remove": RemoveMessage,
}

# Stored under the names they had when they lived in engine/messages.py, so older
# checkpoint files still load.
for _cls in (BaseMessage, HumanMessage, SystemMessage, AIMessage, ToolMessage, RemoveMessage):
    GLOBAL_TYPES.add(_cls, f"engine.messages.{_cls.__name__}")
