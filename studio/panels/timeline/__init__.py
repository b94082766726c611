"""The timeline panel: the checkpoint tree of a thread, branches side by side."""
from __future__ import annotations

from .panel import TimelinePanel

__all__ = ["TimelinePanel"]
