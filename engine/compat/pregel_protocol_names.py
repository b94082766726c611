"""`langgraph.pregel.protocol`'s `StreamProtocol`: a stream sink (a callable taking a
stream chunk) and the stream modes it wants, as LangGraph's runner hands one to a task
(through its config) so that code inside can write stream chunks."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["StreamProtocol"]


class StreamProtocol:
    """`StreamProtocol(put, modes)`: calling it calls `put(chunk)`; `modes` says which
    stream modes it takes (a chunk is `(namespace, mode, payload)`)."""

    __slots__ = ("modes", "__call__")

    modes: set[str]
    __call__: Callable[[Any], None]

    def __init__(self, __call__: Callable[[Any], None], modes: set[str]) -> None:  # noqa: N803 - LangGraph's name
        self.__call__ = __call__
        self.modes = modes
