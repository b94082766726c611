"""The Debug panel: watches, conditional breakpoints, field history, history search."""
from .panel import DebugPanel

__all__ = ["DebugPanel"]
