"""`langgraph.typing`: the type variables LangGraph code annotates with (langchain's
middleware is generic in ContextT, StateT, ...). Plain TypeVars with LangGraph's variance
and defaults; they carry no behaviour."""
from __future__ import annotations

from typing import Any

from typing_extensions import TypeVar

__all__ = ["StateLike", "StateT", "StateT_co", "StateT_contra", "ContextT", "ContextT_contra",
           "InputT", "OutputT", "NodeInputT", "NodeInputT_contra"]

StateLike = Any
"""What a state schema may be: a TypedDict, a dataclass, a pydantic model."""

StateT = TypeVar("StateT")
StateT_co = TypeVar("StateT_co", covariant=True)
StateT_contra = TypeVar("StateT_contra", contravariant=True)
ContextT = TypeVar("ContextT", default=None)
ContextT_contra = TypeVar("ContextT_contra", contravariant=True, default=None)
InputT = TypeVar("InputT")
OutputT = TypeVar("OutputT")
NodeInputT = TypeVar("NodeInputT")
NodeInputT_contra = TypeVar("NodeInputT_contra", contravariant=True)
