"""Graphs run by a LangGraph API server, called over HTTP as local graphs are
(`langgraph.pregel.remote.RemoteGraph`); needs the `remote` extra (langgraph-sdk,
langchain-core)."""
from __future__ import annotations

from .graph import RemoteException, RemoteGraph

__all__ = ["RemoteGraph", "RemoteException"]
