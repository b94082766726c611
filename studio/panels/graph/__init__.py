"""The graph panel: the laid-out graph as Qt items, with a legend."""
from __future__ import annotations

from .panel import GraphPanel

__all__ = ["GraphPanel"]
