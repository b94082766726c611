"""The scrubber's track (Qt-free): the checkpoints of one branch, oldest first, that a
slider replays without running anything."""
from __future__ import annotations

from .history import History

__all__ = ["branch_path", "branch_leaves"]


def branch_path(history: History, through: str | None, head: str | None = None) -> list[str]:
    """Root → leaf along the branch that holds `through`: its ancestors, then forward from it
    (towards `head` when `head` descends from it, else the newest child) to the branch's end."""
    if through is None or through not in history:
        through = head if head in history else history.latest_id
    if through is None:
        return []
    path = list(reversed(history.ancestors(through)))
    seen = set(path)
    current: str | None = through
    while current is not None:
        current = history.forward(current, head)
        if current is None or current in seen:  # a crafted parent cycle ends the walk
            break
        path.append(current)
        seen.add(current)
    return path


def branch_leaves(history: History) -> list[str]:
    """The last checkpoint of every branch, oldest branch first."""
    return [row.id for row in history.rows() if not history.children(row.id)]
