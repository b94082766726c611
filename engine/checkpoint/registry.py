"""Which types a checkpoint may hold beyond plain data, and the names they are stored under.

A registered class (dataclass, pydantic v2 model, NamedTuple or Enum) is stored under a
stable name and rebuilt by looking that name up here; a name found in a file is never
imported. A stored object whose type is not registered loads as an inert `UnknownValue`.
"""
from __future__ import annotations

import dataclasses
import enum
from typing import Any

from ..policies import TimeoutPolicy
from ..types import Command, Interrupt, Overwrite, Send

__all__ = [
    "UnknownValue",
    "UnknownTypeWarning",
    "TypeInfo",
    "Registry",
    "GLOBAL_TYPES",
    "register_type",
    "is_pydantic",
]


@dataclasses.dataclass(frozen=True)
class UnknownValue:
    """A stored object whose type is not registered in this process: inert data.

    `data` is the object's fields (a dict) or, for an Enum member, the member's name.
    Saving it again writes it back unchanged, so nothing is lost by loading it.
    """

    type_name: str
    data: Any

    def __repr__(self) -> str:
        return f"<UnknownValue {self.type_name} {self.data!r}>"

    def __hash__(self) -> int:  # data may be a dict; equal values share a type name
        return hash(self.type_name)


class UnknownTypeWarning(UserWarning):
    """Stored data names a type that is not registered; it was loaded as UnknownValue."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class TypeInfo:
    cls: type
    name: str
    kind: str  # "dataclass" | "pydantic" | "namedtuple" | "enum"
    fields: tuple[tuple[str, bool], ...] = ()  # (name, passed to __init__) for dataclasses


def is_pydantic(cls: type) -> bool:
    return hasattr(cls, "model_fields") and hasattr(cls, "model_construct")


def _describe(cls: type) -> TypeInfo:
    name = f"{getattr(cls, '__module__', '?')}.{getattr(cls, '__qualname__', '?')}"
    if isinstance(cls, type) and issubclass(cls, enum.Enum):
        return TypeInfo(cls=cls, name=name, kind="enum")
    if isinstance(cls, type) and dataclasses.is_dataclass(cls):
        fields = tuple((f.name, f.init) for f in dataclasses.fields(cls))
        return TypeInfo(cls=cls, name=name, kind="dataclass", fields=fields)
    if isinstance(cls, type) and is_pydantic(cls):
        return TypeInfo(cls=cls, name=name, kind="pydantic")
    if isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return TypeInfo(cls=cls, name=name, kind="namedtuple")
    raise TypeError(
        f"register_type({getattr(cls, '__name__', cls)!r}): only dataclasses, pydantic models, "
        "NamedTuples and Enum classes can be registered; store other objects as plain data"
    )


class Registry:
    """Class <-> stable name. Registering a new class under a taken name replaces the old
    one (a reloaded graph file defines its classes anew)."""

    def __init__(self) -> None:
        self.by_type: dict[type, TypeInfo] = {}
        self.by_name: dict[str, TypeInfo] = {}

    def add(self, cls: type, name: str | None = None) -> None:
        if name is None and cls in self.by_type:
            return  # already known, maybe under a stable short name that stored data uses
        info = _describe(cls)
        if name is not None:
            info = dataclasses.replace(info, name=name)
        old = self.by_name.get(info.name)
        if old is not None and old.cls is not cls:
            self.by_type.pop(old.cls, None)
        self.by_type[cls] = info
        self.by_name[info.name] = info


GLOBAL_TYPES = Registry()
# Engine types get short stable names so that moving a module never orphans old files.
GLOBAL_TYPES.add(Send, "rg.Send")
GLOBAL_TYPES.add(Interrupt, "rg.Interrupt")
GLOBAL_TYPES.add(Command, "rg.Command")  # a Command given as a run's input is kept in its plan
GLOBAL_TYPES.add(Overwrite, "rg.Overwrite")
GLOBAL_TYPES.add(TimeoutPolicy, "rg.TimeoutPolicy")  # a Send's own timeout, kept in its planned task


def register_type(*types: type) -> None:
    """Allow every Serializer to store and rebuild these dataclasses, pydantic models,
    NamedTuples or Enums. Rebuilding looks the stored name up here; nothing is imported."""
    for cls in types:
        GLOBAL_TYPES.add(cls)
