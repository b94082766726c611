"""Long-term memory shared across threads: LangGraph's store API in the engine's words.

`InMemoryStore` (this process), `SqliteStore`/`AsyncSqliteStore` (a file) and
`PostgresStore`/`AsyncPostgresStore` (a server) hold items under namespaces, with time to
live and, given `index=`, semantic search over a user's embeddings function. A store is
handed to `compile(store=...)`; nodes reach it through a parameter named `store`,
`runtime.store` or `get_store()`."""
from typing import TYPE_CHECKING, Any

from .base import BaseStore, namespace_matches
from .batched import AsyncBatchedBaseStore
from .embed import EmbeddingError, Embeddings, ensure_embeddings, get_text_at_path, tokenize_path
from .items import InvalidNamespaceError, Item, SearchItem, check_namespace, matches_filter
from .memory import InMemoryStore
from .pg_connect import PgVectorMissingError, StoreConnectionError
from .sql_core import ItemTooLargeError, ItemValueError
from .sqlite import SqliteStore, StoreNotSetUpError
from .sqlite_aio import AsyncSqliteStore

if TYPE_CHECKING:
    from .postgres import PostgresStore
    from .postgres_aio import AsyncPostgresStore
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
    "BaseStore", "InMemoryStore", "SqliteStore", "AsyncSqliteStore", "PostgresStore", "AsyncPostgresStore",
    "AsyncBatchedBaseStore", "StoreConnectionError", "PgVectorMissingError", "StoreNotSetUpError",
    "ItemTooLargeError", "ItemValueError", "Item", "SearchItem", "InvalidNamespaceError", "EmbeddingError",
    "GetOp", "PutOp", "SearchOp", "ListNamespacesOp", "MatchCondition", "NamespacePath",
    "NamespaceMatchType", "Op", "Result", "IndexConfig", "TTLConfig", "NOT_PROVIDED", "NotProvided",
    "Embeddings", "ensure_embeddings", "get_text_at_path", "tokenize_path", "check_namespace",
    "matches_filter", "namespace_matches",
]


def __getattr__(name: str) -> Any:
    """The PostgreSQL stores are imported on first use (`import engine` stays light)."""
    if name == "PostgresStore":
        from .postgres import PostgresStore

        return PostgresStore
    if name == "AsyncPostgresStore":
        from .postgres_aio import AsyncPostgresStore

        return AsyncPostgresStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
