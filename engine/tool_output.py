"""A `Command` returned by a langchain-core tool comes back as the Command.

langchain-core hands a tool's return value back untouched (instead of wrapping it in a
`ToolMessage`) when it is a `ToolOutputMixin`, and LangGraph's `Command` is one. The engine
does not import langchain-core to define `Command` (a bare install has none, and the import
is slow), so `Command` starts on a stand-in base, `ToolOutputBase`, that is swapped for
langchain-core's `ToolOutputMixin` the moment `langchain_core.messages.tool` is loaded:
at once if it already is, else right after its import (a one-shot import hook). The class
stays the same object, so `isinstance(x, Command)` and `isinstance(x, ToolOutputMixin)`
both hold whatever the import order.
"""
from __future__ import annotations

import importlib.machinery
import sys
import types
from collections.abc import Sequence
from typing import Any

__all__ = ["ToolOutputBase", "LANGCHAIN_TOOL_MODULE", "adopt_tool_output_mixin"]

LANGCHAIN_TOOL_MODULE = "langchain_core.messages.tool"
"""The langchain-core module that defines `ToolOutputMixin`."""


class ToolOutputBase:
    """Stand-in base of the classes a tool may return as they are (the engine's `Command`),
    until langchain-core's `ToolOutputMixin` replaces it."""


_adopters: list[type] = []


def _swap_bases(mixin: type) -> None:
    for cls in _adopters:
        if ToolOutputBase in cls.__bases__:
            cls.__bases__ = tuple(mixin if b is ToolOutputBase else b for b in cls.__bases__)


def _on_loaded(module: types.ModuleType) -> None:
    mixin = getattr(module, "ToolOutputMixin", None)
    if isinstance(mixin, type):
        _swap_bases(mixin)


class _ThenLoader:
    """Runs the real loader, then `_on_loaded` on the module it made (a loader by its
    methods: importlib.abc is not imported, it costs milliseconds at `import engine`)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self._inner.create_module(spec)  # type: ignore[no-any-return]

    def exec_module(self, module: types.ModuleType) -> None:
        self._inner.exec_module(module)
        _on_loaded(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _Watcher:
    """Wraps the loader of `langchain_core.messages.tool` once, then leaves sys.meta_path."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != LANGCHAIN_TOOL_MODULE:
            return None
        _unwatch()
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _ThenLoader(spec.loader)  # type: ignore[assignment]
        return spec


_watcher = _Watcher()


def _unwatch() -> None:
    while _watcher in sys.meta_path:
        sys.meta_path.remove(_watcher)


def adopt_tool_output_mixin(cls: type) -> None:
    """Make `cls` (a subclass of ToolOutputBase) a langchain-core ToolOutputMixin as soon as
    langchain-core's tool module is loaded; does nothing more on a bare install."""
    if ToolOutputBase not in cls.__bases__:
        raise TypeError(f"{cls.__qualname__} must list ToolOutputBase among its bases to adopt ToolOutputMixin")
    _adopters.append(cls)
    loaded = sys.modules.get(LANGCHAIN_TOOL_MODULE)
    if loaded is not None and hasattr(loaded, "ToolOutputMixin"):
        _on_loaded(loaded)
    elif _watcher not in sys.meta_path:
        sys.meta_path.insert(0, _watcher)
