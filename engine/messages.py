"""Chat messages and the `add_messages` reducer.

Messages are small dataclasses with the attributes LangChain's have (`type`, `content`,
`id`, `tool_calls`...), so code that reads `msg.content` or `msg.tool_calls` ports as is.
Dicts (`{"role": "user", "content": "hi"}`), `(role, content)` pairs and plain strings
are converted when they pass through `add_messages`.
"""
from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, TypedDict

from .channels import MISSING
from .checkpoint.serde import register_type

__all__ = [
    "BaseMessage",
    "HumanMessage",
    "AIMessage",
    "SystemMessage",
    "ToolMessage",
    "RemoveMessage",
    "REMOVE_ALL_MESSAGES",
    "AnyMessage",
    "add_messages",
    "MessagesState",
    "to_message",
]


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


REMOVE_ALL_MESSAGES = "__remove_all__"
"""`RemoveMessage(id=REMOVE_ALL_MESSAGES)` in an update clears the messages before it."""


@dataclass(kw_only=True, init=False)
class RemoveMessage(BaseMessage):
    """Passed through add_messages, removes the message with this id."""

    type: ClassVar[str] = "remove"



AnyMessage = BaseMessage

_ROLES: dict[str, type[BaseMessage]] = {
    "human": HumanMessage,
    "user": HumanMessage,
    "ai": AIMessage,
    "assistant": AIMessage,
    "system": SystemMessage,
    "developer": SystemMessage,
    "tool": ToolMessage,
    "remove": RemoveMessage,
}

register_type(BaseMessage, HumanMessage, SystemMessage, AIMessage, ToolMessage, RemoveMessage)


def to_message(value: Any) -> BaseMessage:
    """A message from a message, a `{"role", "content"}` dict, a `(role, content)` pair or a str."""
    if isinstance(value, BaseMessage):
        return value
    if isinstance(value, str):
        return HumanMessage(value)
    if isinstance(value, (tuple, list)) and len(value) == 2 and isinstance(value[0], str):
        role, content = value
        return _cls_for(role)(content)
    if isinstance(value, dict):
        data = dict(value)
        role = data.pop("role", None) or data.pop("type", None)
        if role is None:
            raise ValueError(f"a message dict needs a 'role' (user, assistant, system, tool): got {value!r}")
        content = data.pop("content", "")
        return _cls_for(role)(content, **data)
    raise TypeError(
        f"cannot turn {type(value).__name__} into a message: use a message object, "
        "a {'role': ..., 'content': ...} dict, a (role, content) pair or a string"
    )


def _cls_for(role: str) -> type[BaseMessage]:
    try:
        return _ROLES[role]
    except KeyError:
        raise ValueError(
            f"unknown message role {role!r}: use one of {', '.join(sorted(_ROLES))}"
        ) from None


def _as_list(value: Any) -> list[Any]:
    if value is None or value is MISSING:
        return []
    if isinstance(value, (list, tuple)) and not (
        len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], str) and isinstance(value, tuple)
    ):
        return list(value)
    return [value]


def _fold(left: Any, writes: Sequence[Any]) -> tuple[list[BaseMessage], list[BaseMessage] | None]:
    """Merge a superstep's message writes; says what was appended when nothing was replaced."""
    cached = _INDEXES.get(id(left))
    if cached is not None and cached[0] is left and cached[2] == len(left):
        merged, index, converted = list(left), dict(cached[1]), False
    else:
        merged = list(_as_list(left))
        converted = any(not isinstance(m, BaseMessage) for m in merged)
        if converted:
            merged = [to_message(m) for m in merged]
        index = {m.id: i for i, m in enumerate(merged) if m.id is not None}
    appended: list[BaseMessage] | None = []
    removed: set[str] = set()
    for write in writes:
        for raw in _as_list(write):
            msg = to_message(raw)
            if msg.id is None:
                msg.id = str(uuid.uuid4())
            if isinstance(msg, RemoveMessage):
                if msg.id == REMOVE_ALL_MESSAGES:  # everything before it goes, this write's earlier ones too
                    merged, index, removed, appended = [], {}, set(), None
                    continue
                if msg.id not in index:
                    raise ValueError(
                        f"RemoveMessage(id={msg.id!r}): no message with that id is in the state"
                    )
                removed.add(msg.id)
                appended = None
                continue
            if msg.id in index and merged[index[msg.id]].id != msg.id:  # list changed in place
                index = {m.id: i for i, m in enumerate(merged) if m.id is not None}
            if msg.id in index:
                merged[index[msg.id]] = msg
                removed.discard(msg.id)
                appended = None
            else:
                index[msg.id] = len(merged)
                merged.append(msg)
                if appended is not None:
                    appended.append(msg)
    if removed:
        merged = [m for m in merged if m.id not in removed]
    else:
        _remember_index(merged, index)
    if converted or left is MISSING or type(left) is not list:
        appended = None
    return merged, appended


_INDEXES: dict[int, tuple[list[BaseMessage], dict[str, int], int]] = {}
"""id(list) -> (that list, its id -> position index, its length) for the lists add_messages
returned last: the next step starts from a copy instead of re-reading every message."""


def _remember_index(merged: list[BaseMessage], index: dict[str, int]) -> None:
    if len(_INDEXES) >= 16:
        _INDEXES.pop(next(iter(_INDEXES)))
    _INDEXES[id(merged)] = (merged, index, len(merged))


def add_messages(left: Any, right: Any) -> list[BaseMessage]:
    """Append messages, give the ones without an id a new id, and replace in place a
    message whose id already exists (RemoveMessage deletes one)."""
    return _fold(left, [right])[0]


add_messages.fold_writes = _fold  # type: ignore[attr-defined]


class MessagesState(TypedDict):
    """A state with one key, `messages`, merged by add_messages."""

    messages: Annotated[list[AnyMessage], add_messages]
