"""Messages written to a DeltaChannel get ids before the reducer sees them.

A delta reducer need not assign message ids, and LangGraph stamps them on the writes
so a message keeps one id for good (and `RemoveMessage` can target it): a message
object without an id gets a new uuid4; a message dict inside a written list becomes a
message with an id (a dict that is not a valid message raises); a message dict written
alone gets an `id` key (a copy; the caller's dict is not changed). Lists are copied when
an item changes; other values pass through. Under an Overwrite only message objects are
stamped.
"""
from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from ...channels.reducer import overwrite_value
from ...messages_lc import available, convert, module

__all__ = ["stamping_ids"]

_ROLE_KEYS = ("role", "type")


def _is_message_dict(value: Any) -> bool:
    return isinstance(value, dict) and "content" in value and any(k in value for k in _ROLE_KEYS)


def _stamp(item: Any, base: Any) -> Any:
    if isinstance(item, base) and not item.id:
        item.id = str(uuid.uuid4())
    return item


def _list_item(item: Any, base: Any) -> Any:
    if _is_message_dict(item):
        message = convert(item)
        if not message.id:
            message.id = str(uuid.uuid4())
        return message
    return _stamp(item, base)


def with_ids(value: Any) -> Any:
    """`value` with the message ids a delta write gets (see the module docstring)."""
    base = module().BaseMessage
    is_ow, inner = overwrite_value(value)
    if is_ow:
        for item in inner if isinstance(inner, (list, tuple)) else ():
            _stamp(item, base)
        return value
    if isinstance(value, list):
        mapped = [_list_item(item, base) for item in value]
        return value if all(a is b for a, b in zip(mapped, value)) else mapped
    if _is_message_dict(value) and not value.get("id"):
        return {**value, "id": str(uuid.uuid4())}
    return _stamp(value, base)


def stamping_ids(reducer: Callable[[Any, Sequence[Any]], Any]) -> Callable[[Any, Sequence[Any]], Any]:
    """`reducer`, given writes whose messages have ids (only when langchain-core is installed)."""
    if not available():
        return reducer

    @functools.wraps(reducer)
    def fold(state: Any, writes: Sequence[Any]) -> Any:
        return reducer(state, [with_ids(w) for w in writes])

    return fold
