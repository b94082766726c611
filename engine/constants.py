"""Names the graph reserves for itself."""
from __future__ import annotations

__all__ = ["START", "END", "RESERVED_NAMES", "INTERRUPT_KEY"]

START = "__start__"
"""The virtual entry node: edges from it name the graph's entry points."""

END = "__end__"
"""The virtual exit node: routing here ends a branch."""

INTERRUPT_KEY = "__interrupt__"
"""The key under which invoke() and the updates stream report pending interrupts."""

RESERVED_NAMES = frozenset({START, END, INTERRUPT_KEY})
