"""The long-term memory store of the loaded graph, for the Store panel.

`memory_of(graph)` puts a RecordingStore around the store the graph was compiled with
(once), so every put and delete its nodes make from then on is recorded with the node and
task that made it, and answers a `LiveMemory` reading it; None for a graph without a store.
"""
from __future__ import annotations

from typing import Any

from studio.core.longterm import LiveMemory

__all__ = ["memory_of"]


def memory_of(graph: Any) -> LiveMemory | None:
    from engine.store import BaseStore
    from engine.store.recording import RecordingStore

    store = getattr(graph, "store", None)
    if not isinstance(store, BaseStore):
        return None
    if not isinstance(store, RecordingStore):
        store = RecordingStore(store)
        graph.store = store
    return LiveMemory(store)
