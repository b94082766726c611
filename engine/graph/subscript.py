"""`CompiledStateGraph[State, Context, Input, Output]` and `StateGraph[...]` in annotations.

LangGraph's graph classes are generic over their state, context, input and output schemas,
and code built on it (langchain's `create_agent` and its users) writes those parameters in
annotations that Python evaluates at import time. The engine's classes take their schemas
as constructor arguments instead, so a subscript only has to give a valid annotation: a
`types.GenericAlias` over the class, which the engine never checks against anything.
"""
from __future__ import annotations

import types
from typing import Any

__all__ = ["annotation_alias"]


def annotation_alias(cls: type, params: Any) -> types.GenericAlias:
    """The alias `cls[params]`; `get_origin()` of it is `cls`, so it still names the class."""
    return types.GenericAlias(cls, params)
