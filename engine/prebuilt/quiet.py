"""Whether a langchain-core run started now would be seen by anyone.

langchain-core tells a run's start and end to the handlers of its callback manager; it
adds its own handlers only in debug mode (`set_debug(True)`), when LangSmith tracing is on
(its environment variables, `tracing_v2_enabled()`, a `@traceable` parent or
`tracing_context(enabled=True)`) or when a configure hook is active (`collect_runs()` and
any `register_configure_hook` variable or its environment variable). With none of those
and no handler in the call's callbacks, a chain run's manager, ids and events go nowhere:
`silent(config)` is True and the agent's own layers (a `RunnableCallable` node, the
`prompt | model` sequence) may skip making them. The model and tools still make their own.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from langchain_core.runnables.config import var_child_runnable_config

__all__ = ["silent", "handlers_in"]

_FALSE = ("", "0", "false", "False")
_probes: tuple[Any, ...] | None = None


def _load_probes() -> tuple[Any, ...]:
    """langchain-core's own tests, imported on first use (they import langsmith)."""
    global _probes
    if _probes is None:
        from langchain_core.globals import get_debug
        from langchain_core.tracers.context import _configure_hooks, _tracing_v2_is_enabled
        _probes = (get_debug, _tracing_v2_is_enabled, _configure_hooks)
    return _probes


def handlers_in(callbacks: Any) -> bool:
    """Whether `callbacks` (None, a list of handlers or a callback manager) holds a handler."""
    if callbacks is None:
        return False
    if isinstance(callbacks, list):
        return bool(callbacks)
    return bool(getattr(callbacks, "handlers", True) or getattr(callbacks, "inheritable_handlers", True))


def _env_set(name: str) -> bool:
    return os.environ.get(name, "") not in _FALSE


def silent(config: Mapping[str, Any] | None) -> bool:
    """True when a chain run made with `config` (and the ambient config) reaches no handler."""
    if config is not None and handlers_in(config.get("callbacks")):
        return False
    ambient = var_child_runnable_config.get()
    if ambient and handlers_in(ambient.get("callbacks")):
        return False
    get_debug, tracing_on, hooks = _probes or _load_probes()
    if get_debug() or tracing_on():
        return False
    if _env_set("LANGCHAIN_TRACING") or _env_set("LANGCHAIN_HANDLER"):
        return False  # langchain-core raises its own error for these: let it
    for var, _inheritable, handler_class, env_var in hooks:
        if var.get() is not None or (env_var is not None and handler_class is not None and _env_set(env_var)):
            return False
    return True
