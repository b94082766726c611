"""MessageGraph: a StateGraph whose whole state is a list of messages (deprecated in LangGraph 1.0).

Its state is `Annotated[list, add_messages]`: a node receives the list and returns
messages to add (or to replace, by id). New code uses a StateGraph with a `messages`
key (`MessagesState`); constructing one warns, as LangGraph does.
"""
from __future__ import annotations

from typing import Annotated

from ..messages import add_messages
from ..warnings import deprecated
from .builder import StateGraph

__all__ = ["MessageGraph"]


class MessageGraph(StateGraph):
    """A graph whose state is the message list itself."""

    def __init__(self) -> None:
        deprecated("MessageGraph is deprecated in LangGraph v1.0.0, to be removed in v2.0.0. "
                   "Please use StateGraph with a `messages` key instead.", "1.0")
        super().__init__(Annotated[list, add_messages])
