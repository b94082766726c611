"""A faster `__init__` for the engine's frozen dataclass records.

A frozen dataclass's generated `__init__` sets each field with `object.__setattr__`, one
call per field; `Checkpoint` (a dozen fields) is built on every superstep, so that was a
noticeable share of a superstep's cost. `fast_frozen_init` replaces it with one that
builds the instance's dict in one go: the same signature, defaults, default factories
and errors, a fraction of the work. Classes it cannot serve as the dataclass would (a
`__post_init__`, fields left out of `__init__`, `__slots__`) keep their own.
"""
from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["fast_frozen_init"]

T = TypeVar("T")

class _Factory:
    """The default of a field with a default factory (shown as dataclasses show it)."""

    def __repr__(self) -> str:
        return "<factory>"


_MISSING = _Factory()


def fast_frozen_init(cls: type[T]) -> type[T]:
    """Class decorator, applied above `@dataclass(frozen=True)`."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" in cls.__dict__ or hasattr(cls, "__post_init__"):
        return cls
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if any(not f.init for f in fields):
        return cls
    namespace: dict[str, Any] = {"_set": object.__setattr__, "_MISSING": _MISSING}
    positional: list[str] = []
    keyword: list[str] = []
    factories: list[str] = []
    for f in fields:
        if f.default is not dataclasses.MISSING:
            namespace[f"_d_{f.name}"] = f.default
            param = f"{f.name}=_d_{f.name}"
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"_f_{f.name}"] = f.default_factory
            param = f"{f.name}=_MISSING"
            factories.append(f"    if {f.name} is _MISSING:\n        {f.name} = _f_{f.name}()\n")
        else:
            param = f.name
        (keyword if f.kw_only else positional).append(param)
    signature = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    body = "".join(factories) + "    _set(self, '__dict__', {" + ", ".join(f"{f.name!r}: {f.name}" for f in fields) + "})\n"
    exec(f"def __init__({signature}):\n{body}", namespace)  # noqa: S102 - code built from the class's own field names
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(getattr(cls.__init__, "__annotations__", {}))
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
