"""The names of LangGraph's `langgraph.prebuilt.chat_agent_executor` that agent libraries
import beside `create_react_agent`, and that the engine's own prebuilt API has no use for
under these spellings: the prompt and schema type aliases langgraph-supervisor types its
arguments with, and `_should_bind_tools`, which it calls to decide whether its handoff
tools still need binding to the supervisor's model."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias, TypeVar

from ..prebuilt.agent_parts import AgentState, AgentStatePydantic, Prompt, StructuredResponseSchema, should_bind_tools

__all__ = ["Prompt", "StateSchema", "StateSchemaType", "StructuredResponseSchema", "_should_bind_tools"]

StateSchema = TypeVar("StateSchema", bound=AgentState | AgentStatePydantic)
"""An agent's state schema: AgentState, AgentStatePydantic or a subclass of either."""
StateSchemaType: TypeAlias = type[Any]
"""The class given as `state_schema=` (a subclass of AgentState or AgentStatePydantic)."""


def _should_bind_tools(model: Any, tools: Sequence[Any], num_builtin: int = 0) -> bool:
    """Whether `tools` still need `model.bind_tools(...)`: False when the model has them
    bound already (then they must be the same tools, else ValueError)."""
    return should_bind_tools(model, tools, builtin=num_builtin)
