"""The names of LangGraph's private `langgraph._internal._typing` that the agent libraries
import (langgraph-supervisor and langgraph-swarm type their `**deprecated_kwargs` with it),
and MISSING, the absence sentinel LangGraph's channel classes take and give (the engine's own)."""
from __future__ import annotations

from typing import TypedDict

from ..channels import MISSING

__all__ = ["DeprecatedKwargs", "MISSING"]


class DeprecatedKwargs(TypedDict):
    """The extra keyword arguments a function accepts only to warn that they are deprecated."""

