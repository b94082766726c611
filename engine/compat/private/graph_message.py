"""`langgraph.graph.message._messages_delta_reducer`: LangGraph's experimental batch reducer
for a messages key kept in a `DeltaChannel` (`Annotated[list, DeltaChannel(reducer)]`).

It takes the list so far and a superstep's writes at once (each write one message-like or
a list of them: messages, dicts, strings, tuples, converted by langchain-core) and gives:
after the last `RemoveMessage(id=REMOVE_ALL_MESSAGES)` only what follows it; a message
whose id is already there replaces it in place; a `RemoveMessage` drops its id (an unknown
id is ignored); any other message is appended (one without an id too: no ids are made
up). Folding writes in one call or in several gives the same list, as a DeltaChannel needs."""
from __future__ import annotations

from typing import Any

from ...messages import REMOVE_ALL_MESSAGES

__all__ = ["_messages_delta_reducer"]


def _messages_delta_reducer(state: list[Any] | None, writes: list[Any]) -> list[Any]:
    """The messages after `writes` (see the module doc)."""
    from langchain_core.messages import BaseMessage, RemoveMessage, convert_to_messages  # noqa: PLC0415

    incoming: list[Any] = []
    for write in writes:
        if isinstance(write, list):
            incoming.extend(write)
        else:
            incoming.append(write)
    current = list(state or [])
    if current and not isinstance(current[0], BaseMessage):
        current = convert_to_messages(current)
    new = convert_to_messages(incoming)
    cut = next((i for i in range(len(new) - 1, -1, -1)
                if isinstance(new[i], RemoveMessage) and new[i].id == REMOVE_ALL_MESSAGES), None)
    if cut is not None:
        current, new = [], new[cut + 1:]
    slots: list[Any] = list(current)
    where = {m.id: i for i, m in enumerate(current) if m.id is not None}
    for message in new:
        mid = message.id
        if mid is None:
            slots.append(message)
        elif isinstance(message, RemoveMessage):
            at = where.pop(mid, None)
            if at is not None:
                slots[at] = None
        elif mid in where:
            slots[where[mid]] = message
        else:
            where[mid] = len(slots)
            slots.append(message)
    return [m for m in slots if m is not None]
