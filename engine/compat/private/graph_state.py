"""`langgraph.graph.state`'s private `_warn_invalid_state_schema` (LangGraph's tests and
schema helpers call it): the engine's own check, which `StateGraph()` runs on its schemas."""
from __future__ import annotations

from ...graph.schema_warning import warn_invalid_state_schema as _warn_invalid_state_schema

__all__ = ["_warn_invalid_state_schema"]
