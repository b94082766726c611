"""The store protocol: items under namespaces (tuples of labels) and keys.

A store implements `batch(ops)` (and `abatch`, which defaults to running `batch`); every
single-call method (`get`, `put`, `delete`, `search`, `list_namespaces` and their `a`
twins) checks its arguments, then runs a batch of one operation (ops.py).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from .embed import Embeddings, ensure_embeddings, get_text_at_path, tokenize_path
from .items import (
    InvalidNamespaceError,
    Item,
    SearchItem,
    check_filter,
    check_namespace,
    matches_filter,
    validate_op_namespace,
)
from .ops import (
    NOT_PROVIDED,
    GetOp,
    IndexConfig,
    ListNamespacesOp,
    MatchCondition,
    NamespaceMatchType,
    NamespacePath,
    NotProvided,
    Op,
    PutOp,
    Result,
    SearchOp,
    TTLConfig,
)

__all__ = [
    "BaseStore", "Item", "SearchItem", "InvalidNamespaceError", "GetOp", "PutOp", "SearchOp",
    "ListNamespacesOp", "MatchCondition", "NamespacePath", "NamespaceMatchType", "Op", "Result",
    "IndexConfig", "TTLConfig", "NOT_PROVIDED", "NotProvided", "Embeddings", "ensure_embeddings",
    "get_text_at_path", "tokenize_path", "validate_op_namespace", "check_namespace", "matches_filter",
    "namespace_matches",
]


def namespace_matches(namespace: tuple[str, ...], conditions: Sequence[MatchCondition] | None) -> bool:
    """Whether every prefix/suffix condition ("*" any one label) holds for `namespace`."""
    for cond in conditions or ():
        path = tuple(cond.path)
        if len(path) > len(namespace):
            return False
        part = namespace[:len(path)] if cond.match_type == "prefix" else namespace[len(namespace) - len(path):]
        if not all(p == "*" or p == label for p, label in zip(path, part)):
            return False
    return True


def _key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"a store key is a string, got {type(key).__name__} {key!r:.40}")
    return key


def _conditions(prefix: NamespacePath | None, suffix: NamespacePath | None) -> tuple[MatchCondition, ...]:
    conds = []
    if prefix:
        conds.append(MatchCondition(match_type="prefix", path=tuple(prefix)))
    if suffix:
        conds.append(MatchCondition(match_type="suffix", path=tuple(suffix)))
    return tuple(conds)


class BaseStore(ABC):
    """Items by (namespace, key). Subclasses implement `batch` (and, for I/O, `abatch`)."""

    supports_ttl: bool = False
    ttl_config: TTLConfig | None = None

    @abstractmethod
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order; one result per operation."""

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return self.batch(ops)

    # the arguments of each call, checked, as an operation

    def _refresh(self, refresh_ttl: bool | None) -> bool:
        """Whether a read restarts the time to live: as asked, else the ttl config's
        `refresh_on_read` (a store configured without it does not refresh, as LangGraph's)."""
        if refresh_ttl is not None:
            return refresh_ttl
        if self.ttl_config is None:
            return True
        return bool(self.ttl_config.get("refresh_on_read", False))

    def _put_op(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any] | None,
                index: Literal[False] | list[str] | None, ttl: float | None | NotProvided) -> PutOp:
        namespace = check_namespace(namespace)
        if value is not None and not isinstance(value, Mapping):
            raise TypeError(f"a store value is a dict, got {type(value).__name__}: {value!r:.60}")
        if isinstance(ttl, NotProvided):
            ttl = (self.ttl_config or {}).get("default_ttl")
        elif ttl is not None and not self.supports_ttl:
            raise NotImplementedError(f"{type(self).__name__} does not support ttl=; put without it "
                                      "or use a store that supports time to live")
        if ttl is not None and (not isinstance(ttl, (int, float)) or ttl <= 0):
            raise ValueError(f"ttl={ttl!r}: a time to live is a positive number of minutes")
        return PutOp(namespace, _key(key), value, index, ttl)

    def _search_op(self, namespace_prefix: tuple[str, ...], query: str | None, filter: dict[str, Any] | None,
                   limit: int, offset: int, refresh_ttl: bool | None) -> SearchOp:
        if isinstance(namespace_prefix, list):
            namespace_prefix = tuple(namespace_prefix)
        if not isinstance(namespace_prefix, tuple):
            raise InvalidNamespaceError(f"a namespace prefix is a tuple of strings, got {namespace_prefix!r:.60}")
        check_filter(filter)
        if limit < 0 or offset < 0:
            raise ValueError(f"search: limit={limit}, offset={offset}: both must be >= 0")
        return SearchOp(namespace_prefix, filter, limit, offset, query, self._refresh(refresh_ttl))

    # sync calls

    def get(self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None) -> Item | None:
        return self.batch([GetOp(tuple(namespace), _key(key), self._refresh(refresh_ttl))])[0]  # type: ignore[no-any-return]

    def put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any],
            index: Literal[False] | list[str] | None = None, *,
            ttl: float | None | NotProvided = NOT_PROVIDED) -> None:
        """Store `value` (a dict) under `key`; `ttl` in minutes (default the store's `default_ttl`)."""
        self.batch([self._put_op(namespace, key, value, index, ttl)])

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        self.batch([PutOp(tuple(namespace), _key(key), None)])

    def search(self, namespace_prefix: tuple[str, ...], /, *, query: str | None = None,
               filter: dict[str, Any] | None = None, limit: int = 10, offset: int = 0,
               refresh_ttl: bool | None = None) -> list[SearchItem]:
        return self.batch([self._search_op(namespace_prefix, query, filter, limit, offset, refresh_ttl)])[0]  # type: ignore[no-any-return]

    def list_namespaces(self, *, prefix: NamespacePath | None = None, suffix: NamespacePath | None = None,
                        max_depth: int | None = None, limit: int = 100, offset: int = 0) -> list[tuple[str, ...]]:
        op = ListNamespacesOp(_conditions(prefix, suffix) or None, max_depth, limit, offset)
        return self.batch([op])[0]  # type: ignore[no-any-return]

    # async calls

    async def _aone(self, op: Op) -> Result:
        """One operation's result (a batched store queues it with others instead)."""
        return (await self.abatch([op]))[0]

    async def aget(self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None) -> Item | None:
        return await self._aone(GetOp(tuple(namespace), _key(key), self._refresh(refresh_ttl)))  # type: ignore[no-any-return]

    async def aput(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any],
                   index: Literal[False] | list[str] | None = None, *,
                   ttl: float | None | NotProvided = NOT_PROVIDED) -> None:
        await self._aone(self._put_op(namespace, key, value, index, ttl))

    async def adelete(self, namespace: tuple[str, ...], key: str) -> None:
        await self._aone(PutOp(tuple(namespace), _key(key), None))

    async def asearch(self, namespace_prefix: tuple[str, ...], /, *, query: str | None = None,
                      filter: dict[str, Any] | None = None, limit: int = 10, offset: int = 0,
                      refresh_ttl: bool | None = None) -> list[SearchItem]:
        op = self._search_op(namespace_prefix, query, filter, limit, offset, refresh_ttl)
        return await self._aone(op)  # type: ignore[no-any-return]

    async def alist_namespaces(self, *, prefix: NamespacePath | None = None, suffix: NamespacePath | None = None,
                               max_depth: int | None = None, limit: int = 100,
                               offset: int = 0) -> list[tuple[str, ...]]:
        op = ListNamespacesOp(_conditions(prefix, suffix) or None, max_depth, limit, offset)
        return await self._aone(op)  # type: ignore[no-any-return]
