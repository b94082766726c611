"""`langgraph.checkpoint.serde.types._DeltaSnapshot`: how LangGraph's raw checkpoint shows a
delta channel's whole value (the engine's `DeltaSnapshot`, checkpoint/delta_record.py)."""
from __future__ import annotations

from ...checkpoint.delta_record import DeltaSnapshot

__all__ = ["_DeltaSnapshot"]

_DeltaSnapshot = DeltaSnapshot
