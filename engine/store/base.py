"""The store protocol: items under namespaces (tuples of labels) and keys.

Every method has an async twin; the defaults run the sync method, which is right for
stores whose calls do not wait on I/O (the in-memory one)."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

__all__ = ["BaseStore", "Item", "SearchItem", "InvalidNamespaceError", "check_namespace", "matches_filter"]


class InvalidNamespaceError(ValueError):
    """A namespace that cannot hold items: empty, a non-string or dotted label, or `langgraph` at its root."""


class Item:
    """A stored value with where it lives and when it was written."""

    __slots__ = ("namespace", "key", "value", "created_at", "updated_at")

    def __init__(self, *, value: dict[str, Any], key: str, namespace: tuple[str, ...],
                 created_at: datetime, updated_at: datetime) -> None:
        self.value = value
        self.key = key
        self.namespace = tuple(namespace)
        self.created_at = created_at
        self.updated_at = updated_at

    def dict(self) -> dict[str, Any]:
        return {"namespace": list(self.namespace), "key": self.key, "value": self.value,
                "created_at": self.created_at.isoformat(), "updated_at": self.updated_at.isoformat()}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Item) and self.dict() == other.dict()

    def __hash__(self) -> int:
        return hash((self.namespace, self.key))

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.dict().items())
        return f"{type(self).__name__}({fields})"


class SearchItem(Item):
    """An item found by `search`; `score` is None without a semantic index."""

    __slots__ = ("score",)

    def __init__(self, *, score: float | None = None, **fields: Any) -> None:
        super().__init__(**fields)
        self.score = score

    def dict(self) -> dict[str, Any]:
        return {**super().dict(), "score": self.score}


def check_namespace(namespace: Any) -> tuple[str, ...]:
    if not isinstance(namespace, tuple):
        raise InvalidNamespaceError(f"a namespace is a tuple of strings, got {namespace!r:.60}")
    if not namespace:
        raise InvalidNamespaceError("a namespace cannot be empty: use a tuple such as ('users', user_id)")
    for label in namespace:
        if not isinstance(label, str):
            raise InvalidNamespaceError(f"namespace {namespace!r}: label {label!r} is not a string")
        if not label:
            raise InvalidNamespaceError(f"namespace {namespace!r}: labels cannot be empty strings")
        if "." in label:
            raise InvalidNamespaceError(f"namespace {namespace!r}: label {label!r} contains a period")
    if namespace[0] == "langgraph":
        raise InvalidNamespaceError(f"namespace {namespace!r}: the root label 'langgraph' is reserved")
    return namespace


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b, "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b, "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b, "$lte": lambda a, b: a is not None and a <= b,
}


def _path(value: Mapping[str, Any], key: str) -> Any:
    cur: Any = value
    for part in key.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            return None
        cur = cur[part]
    return cur


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Exact match per key (dotted keys reach into nested dicts), or operators such as {"$gt": 3}."""
    if not filter:
        return True
    for key, want in filter.items():
        have = _path(value, key)
        if isinstance(want, Mapping) and want and all(isinstance(k, str) and k.startswith("$") for k in want):
            for op, arg in want.items():
                if op not in _OPS:
                    raise ValueError(f"unknown filter operator {op!r}: use one of {', '.join(_OPS)}")
                try:
                    if not _OPS[op](have, arg):
                        return False
                except TypeError:
                    return False
        elif isinstance(want, Mapping) and isinstance(have, Mapping):
            if not matches_filter(have, want):
                return False
        elif have != want:
            return False
    return True


class BaseStore(ABC):
    """Items by (namespace, key). Subclasses implement the five sync methods."""

    @abstractmethod
    def get(self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None) -> Item | None: ...

    @abstractmethod
    def put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any] | None,
            index: Any = None, *, ttl: float | None = None) -> None:
        """Store `value` (a dict) under `key`; a `None` value deletes the item."""

    @abstractmethod
    def delete(self, namespace: tuple[str, ...], key: str) -> None: ...

    @abstractmethod
    def search(self, namespace_prefix: tuple[str, ...], /, *, query: str | None = None,
               filter: Mapping[str, Any] | None = None, limit: int = 10, offset: int = 0,
               refresh_ttl: bool | None = None) -> list[SearchItem]: ...

    @abstractmethod
    def list_namespaces(self, *, prefix: Sequence[str] | None = None, suffix: Sequence[str] | None = None,
                        max_depth: int | None = None, limit: int = 100, offset: int = 0) -> list[tuple[str, ...]]: ...

    async def aget(self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None) -> Item | None:
        return self.get(namespace, key, refresh_ttl=refresh_ttl)

    async def aput(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any] | None,
                   index: Any = None, *, ttl: float | None = None) -> None:
        self.put(namespace, key, value, index, ttl=ttl)

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        self.delete(namespace, key)

    async def asearch(self, namespace_prefix: tuple[str, ...], /, *, query: str | None = None,
                      filter: Mapping[str, Any] | None = None, limit: int = 10, offset: int = 0,
                      refresh_ttl: bool | None = None) -> list[SearchItem]:
        return self.search(namespace_prefix, query=query, filter=filter, limit=limit, offset=offset,
                           refresh_ttl=refresh_ttl)

    async def alist_namespaces(self, *, prefix: Sequence[str] | None = None, suffix: Sequence[str] | None = None,
                               max_depth: int | None = None, limit: int = 100,
                               offset: int = 0) -> list[tuple[str, ...]]:
        return self.list_namespaces(prefix=prefix, suffix=suffix, max_depth=max_depth, limit=limit, offset=offset)
