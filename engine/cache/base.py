"""The cache protocol a run asks of `compile(cache=...)`."""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["BaseCache", "FullKey"]

FullKey = tuple[tuple[str, ...], str]
"""(namespace, key): the namespace is the node's name, the key names its input."""


class BaseCache(ABC):
    """What a run asks of a cache; async twins default to the sync calls."""

    @abstractmethod
    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        """The values found (expired entries are not)."""

    @abstractmethod
    def set(self, pairs: Mapping[FullKey, tuple[Any, float | None]]) -> None:
        """Store each value with its ttl in seconds (None: no expiry)."""

    @abstractmethod
    def clear(self, namespaces: Sequence[tuple[str, ...]] | None = None) -> None:
        """Drop the entries of these namespaces (all of them when None)."""

    async def aget(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        return self.get(keys)

    async def aset(self, pairs: Mapping[FullKey, tuple[Any, float | None]]) -> None:
        self.set(pairs)

    async def aclear(self, namespaces: Sequence[tuple[str, ...]] | None = None) -> None:
        self.clear(namespaces)
