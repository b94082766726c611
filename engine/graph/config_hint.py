"""A node's `config` parameter must be hinted as a RunnableConfig (or not at all).

The engine hands a node its run config when the node has a `config` parameter; a hint of
another type (`dict`, `Any`) is most likely a mistake carried from older code, and draws
a UserWarning when the node is added, as in LangGraph.
"""
from __future__ import annotations

import inspect
import types
import typing
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["check_config_hint"]

_NAMED = frozenset({"RunnableConfig", "Optional[RunnableConfig]", "RunnableConfig | None",
                    "Union[RunnableConfig, None]"})


def _is_config_type(hint: Any) -> bool:
    if hint is inspect.Parameter.empty:
        return True
    if isinstance(hint, str):
        return hint.replace("typing.", "").strip() in _NAMED
    if getattr(hint, "__name__", None) == "RunnableConfig" and isinstance(hint, type):
        return True
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return len(args) == 1 and _is_config_type(args[0])
    return False


def check_config_hint(fn: Callable[..., Any]) -> None:
    """Warn (UserWarning, at the add_node call) when fn's `config` parameter has another hint."""
    try:
        param = inspect.signature(fn).parameters.get("config")
    except (TypeError, ValueError):
        return
    if param is None or param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
        return
    if not _is_config_type(param.annotation):
        warnings.warn(f"The 'config' parameter should be typed as 'RunnableConfig' or 'RunnableConfig | None', "
                      f"not '{param.annotation}'. The node still receives its config.", UserWarning, stacklevel=3)
