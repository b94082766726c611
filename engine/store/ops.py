"""The operations a store executes in a batch, and the two config dicts a store takes.

`batch([GetOp(...), PutOp(...), SearchOp(...), ListNamespacesOp(...)])` runs them in
order and answers one result per operation: an `Item` or None, None, a list of
`SearchItem`, a list of namespaces. The single-call methods (`get`, `put`, ...) are
each a batch of one.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NamedTuple, TypedDict, Union

__all__ = [
    "GetOp", "PutOp", "SearchOp", "ListNamespacesOp", "MatchCondition", "NamespacePath",
    "NamespaceMatchType", "Op", "Result", "IndexConfig", "TTLConfig", "NOT_PROVIDED", "NotProvided",
]

NamespacePath = tuple[Union[str, Literal["*"]], ...]
"""A namespace pattern: labels, with "*" standing for any one label."""

NamespaceMatchType = Literal["prefix", "suffix"]


class GetOp(NamedTuple):
    """Read one item; `refresh_ttl` restarts its time to live."""

    namespace: tuple[str, ...]
    key: str
    refresh_ttl: bool = True


class PutOp(NamedTuple):
    """Write (or, with `value=None`, delete) one item.

    `index`: None embeds the store's configured fields, False none, a list those paths.
    `ttl`: minutes to live (None: for ever)."""

    namespace: tuple[str, ...]
    key: str
    value: Mapping[str, Any] | None
    index: Literal[False] | list[str] | None = None  # type: ignore[assignment]  # (shadows tuple.index)
    ttl: float | None = None


class SearchOp(NamedTuple):
    """Items under a namespace prefix, filtered by value, ranked by `query` with an index."""

    namespace_prefix: tuple[str, ...]
    filter: dict[str, Any] | None = None
    limit: int = 10
    offset: int = 0
    query: str | None = None
    refresh_ttl: bool = True


class MatchCondition(NamedTuple):
    """Namespaces whose first (prefix) or last (suffix) labels match `path`."""

    match_type: NamespaceMatchType
    path: NamespacePath


class ListNamespacesOp(NamedTuple):
    """The namespaces holding items, sorted, cut to `max_depth` labels, paged."""

    match_conditions: tuple[MatchCondition, ...] | None = None
    max_depth: int | None = None
    limit: int = 100
    offset: int = 0


Op = Union[GetOp, PutOp, SearchOp, ListNamespacesOp]
Result = Any
"""One operation's answer: `Item | None`, None, `list[SearchItem]` or `list[tuple[str, ...]]`."""


class IndexConfig(TypedDict, total=False):
    """A semantic index: vectors of `dims` numbers from `embed` over the text at `fields`
    (paths such as "text", "sections[*].title"; default the whole value, "$")."""

    dims: int
    embed: Any
    fields: list[str] | None


class TTLConfig(TypedDict, total=False):
    """Time to live: `default_ttl` minutes for puts that give none, whether reads restart
    it (`refresh_on_read`, default True), and how often the sweeper deletes expired items."""

    refresh_on_read: bool
    default_ttl: float | None
    sweep_interval_minutes: int | float | None


class NotProvided:
    """The `ttl=` of a put that gave none (the store's default applies); None means no expiry."""

    _instance: NotProvided | None = None

    def __new__(cls) -> NotProvided:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_PROVIDED"

    def __bool__(self) -> bool:
        return False


NOT_PROVIDED = NotProvided()
