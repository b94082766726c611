"""Old import spellings LangGraph still answers, with a deprecation warning each time.

- `from langgraph.constants import Send` (or `Interrupt`): the class of `langgraph.types`;
- `from langgraph.constants import PREVIOUS` (or another of LangGraph's now private
  constants the engine knows): its value;
- `import langgraph.pregel.types`: the module of `langgraph.types`' names, warning once
  when it is first imported.

The finder (finder.py) asks `old_name(sub, name)` before a name's normal lookup fails,
and `old_module(sub)` when it makes a module; a value found here is not cached on the
module, so every import warns, as in LangGraph.
"""
from __future__ import annotations

import importlib
from typing import Any

from ..warnings import deprecated

__all__ = ["MOVED", "PRIVATE_CONSTANTS", "OLD_MODULES", "moved_name", "private_constant", "old_module"]

MOVED: dict[tuple[str, str], str] = {("constants", "Send"): "types", ("constants", "Interrupt"): "types"}
"""(module, name) -> the module (under `langgraph.`) the name moved to."""

PRIVATE_CONSTANTS: dict[str, str] = {"PREVIOUS": "__previous__"}
"""Constants LangGraph made private (beyond the served ones of compat/internal_names.py)."""

OLD_MODULES: dict[str, str] = {"pregel.types": "types"}
"""Modules that only re-export another's names (served by that one's chain), with their new place."""


def moved_name(sub: str, name: str) -> tuple[bool, Any]:
    """(True, value) for a name imported from the module it moved away from (warns)."""
    new = MOVED.get((sub, name))
    if new is None:
        return False, None
    deprecated(f"Importing {name} from langgraph.{sub} is deprecated. "
               f"Please use 'from langgraph.{new} import {name}' instead.", "1.0", stacklevel=3)
    return True, getattr(importlib.import_module(f"langgraph.{new}"), name)


def private_constant(sub: str, name: str) -> tuple[bool, Any]:
    """(True, value) for a now private constant imported from `langgraph.constants` (warns)."""
    if sub != "constants":
        return False, None
    internal_names = importlib.import_module(f"{__package__}.internal_names")
    if name in PRIVATE_CONSTANTS:
        value = PRIVATE_CONSTANTS[name]
    elif name in internal_names.__all__:
        value = getattr(internal_names, name)
    else:
        return False, None
    deprecated(f"Importing {name} from langgraph.constants is deprecated. This constant is now private and "
               "should not be used directly. Please let the LangGraph team know if you need this value.",
               "1.0", stacklevel=3)
    return True, value


def old_module(sub: str) -> None:
    """Warn when a module kept only for its old name is imported."""
    new = OLD_MODULES.get(sub)
    if new is not None:
        deprecated(f"Importing from langgraph.{sub} is deprecated. "
                   f"Please use 'from langgraph.{new} import ...' instead.", "1.0", stacklevel=4)
