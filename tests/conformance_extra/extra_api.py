"""Names the shared `api` namespace lacks, taken from the same implementation as `api`.

Imported by this folder's cases (the runner loads this file too; it holds no case)."""
from __future__ import annotations

from types import SimpleNamespace


def extra(api) -> SimpleNamespace:
    if api.impl == "langgraph":
        from langgraph.cache.memory import InMemoryCache
        from langgraph.config import get_store, get_stream_writer
        from langgraph.runtime import RunControl, Runtime, get_runtime
        from langgraph.store.memory import InMemoryStore
        from langgraph.errors import GraphDrained, NodeError, NodeTimeoutError
        from langgraph.types import CachePolicy, GraphOutput, RetryPolicy, TimeoutPolicy
        from langgraph.func import entrypoint, task

        return SimpleNamespace(**{k: v for k, v in locals().items() if k != "api"})
    import engine

    from engine.func import entrypoint, task

    names = ("InMemoryCache", "get_store", "get_stream_writer", "Runtime", "get_runtime", "InMemoryStore",
             "CachePolicy", "GraphOutput", "RetryPolicy", "TimeoutPolicy", "NodeTimeoutError", "NodeError", "GraphDrained",
             "RunControl")
    return SimpleNamespace(entrypoint=entrypoint, task=task, **{n: getattr(engine, n, None) for n in names})
