"""LangSmith tracing without config callbacks, and the run tree a node sees.

LangChain traces a run to LangSmith when tracing is turned on by environment variable
(`LANGSMITH_TRACING=true`, ...) or `langsmith.tracing_context(enabled=True)`, even with no
`callbacks` in the config; a graph run then traces too (`tracing_requested`). Inside a
node, `langsmith.get_current_run_tree()` is the node's own run, as in LangGraph: the
config variable a node runs under (`ChildConfigVar`) also sets LangSmith's parent run.
Nothing here imports langchain-core or langsmith unless they are already in use.
"""
from __future__ import annotations

import os
import sys
from contextvars import Token
from typing import Any

__all__ = ["tracing_requested", "ChildConfigVar"]

_ENV = ("LANGSMITH_TRACING", "LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING")


def tracing_requested() -> bool:
    """Whether langchain-core would trace a run given no callbacks (LangSmith tracing on)."""
    if "langsmith" not in sys.modules and not any(os.environ.get(k, "").lower() == "true" for k in _ENV):
        return False
    try:
        from langchain_core.tracers import context  # noqa: PLC0415
    except ImportError:
        return False
    enabled = getattr(context, "_tracing_v2_is_enabled", None) or getattr(context, "tracing_v2_is_enabled", None)
    return bool(enabled()) if enabled is not None else False


class ChildConfigVar:
    """langchain-core's "config of the running step" variable, set around a node; setting it
    also makes the node's LangSmith run the current run tree (when a LangChain tracer runs)."""

    def __init__(self) -> None:
        from langchain_core.runnables.config import var_child_runnable_config  # noqa: PLC0415

        self._var = var_child_runnable_config
        self._previous: dict[int, dict[str, Any]] = {}
        """id(token) -> LangSmith's tracing context before `set` (one run's tasks at most)."""

    def set(self, config: Any) -> Token[Any]:
        from langchain_core.runnables.config import _set_config_context  # noqa: PLC0415

        token: Token[Any]
        token, previous = _set_config_context(config)
        if previous is not None:
            self._previous[id(token)] = previous
        return token

    def reset(self, token: Token[Any]) -> None:
        self._var.reset(token)
        previous = self._previous.pop(id(token), None)
        if previous is not None:
            from langsmith.run_helpers import _set_tracing_context  # noqa: PLC0415

            _set_tracing_context(previous)
