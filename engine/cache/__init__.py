"""Node caches for `compile(cache=...)`: entries are (namespace, key) -> value, with a ttl.

`InMemoryCache` lives as long as the process; `SqliteCache` in a file, its values encoded
with the checkpoint serializer (no pickle)."""
from .base import BaseCache, FullKey
from .memory import InMemoryCache
from .sqlite import SqliteCache

__all__ = ["BaseCache", "FullKey", "InMemoryCache", "SqliteCache"]
