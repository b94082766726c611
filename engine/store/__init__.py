"""Long-term memory shared across threads: `BaseStore` and `InMemoryStore` (LangGraph's API).

A store is handed to `compile(store=...)`; nodes reach it through a parameter named
`store`, `runtime.store` or `get_store()`."""
from .base import BaseStore, InvalidNamespaceError, Item, SearchItem
from .memory import InMemoryStore

__all__ = ["BaseStore", "InMemoryStore", "Item", "SearchItem", "InvalidNamespaceError"]
