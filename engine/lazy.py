"""Packages whose public names load on first use (PEP 562 module `__getattr__`).

A package lists where each of its names comes from; `lazy_exports` gives it the
`__getattr__` and `__dir__` that import the right module when a name is first asked for
(`from engine import StateGraph`, `engine.checkpoint.SqliteSaver`) and keep the value in
the package, so the second use is a plain attribute. Importing the package itself imports
none of those modules: `import engine` costs one small module, and a program loads only
what it uses (issue 24).
"""
from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, sources: Mapping[str, tuple[str, ...]], *,
                 uncached: frozenset[str] = frozenset(),
                 submodules: bool = False) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The `(__getattr__, __dir__)` of `package`, whose names come from `sources`: a map
    from a module (relative to the package, e.g. ".graph") to the names it provides.
    A name in `uncached` is looked up again each time (its module chooses the value when
    asked). With `submodules`, an attribute naming a submodule (`engine.checkpoint`)
    imports it, as an eagerly imported package would have it already set."""
    where: dict[str, str] = {}
    for module, names in sources.items():
        for name in names:
            if name in where:
                raise ValueError(f"{package}: {name!r} is listed under both {where[name]!r} and {module!r}")
            where[name] = module

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is not None:
            value = getattr(importlib.import_module(module, package), name)
            if name not in uncached:
                setattr(sys.modules[package], name, value)
            return value
        if submodules and not name.startswith("_"):
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return __getattr__, __dir__
