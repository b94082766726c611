"""The scrubber's track (Qt-free): the checkpoints of one branch, oldest first, that a
slider replays without running anything.

A thread may hold 100,000 checkpoints: the track is worked out in one walk (never a walk
per checkpoint) and, while the same branch grows at its tip, only extended."""
from __future__ import annotations

from .history import History

__all__ = ["branch_path", "Track"]


def _extend(history: History, path: list[str], seen: set[str] | _Seen) -> None:
    """Walk on from the path's tip through the newest child of each checkpoint."""
    current = path[-1] if path else None
    while current is not None:
        kids = history.children(current)
        if not kids:
            return
        current = kids[-1]
        if current in seen:  # a crafted parent cycle ends the walk
            return
        path.append(current)
        seen.add(current)


def branch_path(history: History, through: str | None, head: str | None = None) -> list[str]:
    """Root → end of the branch that holds `through`: the head's line when the head descends
    from `through`, then on through the newest children to the branch's last checkpoint."""
    if through is None or through not in history:
        through = head if head in history else history.latest_id
    if through is None:
        return []
    line = history.ancestors(head) if head in history else []
    if through not in set(line):
        line = history.ancestors(through)
    path = list(reversed(line))
    _extend(history, path, set(path))
    return path


class _Seen:
    """`in` over a track's index without copying it into a set."""

    def __init__(self, index: dict[str, int]) -> None:
        self.index = index
        self.added: set[str] = set()

    def __contains__(self, cid: object) -> bool:
        return cid in self.index or cid in self.added

    def add(self, cid: str) -> None:
        self.added.add(cid)


class Track:
    """The branch the scrubber shows, kept up to date cheaply."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.index: dict[str, int] = {}
        self._size = -1
        self._history: History | None = None

    def update(self, history: History, through: str | None, head: str | None) -> bool:
        """Follow the branch of `through`; True when the ids changed."""
        at = through or head
        same_history = history is self._history
        if same_history and at in self.index and len(history) == self._size:
            return False
        if same_history and self.ids:  # the branch grew at its tip (a step, a poll)?
            before = len(self.ids)
            _extend(history, self.ids, set(self.index) if len(self.index) < 1000 else _Seen(self.index))
            for i in range(before, len(self.ids)):
                self.index[self.ids[i]] = i
            if at is None or at in self.index:
                self._size = len(history)
                return len(self.ids) != before
        self.ids = branch_path(history, through, head)
        self.index = {cid: i for i, cid in enumerate(self.ids)}
        self._size = len(history)
        self._history = history
        return True
