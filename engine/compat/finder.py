"""The import finder that answers `langgraph.*` with the engine's modules.

Each `langgraph.M` is a small module whose names are resolved on first use from the
engine modules of its chain (layout.py). A name or module the engine lacks raises an error
that says so; nothing is ever handed to another finder, so an installed LangGraph is never
imported while the finder is on.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import types
from typing import Any

from .deprecated_names import moved_name, old_module, private_constant
from .layout import OPTIONAL, PUBLIC, chain, is_internal, served_private

__all__ = ["CompatFinder", "CompatModule", "MARK", "not_supported", "served"]

MARK = "__retrograph_compat__"
"""Attribute set on every module the finder makes."""

LOCATION = "served by Retrograph's engine; a name not found here is not supported yet by Retrograph"
"""The modules' `__file__`: Python quotes it in `cannot import name X from langgraph.M (...)`."""


def not_supported(what: str) -> str:
    return (f"`{what}` is not supported yet by Retrograph (the engine serves `langgraph` imports "
            "while engine.compat is installed); use the engine's own API or remove that import")


def _engine_module(name: str) -> types.ModuleType | None:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            return None
        raise


def _exported(mod: types.ModuleType) -> list[str]:
    names = getattr(mod, "__all__", None)
    if names is not None:
        return list(names)
    return [n for n, v in vars(mod).items() if not n.startswith("_") and not isinstance(v, types.ModuleType)]


def served(sub: str) -> bool:
    """Whether `langgraph.<sub>` is answered (an existing engine module backs it)."""
    if served_private(sub):
        return True
    if is_internal(sub) or sub not in PUBLIC:
        return False
    for area, module in OPTIONAL.items():
        if sub == area or sub.startswith(area + "."):
            return _engine_module(module) is not None
    return True


class CompatModule(types.ModuleType):
    """`langgraph.<sub>`: names come from the chain of engine modules, looked up lazily."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name != "__all__":
            raise AttributeError(name)
        sub = self.__name__[len("langgraph."):] if "." in self.__name__ else ""
        found, value = moved_name(sub, name)
        if found:
            return value
        mods = [m for m in (_engine_module(n) for n in chain(sub)) if m is not None]
        if name == "__all__":
            return list(dict.fromkeys(n for m in mods for n in _exported(m)))
        for mod in mods:
            if name in _exported(mod):
                value = getattr(mod, name)
                setattr(self, name, value)
                return value
        found, value = private_constant(sub, name)
        if found:
            return value
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}: "
                             + not_supported(f"{self.__name__}.{name}"))

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self.__getattr__("__all__")))

    # A constant patched here (`unittest.mock.patch("langgraph.x.LIMIT", 3)`) is patched
    # where the engine reads it too, as patching LangGraph's module changes LangGraph's
    # behaviour; undoing the patch (a set back or a delete) restores the engine's value.
    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if not name.startswith("__"):
            for target, attr in _homes(self, name):
                _ORIGINALS.setdefault((id(target), attr), getattr(target, attr))
                setattr(target, attr, value)

    def __delattr__(self, name: str) -> None:
        super().__delattr__(name)
        if not name.startswith("__"):
            for target, attr in _homes(self, name):
                if (id(target), attr) in _ORIGINALS:
                    setattr(target, attr, _ORIGINALS.pop((id(target), attr)))


_ORIGINALS: dict[tuple[int, str], Any] = {}
"""(id of an engine module, attribute) -> its value before a patch was forwarded to it."""


def _homes(module: types.ModuleType, name: str) -> list[tuple[types.ModuleType, str]]:
    """Where the engine reads the served `name` of `module`, when a patch of it must go
    there too: a constant (an upper-case name) of a chain module that exports it, or what a
    chain module's `__patched_in__` names for it (a module, or `(module name, attribute)`)."""
    sub = module.__name__[len("langgraph."):] if "." in module.__name__ else ""
    homes: list[tuple[types.ModuleType, str]] = []
    for mod in (m for m in (_engine_module(n) for n in chain(sub)) if m is not None):
        if name not in _exported(mod):
            continue
        home = vars(mod).get("__patched_in__", {}).get(name)
        if isinstance(home, tuple):
            homes.append((importlib.import_module(home[0]), home[1]))
        elif isinstance(home, types.ModuleType):
            homes.append((home, name))
        elif name.isupper():
            homes.append((mod, name))
    return homes


class _Loader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = CompatModule(spec.name)
        module.__file__ = LOCATION
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        setattr(module, MARK, True)
        module.__path__ = []  # a package: its submodules come from the finder only
        old_module(module.__name__[len("langgraph."):])


class CompatFinder(importlib.abc.MetaPathFinder):
    """Put first on sys.meta_path by `install()`; owns every `langgraph` module name."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "langgraph" and not fullname.startswith("langgraph."):
            return None
        sub = fullname[len("langgraph."):] if fullname != "langgraph" else ""
        if not served(sub):
            raise ModuleNotFoundError(not_supported(fullname), name=fullname)
        return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)
