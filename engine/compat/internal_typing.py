"""The names of LangGraph's private `langgraph._internal._typing` that the agent libraries
import (langgraph-supervisor and langgraph-swarm type their `**deprecated_kwargs` with it)."""
from __future__ import annotations

from typing import TypedDict

__all__ = ["DeprecatedKwargs", "MISSING"]


class DeprecatedKwargs(TypedDict):
    """The extra keyword arguments a function accepts only to warn that they are deprecated."""


MISSING = object()
"""A default that tells "not given" apart from None."""
