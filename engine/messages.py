"""Chat messages in the state: the `add_messages` reducer and `MessagesState`.

One message layer: with langchain-core installed, its message classes are the state's
messages (what chat models and tools expect; messages_lc.py); without it, the engine's
own (message_types.py). `engine.HumanMessage` and friends name the active layer's classes.
`add_messages` turns every input form into them: message objects, chunks (merged into
a message), `{"role"/"type", "content"}` dicts (OpenAI's tool-call form included),
`(role, content)` pairs and strings.
"""
from __future__ import annotations

import functools
import inspect
import sys
import uuid
from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypedDict

from .message_types import ROLES as _ROLES
from .message_types import BaseMessage as _OwnBase
from .message_types import HumanMessage as _OwnHuman
from .message_types import RemoveMessage as _OwnRemove
from .messages_lc import available as _lc_available
from .messages_lc import convert as _lc_convert
from .messages_lc import module as _lc_module
from .channels import MISSING

__all__ = [
    "BaseMessage",
    "HumanMessage",
    "AIMessage",
    "SystemMessage",
    "ToolMessage",
    "RemoveMessage",
    "AnyMessage",
    "add_messages",
    "is_add_messages",
    "MessagesState",
    "to_message",
    "REMOVE_ALL_MESSAGES",
    "uses_langchain",
    "push_message",
]

REMOVE_ALL_MESSAGES = "__remove_all__"
"""`RemoveMessage(id=REMOVE_ALL_MESSAGES)` clears the list; the messages after it stay."""

_LAYERED = ("BaseMessage", "HumanMessage", "AIMessage", "SystemMessage", "ToolMessage", "RemoveMessage")


def uses_langchain() -> bool:
    """Whether the state's messages are langchain-core's (it is installed)."""
    return _lc_available()


def __getattr__(name: str) -> Any:  # the active layer's classes, resolved on first use
    if name in _LAYERED:
        if uses_langchain():
            return getattr(_lc_module(), name)
        return getattr(sys.modules[_OwnBase.__module__], name)  # engine.message_types
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _base() -> Any:  # a class: BaseMessage of the active layer
    return _lc_module().BaseMessage if uses_langchain() else _OwnBase


def _remove() -> Any:  # a class: RemoveMessage of the active layer
    return _lc_module().RemoveMessage if uses_langchain() else _OwnRemove


def to_message(value: Any) -> Any:
    """A message of the active layer from any form add_messages accepts."""
    if uses_langchain():
        return _lc_convert(value)
    if isinstance(value, _OwnBase):
        return value
    if isinstance(value, str):
        return _OwnHuman(value)
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


def _cls_for(role: str) -> type[_OwnBase]:
    try:
        return _ROLES[role]
    except KeyError:
        raise ValueError(f"unknown message role {role!r}: use one of {', '.join(sorted(_ROLES))}") from None


def _as_list(value: Any) -> list[Any]:
    if value is None or value is MISSING:
        return []
    if isinstance(value, (list, tuple)) and not (
        len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], str) and isinstance(value, tuple)
    ):
        return list(value)
    return [value]


def _fold(left: Any, writes: Sequence[Any]) -> tuple[list[Any], list[Any] | None]:
    """Merge a superstep's message writes; says what was appended when nothing was replaced."""
    remove = _remove()
    merged, index, converted = _starting_list(left)
    appended: list[Any] | None = []
    removed: set[str] = set()
    for write in writes:
        batch = [to_message(raw) for raw in _as_list(write)]
        cut = max((i for i, m in enumerate(batch) if isinstance(m, remove) and m.id == REMOVE_ALL_MESSAGES),
                  default=None)
        if cut is not None:  # everything before the marker goes, the batch's rest stays
            merged, index, removed, appended, batch = [], {}, set(), None, batch[cut + 1:]
        for msg in batch:
            if msg.id is None:
                msg.id = str(uuid.uuid4())
            if isinstance(msg, remove):
                _check_removable(msg.id, index)
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


def _starting_list(left: Any) -> tuple[list[Any], dict[str, int], bool]:
    """(a copy of the state's messages, each with an id, its id -> position index, whether
    any had to be converted to a message): from the index kept for the list add_messages
    returned last when `left` is that list, unchanged."""
    cached = _INDEXES.get(id(left))
    if cached is not None and cached[0] is left and cached[2] == len(left):
        return list(left), dict(cached[1]), False
    base = _base()
    merged = list(_as_list(left))
    converted = any(type(m) is not base and not isinstance(m, base) or _is_chunk(m) for m in merged)
    if converted:
        merged = [to_message(m) for m in merged]
    for m in merged:
        if m.id is None:
            m.id = str(uuid.uuid4())
    return merged, {m.id: i for i, m in enumerate(merged)}, converted


