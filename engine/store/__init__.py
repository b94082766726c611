"""Long-term memory shared across threads: LangGraph's store API in the engine's words.

`InMemoryStore` (this process), `SqliteStore`/`AsyncSqliteStore` (a file) and
`PostgresStore`/`AsyncPostgresStore` (a server) hold items under namespaces, with time to
live and, given `index=`, semantic search over a user's embeddings function. A store is
handed to `compile(store=...)`; nodes reach it through a parameter named `store`,
`runtime.store` or `get_store()`."""
from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:  # what type checkers see; at run time each name loads on first use
    from .base import BaseStore, namespace_matches
    from .batched import AsyncBatchedBaseStore
    from .embed import EmbeddingError, Embeddings, ensure_embeddings, get_text_at_path, tokenize_path
    from .items import InvalidNamespaceError, Item, SearchItem, check_namespace, matches_filter
    from .memory import InMemoryStore
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
    from .pg_connect import PgVectorMissingError, StoreConnectionError
    from .postgres import PostgresStore
    from .postgres_aio import AsyncPostgresStore
    from .sql_core import ItemTooLargeError, ItemValueError
    from .sqlite import SqliteStore, StoreNotSetUpError
    from .sqlite_aio import AsyncSqliteStore

__all__ = [
    "BaseStore", "InMemoryStore", "SqliteStore", "AsyncSqliteStore", "PostgresStore", "AsyncPostgresStore",
    "AsyncBatchedBaseStore", "StoreConnectionError", "PgVectorMissingError", "StoreNotSetUpError",
    "ItemTooLargeError", "ItemValueError", "Item", "SearchItem", "InvalidNamespaceError", "EmbeddingError",
    "GetOp", "PutOp", "SearchOp", "ListNamespacesOp", "MatchCondition", "NamespacePath",
    "NamespaceMatchType", "Op", "Result", "IndexConfig", "TTLConfig", "NOT_PROVIDED", "NotProvided",
    "Embeddings", "ensure_embeddings", "get_text_at_path", "tokenize_path", "check_namespace",
    "matches_filter", "namespace_matches",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    ".base": ("BaseStore", "namespace_matches"),
    ".batched": ("AsyncBatchedBaseStore",),
    ".embed": ("EmbeddingError", "Embeddings", "ensure_embeddings", "get_text_at_path", "tokenize_path"),
    ".items": ("InvalidNamespaceError", "Item", "SearchItem", "check_namespace", "matches_filter"),
    ".memory": ("InMemoryStore",),
    ".ops": ("NOT_PROVIDED", "GetOp", "IndexConfig", "ListNamespacesOp", "MatchCondition", "NamespaceMatchType",
             "NamespacePath", "NotProvided", "Op", "PutOp", "Result", "SearchOp", "TTLConfig"),
    ".pg_connect": ("PgVectorMissingError", "StoreConnectionError"),
    ".sql_core": ("ItemTooLargeError", "ItemValueError"),
    ".sqlite": ("SqliteStore", "StoreNotSetUpError"),
    ".sqlite_aio": ("AsyncSqliteStore",),
    # psycopg and the PostgreSQL modules load only when one of these is asked for
    ".postgres": ("PostgresStore",),
    ".postgres_aio": ("AsyncPostgresStore",),
})
