"""What a store holds and checks: `Item`, `SearchItem`, namespace rules and value filters."""
from __future__ import annotations

from collections.abc import Callable, Mapping
import re
from datetime import datetime
from typing import Any

__all__ = ["Item", "SearchItem", "InvalidNamespaceError", "check_namespace", "validate_op_namespace",
           "matches_filter", "check_filter", "as_datetime"]


class InvalidNamespaceError(ValueError):
    """A namespace that cannot hold items: empty, a non-string, empty or dotted label, or `langgraph` at its root."""


def as_datetime(value: datetime | str) -> datetime:
    return datetime.fromisoformat(value) if isinstance(value, str) else value


class Item:
    """A stored value (a dict) with where it lives and when it was written."""

    __slots__ = ("namespace", "key", "value", "created_at", "updated_at")

    def __init__(self, *, value: dict[str, Any], key: str, namespace: tuple[str, ...],
                 created_at: datetime | str, updated_at: datetime | str) -> None:
        self.value = value
        self.key = key
        self.namespace = tuple(namespace)
        self.created_at = as_datetime(created_at)
        self.updated_at = as_datetime(updated_at)

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
    """An item found by `search`; `score` is the query's similarity, None without a query or an index."""

    __slots__ = ("score",)

    def __init__(self, namespace: tuple[str, ...], key: str, value: dict[str, Any],
                 created_at: datetime | str, updated_at: datetime | str, score: float | None = None) -> None:
        super().__init__(value=value, key=key, namespace=namespace, created_at=created_at, updated_at=updated_at)
        self.score = score

    def dict(self) -> dict[str, Any]:
        return {**super().dict(), "score": self.score}


def check_namespace(namespace: Any) -> tuple[str, ...]:
    """`namespace` as a tuple, or InvalidNamespaceError naming the label at fault."""
    if not isinstance(namespace, tuple):
        raise InvalidNamespaceError(f"a namespace is a tuple of strings, got {namespace!r:.60}")
    if not namespace:
        raise InvalidNamespaceError("a namespace cannot be empty: use a tuple such as ('users', user_id)")
    for label in namespace:
        if not isinstance(label, str):
            raise InvalidNamespaceError(
                f"namespace {namespace!r}: label {label!r} is a {type(label).__name__}; labels are strings")
        if not label:
            raise InvalidNamespaceError(f"namespace {namespace!r}: labels cannot be empty strings")
        if "." in label:
            raise InvalidNamespaceError(f"namespace {namespace!r}: label {label!r} contains a period ('.')")
    if namespace[0] == "langgraph":
        raise InvalidNamespaceError(f"namespace {namespace!r}: the root label 'langgraph' is reserved; "
                                    "start the namespace with another label")
    return namespace


validate_op_namespace = check_namespace


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b, "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b, "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b, "$lte": lambda a, b: a is not None and a <= b,
}
FILTER_OPERATORS = tuple(_OPS)


def value_at(value: Mapping[str, Any], key: str) -> Any:
    """`value[key]`, a dotted key reaching into nested dicts; None when absent."""
    if key in value:
        return value[key]
    cur: Any = value
    for part in key.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            return None
        cur = cur[part]
    return cur


def is_operator_dict(want: Any) -> bool:
    return isinstance(want, Mapping) and bool(want) and all(isinstance(k, str) and k.startswith("$") for k in want)


def check_operator(op: str) -> None:
    if op not in _OPS:
        raise ValueError(f"unknown filter operator {op!r}: use one of {', '.join(_OPS)}")


_BAD_KEY = re.compile(r"""['"();=\\`]|--""")


def check_filter(filter: Any) -> None:
    """A search filter: a dict whose keys are field names or dotted paths, operators known."""
    if filter is None:
        return
    if not isinstance(filter, Mapping):
        raise TypeError(f"a search filter is a dict such as {{'kind': 'note'}}, got {type(filter).__name__}")
    for key, want in filter.items():
        if not isinstance(key, str) or not key or _BAD_KEY.search(key):
            raise ValueError(f"Invalid filter key {key!r:.60}: a field name or dotted path such as 'a.b'")
        if is_operator_dict(want):
            for op in want:
                check_operator(op)


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Exact match per key (dotted keys reach into nested dicts), or operators such as {"$gt": 3}."""
    if not filter:
        return True
    for key, want in filter.items():
        have = value_at(value, key)
        if is_operator_dict(want):
            for op, arg in want.items():
                check_operator(op)
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