def _check_removable(message_id: str, index: dict[str, int]) -> None:
    if message_id not in index:
        raise ValueError(
            f"Attempting to delete a message with an ID that doesn't exist ({message_id!r}): "
            "no message with that id is in the state"
        )


def _is_chunk(m: Any) -> bool:
    return type(m).__name__.endswith("Chunk")


_INDEXES: dict[int, tuple[list[Any], dict[str, int], int]] = {}
"""id(list) -> (that list, its id -> position index, its length) for the lists add_messages
returned last: the next step starts from a copy instead of re-reading every message."""


def _remember_index(merged: list[Any], index: dict[str, int]) -> None:
    if len(_INDEXES) >= 16:
        _INDEXES.pop(next(iter(_INDEXES)))
    _INDEXES[id(merged)] = (merged, index, len(merged))


def _openai_format(messages: list[Any]) -> list[Any]:
    if not uses_langchain():
        raise ValueError("add_messages(format='langchain-openai') needs langchain-core: pip install 'retrograph[langchain]'")
    lc = _lc_module()
    converted: list[Any] = lc.convert_to_messages(lc.convert_to_openai_messages(messages))
    return converted


def add_messages(left: Any = MISSING, right: Any = MISSING, *, format: str | None = None) -> Any:
    """Append messages, give the ones without an id a new id, and replace in place a
    message whose id already exists (RemoveMessage deletes one; RemoveMessage with
    REMOVE_ALL_MESSAGES clears the list). `add_messages(format="langchain-openai")` gives
    a reducer that also puts the contents in OpenAI's format, as LangGraph's does."""
    if format is not None and format != "langchain-openai":
        raise ValueError(f"add_messages: unknown format {format!r}; the one supported is 'langchain-openai'")
    if left is MISSING and right is MISSING:
        return _formatted(format) if format else add_messages
    merged = _fold(left, [right])[0]
    return _openai_format(merged) if format else merged


@functools.lru_cache(maxsize=None)
def _formatted(format: str) -> Callable[[Any, Any], Any]:
    def reducer(left: Any, right: Any) -> Any:
        return add_messages(left, right, format=format)

    reducer.__name__ = reducer.__qualname__ = "add_messages"
    reducer.__wrapped__ = add_messages  # type: ignore[attr-defined]  # what it is, for inspect.unwrap
    return reducer


add_messages.fold_writes = _fold  # type: ignore[attr-defined]


def is_add_messages(reducer: Any) -> bool:
    """Whether `reducer` is `add_messages` (or its `format=` variant), told by identity,
    not by name: a user's own function called add_messages is not it."""
    return reducer is not None and inspect.unwrap(reducer) is add_messages

AnyMessage = _OwnBase
"""The annotation of MessagesState's list (the items are the active layer's messages)."""


class MessagesState(TypedDict):
    """A state with one key, `messages`, merged by add_messages."""

    messages: Annotated[list[AnyMessage], add_messages]


def push_message(message: Any, *, state_key: str | None = "messages") -> Any:
    """Send `message` to the `messages` stream now, from inside a node, and (unless
    `state_key` is None) write it to that state key as if the node had returned it.
    The message needs an id (the stream and the reducer key messages by it)."""
    from .runtime.context import current_task

    ctx = current_task.get()
    if ctx is None:
        raise RuntimeError("push_message() can only be called inside a node while a graph runs it")
    message = to_message(message)
    if getattr(message, "id", None) is None:
        raise ValueError("Message ID is required: give the message an id, e.g. AIMessage(content=..., id='m1')")
    callbacks = ctx.config.get("callbacks")
    handlers = getattr(callbacks, "handlers", callbacks) or ()
    for handler in handlers:
        push = getattr(handler, "push", None)
        if push is not None and type(handler).__name__ == "MessagesHandler":
            push(message, ctx.config.get("metadata") or {})
    if state_key:
        if ctx.pushed is None:
            ctx.pushed = []
        ctx.pushed.append((state_key, message))
    return message
