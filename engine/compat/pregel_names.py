"""The least of `langgraph.pregel` that the agent libraries import (langgraph-supervisor,
langgraph-swarm): `Pregel`, the class their agents are typed as, and `RemoteGraph`, which
langgraph-supervisor only tests agents against with isinstance().

`Pregel` is the engine's compiled graph class, so `isinstance(graph, Pregel)` holds for
every compiled StateGraph and `Pregel[Any]` works in annotations. The low-level Pregel
API (building a graph from nodes and channels) and talking to a LangGraph server are not
served here."""
from __future__ import annotations

from typing import Any, NoReturn

from ..graph.compiled import CompiledStateGraph

__all__ = ["Pregel", "RemoteGraph"]

Pregel = CompiledStateGraph


class RemoteGraph:
    """A graph run by a LangGraph API server: not supported yet (no instance can exist, so
    `isinstance(agent, RemoteGraph)` is False for every agent)."""

    def __init__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise NotImplementedError("langgraph.pregel.remote.RemoteGraph is not supported yet by Retrograph "
                                  "(the engine runs graphs in this process only)")
