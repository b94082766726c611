"""Moving among the graph's nodes from the keyboard: arrow keys go to the nearest node in
that direction, Tab / Shift+Tab walk them in reading order (top to bottom, left to right).

Qt-free geometry over node centres, so the panel (and a test) can ask "where does Right go
from here?" without a scene.
"""
from __future__ import annotations

from collections.abc import Mapping

__all__ = ["Point", "reading_order", "nearest_in_direction", "DIRECTIONS"]

Point = tuple[float, float]

DIRECTIONS: dict[str, Point] = {"left": (-1.0, 0.0), "right": (1.0, 0.0), "up": (0.0, -1.0), "down": (0.0, 1.0)}
"""Unit vectors in scene coordinates (y grows downward)."""

_ROW_TOLERANCE = 12.0
"""Centres this close vertically count as one row of the reading order."""


def reading_order(centres: Mapping[str, Point]) -> list[str]:
    """Node ids top to bottom, then left to right within a row."""
    ids = sorted(centres, key=lambda n: (centres[n][1], centres[n][0], n))
    rows: list[list[str]] = []
    for node in ids:
        if rows and abs(centres[rows[-1][0]][1] - centres[node][1]) <= _ROW_TOLERANCE:
            rows[-1].append(node)
        else:
            rows.append([node])
    return [n for row in rows for n in sorted(row, key=lambda n: (centres[n][0], n))]


def nearest_in_direction(centres: Mapping[str, Point], current: str, direction: str) -> str | None:
    """The node an arrow key moves to from `current`: of the nodes whose centre lies in the
    half-plane of `direction`, the one with the least 13·along² + across² (the weighting
    Android's focus search uses: the next row first, and in it the node most in line),
    those within 45° of the direction before any other (Right from a node goes to its
    neighbour on the right, not to the one above that is a little to the right).
    None when there is none."""
    if current not in centres or direction not in DIRECTIONS:
        return None
    dx, dy = DIRECTIONS[direction]
    x0, y0 = centres[current]
    best: tuple[bool, float, str] | None = None
    for node, (x, y) in centres.items():
        if node == current:
            continue
        along = (x - x0) * dx + (y - y0) * dy
        if along <= 1.0:
            continue
        across = abs((x - x0) * dy - (y - y0) * dx)
        score = (across > along, 13.0 * along * along + across * across, node)
        if best is None or score < best:
            best = score
    return best[2] if best else None
