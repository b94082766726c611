"""The inspector panel: a node's source, its last input and output."""
from __future__ import annotations

from .panel import InspectorPanel

__all__ = ["InspectorPanel"]
