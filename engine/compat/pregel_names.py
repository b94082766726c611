"""The least of `langgraph.pregel` that the agent libraries import (langgraph-supervisor,
langgraph-swarm): `Pregel`, the class their agents are typed as, and `RemoteGraph`
(`langgraph.pregel.remote`), a graph a LangGraph API server runs (engine/remote).

`Pregel` is the engine's compiled graph class, so `isinstance(graph, Pregel)` holds for
every compiled StateGraph and `Pregel[Any]` works in annotations. `RemoteGraph` and
`RemoteException` are loaded on first use: they need the `remote` extra (langgraph-sdk,
langchain-core), which importing `langgraph.pregel` does not."""
from __future__ import annotations

from typing import Any

from ..graph.compiled import CompiledStateGraph

__all__ = ["Pregel", "RemoteGraph", "RemoteException"]

Pregel = CompiledStateGraph


def __getattr__(name: str) -> Any:
    if name in ("RemoteGraph", "RemoteException"):
        from .. import remote

        return getattr(remote, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
