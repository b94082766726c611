"""The state panel (a lazy tree of the state's values) and the state editor dialog."""
from __future__ import annotations

from .editor import StateEditorDialog
from .panel import StatePanel

__all__ = ["StatePanel", "StateEditorDialog"]
