"""The checkpoint tree of one thread, as the session sees it (Qt-free).

Rows come from `saver.list_headers()` (cheap: no values) and from the live run's
commits. Parent links make a tree: forks and edits are branches, never a flat list.
A subgraph's checkpoints (rows with a `namespace`) are kept apart: they are shown under
the parent checkpoint that ran them, but never become the head, a parent or a fork point,
so rewinding always starts from the thread's own checkpoints.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from .records import TimelineRow

__all__ = ["History"]


class History:
    """Checkpoint rows of one thread with parent/child links and newest-first order."""

    def __init__(self, rows: Iterable[TimelineRow] = ()) -> None:
        self._rows: dict[str, TimelineRow] = {}
        self._children: dict[str | None, list[str]] = {}
        self._latest: str | None = None
        self._in_order = True
        self._subs: dict[str, TimelineRow] = {}
        self.more_before = False
        """Whether the store holds older checkpoints of the thread than these (a long
        history is read a page at a time, newest first; see studio/session/paging.py)."""
        self.cursor: str | None = None
        """The oldest checkpoint read from the store: the next older page starts below it."""
        self.total: int | None = None
        """The thread's checkpoints in the store, when known (the threads list counts them)."""
        self.reset(rows)

    def reset(self, rows: Iterable[TimelineRow]) -> None:
        self._rows = {}
        self._children = {}
        self._latest = None
        self._in_order = True
        self._subs = {}
        self.add_many(rows)

    def add(self, row: TimelineRow) -> bool:
        """Add a row; False when it was already known. A subgraph row is kept apart."""
        if row.namespace:
            if row.id in self._subs:
                return False
            self._subs[row.id] = row
            return True
        if row.id in self._rows:
            return False
        self._rows[row.id] = row
        self._children.setdefault(row.parent_id, []).append(row.id)
        # checkpoint ids sort in creation order
        if self._latest is None or row.id > self._latest:
            self._latest = row.id
        else:
            self._in_order = False
        return True

    def add_many(self, rows: Iterable[TimelineRow]) -> int:
        """`add` each row (a whole page of a long history at once); how many were new."""
        own, children, subs = self._rows, self._children, self._subs
        latest, in_order, added = self._latest, self._in_order, 0
        for row in rows:
            rid = row.id
            if row.namespace:
                if rid not in subs:
                    subs[rid] = row
                    added += 1
                continue
            if rid in own:
                continue
            own[rid] = row
            added += 1
            kids = children.get(row.parent_id)
            if kids is None:
                children[row.parent_id] = [rid]
            else:
                kids.append(rid)
            if latest is None or rid > latest:  # checkpoint ids sort in creation order
                latest = rid
            else:
                in_order = False
        self._latest, self._in_order = latest, in_order
        return added

    def older_unlisted(self) -> int:
        """Older checkpoints of the thread not read yet: 0 when all are listed, -1 when
        some are but the store did not say how many."""
        if not self.more_before:
            return 0
        return max(self.total - len(self), 1) if self.total is not None else -1

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, checkpoint_id: object) -> bool:
        return checkpoint_id in self._rows

    def __iter__(self) -> Iterator[TimelineRow]:
        return iter(self._rows.values())

    def get(self, checkpoint_id: str | None) -> TimelineRow | None:
        return self._rows.get(checkpoint_id) if checkpoint_id else None

    def rows(self) -> tuple[TimelineRow, ...]:
        """Oldest first (creation order)."""
        if self._in_order:
            return tuple(self._rows.values())
        return tuple(sorted(self._rows.values(), key=lambda r: r.id))

    def subgraph_rows(self) -> tuple[TimelineRow, ...]:
        """The subgraphs' checkpoints, oldest first."""
        return tuple(sorted(self._subs.values(), key=lambda r: r.id))

    def all_rows(self) -> tuple[TimelineRow, ...]:
        """The thread's rows then its subgraphs' rows: what the timeline shows."""
        return self.rows() + self.subgraph_rows() if self._subs else self.rows()

    def subgraph_row(self, checkpoint_id: str | None) -> TimelineRow | None:
        return self._subs.get(checkpoint_id) if checkpoint_id else None

    @property
    def latest_id(self) -> str | None:
        return self._latest

    def parent(self, checkpoint_id: str) -> str | None:
        row = self._rows.get(checkpoint_id)
        return row.parent_id if row is not None and row.parent_id in self._rows else None

    def children(self, checkpoint_id: str | None) -> tuple[str, ...]:
        return tuple(sorted(self._children.get(checkpoint_id, ())))

    def branches(self) -> int:
        """How many checkpoints have more than one child (fork points)."""
        return sum(1 for kids in self._children.values() if len(kids) > 1)

    def ancestors(self, checkpoint_id: str | None, limit: int | None = None) -> list[str]:
        """`checkpoint_id` and its parents, newest first."""
        out: list[str] = []
        seen: set[str] = set()
        current = checkpoint_id
        # a damaged or crafted file may hold a parent cycle: stop where it closes
        while current is not None and current in self._rows and current not in seen \
                and (limit is None or len(out) < limit):
            out.append(current)
            seen.add(current)
            current = self._rows[current].parent_id
        return out

    def back(self, viewed: str | None) -> str | None:
        """The parent of the viewed checkpoint (None when it has none)."""
        return self.parent(viewed) if viewed else None

    def forward(self, viewed: str | None, head: str | None) -> str | None:
        """The child of `viewed` towards `head` when head descends from it, else its newest child."""
        if viewed is None:
            return None
        kids = self.children(viewed)
        if not kids:
            return None
        if head is not None:
            path = self.ancestors(head)
            if viewed in path:
                i = path.index(viewed)
                if i > 0:
                    return path[i - 1]
        return kids[-1]

    def branch_point(self, checkpoint_id: str) -> str | None:
        """The checkpoint where the branch holding `checkpoint_id` leaves the main line
        (None on the main line): the nearest ancestor of which it descends through a
        child that is not the oldest."""
        path = self.ancestors(checkpoint_id)
        for child, parent in zip(path, path[1:]):
            kids = self.children(parent)
            if len(kids) > 1 and child != kids[0]:
                return parent
        return None

    def describe(self, checkpoint_id: str) -> str:
        """"step 3 · review · branch from step 1 · 14:02:11": a checkpoint in words."""
        row = self.get(checkpoint_id)
        if row is None:
            return checkpoint_id
        from .convert import clock

        nodes = ", ".join(row.nodes) if row.nodes else ("input" if row.source == "input" else row.source)
        fork = self.branch_point(checkpoint_id)
        fork_row = self.get(fork)
        where = f"branch from step {fork_row.step}" if fork_row is not None else "main line"
        return f"step {row.step} · {nodes} · {where} · {clock(row.created_at)}"
