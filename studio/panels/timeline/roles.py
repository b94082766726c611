"""The timeline model's own roles, and a row's `Look`: every role a painted row is asked
for, answered in one call.

Qt's delegates ask the model a role at a time: a dozen calls per cell (font, alignment,
colours, text, check state, icon, background, then the badge, depth, lanes...), each
crossing from C++ into Python. A 100,000-checkpoint timeline repaints every row in view
when it scrolls or is filled, so the timeline's delegates read a row's `Look` instead: made
from the same answers as `data()` (it cannot say anything else), once per row until the
model changes.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt

from studio.panels._common import BadgeRole, KindRole

__all__ = ["DepthRole", "IdRole", "ExpandedRole", "LanesRole", "Look", "make_look"]

DepthRole = Qt.ItemDataRole.UserRole + 10
"""Indentation level of a row (0 for the main line)."""
IdRole = Qt.ItemDataRole.UserRole + 11
"""The checkpoint id of a row, or None for a branch header."""
ExpandedRole = Qt.ItemDataRole.UserRole + 12
LanesRole = Qt.ItemDataRole.UserRole + 13
"""How the branch lines pass a row (see `model.Lanes`); None without branches (a straight line)."""

_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_FONT = int(Qt.ItemDataRole.FontRole)
_BACKGROUND = int(Qt.ItemDataRole.BackgroundRole)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)


@dataclass(frozen=True, slots=True)
class Look:
    """What one row of the timeline shows, a value per column where the roles differ.

    `texts`, `badges`, `fonts`, `backgrounds`, `foregrounds`: DisplayRole, BadgeRole,
    FontRole, BackgroundRole and ForegroundRole of each column (None: no answer).
    `depth`, `kind`, `expanded`: DepthRole, KindRole, ExpandedRole (the same in every
    column); `lanes`: the step column's LanesRole."""

    texts: tuple[Any, ...]
    badges: tuple[Any, ...]
    fonts: tuple[Any, ...]
    backgrounds: tuple[Any, ...]
    foregrounds: tuple[Any, ...]
    depth: int
    kind: Any
    expanded: bool
    lanes: Any


def make_look(answer: Callable[[int, int], Any], columns: int) -> Look:
    """The Look of a row from `answer(column, role)`, the model's own `data()` answers."""
    cols = range(columns)
    return Look(
        texts=tuple(answer(c, _DISPLAY) for c in cols),
        badges=tuple(answer(c, BadgeRole) for c in cols),
        fonts=tuple(answer(c, _FONT) for c in cols),
        backgrounds=tuple(answer(c, _BACKGROUND) for c in cols),
        foregrounds=tuple(answer(c, _FOREGROUND) for c in cols),
        depth=int(answer(0, DepthRole) or 0),
        kind=answer(0, KindRole),
        expanded=bool(answer(0, ExpandedRole)),
        lanes=answer(0, LanesRole),
    )
