"""The diff panel (what each reducer did in a step) and the compare dialog (two
checkpoints side by side); both share the change rows of `rows`."""
from __future__ import annotations

from .compare import CompareDialog, CompareView
from .panel import DiffPanel

__all__ = ["DiffPanel", "CompareDialog", "CompareView"]
