"""Node caches for `compile(cache=...)`: entries are (namespace, key) -> value, with a ttl.

`InMemoryCache` lives as long as the process; `SqliteCache` in a file, its values encoded
with the checkpoint serializer (no pickle)."""
from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:  # what type checkers see; at run time each name loads on first use
    from .base import BaseCache, FullKey
    from .memory import InMemoryCache
    from .sqlite import SqliteCache

__all__ = ["BaseCache", "FullKey", "InMemoryCache", "SqliteCache"]

__getattr__, __dir__ = lazy_exports(__name__, {
    ".base": ("BaseCache", "FullKey"), ".memory": ("InMemoryCache",), ".sqlite": ("SqliteCache",)})
