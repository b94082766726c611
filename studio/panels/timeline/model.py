"""The checkpoint tree of a thread, flattened for a table view.

A thread's checkpoints form a tree through their parent ids. A linear chain is shown as
sibling rows; only where a checkpoint has more than one child does a branch start: the
oldest child continues the line, each newer one opens an indented branch under a header
row ("↳ branch from step 3 · 12 checkpoints") that can be collapsed. The model keeps the
list of visible rows (plain ints) and answers `data()` from the TimelineRow records, so a
100,000-checkpoint thread costs a few lists, not 100,000 items; a table view never walks
all rows the way a tree view does.

A subgraph's checkpoints (rows with a namespace) hang under the parent checkpoint whose
superstep ran them, one level deeper, labelled with the subgraph's path ("team › write");
they take no part in the chains and branches, and are never the head.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont

from studio.core.safe import total
from studio.core.records import TimelineRow
from studio.core.timeline_tree import Chain, flatten_run, tree_of
from studio.core.valuefmt import clock
from studio.panels._common import MUTED, BadgeRole, KindRole
from .roles import DepthRole, ExpandedRole, IdRole, LanesRole, Look, make_look

__all__ = ["TimelineModel", "DepthRole", "IdRole", "LanesRole", "Lanes"]

LOOKS_KEPT = 2_000
"""The most row looks kept (a few screens): scrolling through 100,000 rows keeps no look per row."""


@dataclass(frozen=True, slots=True)
class Lanes:
    """The branch lines at one row of the step column, a lane per indentation level.

    `through`: for each level above the row's own, whether a line passes the row (the
    chain there goes on below it: the old line after a branch is drawn continuing past
    the branch, so it never reads as the branch's continuation). `up` / `down`: the row's
    own line reaches the row above / below it. A branch header (`elbow`) draws a corner
    from its fork point's line (level `level - 1`) into its own lane, and `down` is
    whether that fork point's line goes on past the branch."""

    level: int
    through: tuple[bool, ...]
    up: bool
    down: bool
    elbow: bool = False
    into: bool = False
    """A header's: its branch is unfolded (the branch's line starts under it)."""


_COLUMNS = ("Step", "Source", "Nodes", "Time")
_DISPLAY = Qt.ItemDataRole.DisplayRole
_ANSWERED = frozenset(int(r) for r in (
    Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.FontRole, Qt.ItemDataRole.BackgroundRole,
    Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.ToolTipRole, BadgeRole, KindRole, DepthRole, IdRole, ExpandedRole,
    LanesRole))
Index = QModelIndex | QPersistentModelIndex


class TimelineModel(QAbstractTableModel):
    """Rows: checkpoints (index >= 0 in `_visible`) and branch headers (-(chain + 1))."""

    def __init__(self) -> None:
        super().__init__()
        self._clear()
        self.head: str | None = None
        self.current: str | None = None
        self.recorded: dict[str, frozenset[str]] = {}
        """Checkpoint id -> nodes answered from records by a recorded replay."""

    def _clear(self) -> None:
        self._rows: list[TimelineRow] = []
        self._index: dict[str, int] = {}
        self._chain_of: list[int] = []
        self._chains: list[Chain] = []
        self._branches: dict[int, list[int]] = {}
        self._collapsed: set[int] = set()
        self._visible: list[int] = []
        self._sizes: dict[int, int] = {}
        self._clocks: dict[int, str] = {}
        self._subs: dict[int, list[int]] = {}
        """Parent checkpoint → its subgraphs' checkpoints (oldest first)."""
        self._waiting: dict[str, list[int]] = {}
        """Subgraph checkpoints whose parent checkpoint is not listed (yet)."""
        self._through: dict[int, tuple[bool, ...]] = {}
        """Chain -> the lines passing its rows (`Lanes.through`), worked out when drawn."""
        self._looks: dict[int, Look] = {}
        """Entry -> what its row shows (`look`), for the rows painted since the last change."""

    # -- building ----------------------------------------------------------------------
    def set_rows(self, rows: Iterable[TimelineRow]) -> None:
        """Show `rows`; their tree is the one built off the UI thread when they come planned
        (`studio.core.timeline_tree.plan_rows`), so a long history only swaps in here."""
        tree = tree_of(rows)
        self.beginResetModel()
        self._clear()
        self._rows, self._index, self._chain_of = tree.rows, tree.index, tree.chain_of
        self._chains, self._branches = tree.chains, tree.branches
        self._subs, self._waiting, self._visible = tree.subs, tree.waiting, tree.visible
        self.endResetModel()

    def _root_chains(self) -> list[int]:
        return [i for i, chain in enumerate(self._chains) if chain.owner is None]

    def _flatten_run(self, chain_id: int) -> list[int]:
        """The visible entries of a chain: its checkpoints with their (expanded) branches."""
        return flatten_run(chain_id, self._chains, self._branches, self._subs, self._collapsed)

    def _branches_block(self, i: int) -> int:
        """How many visible rows the branches of checkpoint `i` take."""
        total = len(self._subs.get(i, ()))
        for b in self._branches.get(i, ()):
            total += 1 + (0 if b in self._collapsed else len(self._flatten_run(b)))
        return total

    def append_rows(self, rows: Iterable[TimelineRow]) -> None:
        for row in sorted(rows, key=lambda r: (r.created_at, r.id)):
            if row.id not in self._index:
                self._append(row)

    def _append(self, row: TimelineRow) -> None:
        self._sizes.clear()
        self._through.clear()
        self._looks.clear()
        i = len(self._rows)
        self._rows.append(row)
        self._index[row.id] = i
        if row.namespace:
            owner = self._index.get(row.owner_id or "")
            self._chain_of.append(self._chain_of[owner] if owner is not None else 0)
            if owner is None or self._rows[owner].namespace:
                self._waiting.setdefault(row.owner_id or "", []).append(i)
            else:
                self._attach_sub(i, owner)
            return
        self._append_row(i, row)
        for sub in self._waiting.pop(row.id, ()):  # subgraph rows listed before their parent step
            self._chain_of[sub] = self._chain_of[i]
            self._attach_sub(sub, i)

    def _attach_sub(self, i: int, owner: int) -> None:
        """Show subgraph checkpoint `i` under its parent step, after the ones it already has."""
        kids = self._subs.setdefault(owner, [])
        kids.append(i)
        if self._run_shown(self._chain_of[owner]):
            try:
                at = self._position(owner) + len(kids)
            except ValueError:
                return
            self._insert(at, [i])

    def _append_row(self, i: int, row: TimelineRow) -> None:
        p = self._index.get(row.parent_id) if row.parent_id is not None else None
        if p is not None and p != i and self._chains[self._chain_of[p]].items[-1] == p:
            r = self._chain_of[p]  # continues its parent's line
            self._chains[r].items.append(i)
            self._chain_of.append(r)
            if self._visible and self._visible[-1] == p:
                self._insert(len(self._visible), [i])
            elif self._run_shown(r):
                self._insert(self._position(p) + 1 + self._branches_block(p), [i])
            return
        if p is None or p == i:  # a new root
            first = not self._root_chains()
            r = len(self._chains)
            self._chains.append(Chain(owner=None, depth=0, items=[i]))
            self._chain_of.append(r)
            self._insert(len(self._visible), [i] if first else [-(r + 1), i])
            return
        r = len(self._chains)  # a new branch from p
        depth = self._chains[self._chain_of[p]].depth + 1
        self._chains.append(Chain(owner=p, depth=depth, items=[i]))
        self._chain_of.append(r)
        shown = self._run_shown(self._chain_of[p])
        at = self._position(p) + 1 + self._branches_block(p) if shown else -1
        self._branches.setdefault(p, []).append(r)
        if shown:
            self._insert(at, [-(r + 1), i])

    def _insert(self, at: int, entries: Sequence[int]) -> None:
        self._looks.clear()  # the rows around it draw their lines on to it
        self.beginInsertRows(QModelIndex(), at, at + len(entries) - 1)
        self._visible[at:at] = entries
        self.endInsertRows()

    def _position(self, i: int) -> int:
        """The visible row of entry `i` (ValueError when it is not shown). A linear history
        shows entry i at row i, or i rows after a few headers: looked at first, so finding
        the head of 100,000 rows is not a walk over all of them."""
        v = self._visible
        for at in (i, len(v) - (len(self._rows) - i)):
            if 0 <= at < len(v) and v[at] == i:
                return at
        return v.index(i)

    def _run_shown(self, r: int) -> bool:
        """Whether chain `r` is on screen (no collapsed header above it)."""
        roots = self._root_chains()
        while True:
            chain = self._chains[r]
            if chain.owner is None:
                return r == roots[0] or r not in self._collapsed
            if r in self._collapsed:
                return False
            r = self._chain_of[chain.owner]

    # -- expanding ------------------------------------------------------------------------
    def header_rows(self) -> list[int]:
        """Visible rows that head a branch (none without branches: no walk then)."""
        if len(self._chains) < 2:
            return []
        return [row for row, entry in enumerate(self._visible) if entry < 0]

    def is_header(self, row: int) -> bool:
        return 0 <= row < len(self._visible) and self._visible[row] < 0

    def toggle(self, row: int) -> None:
        """Collapse or expand the branch whose header is at `row`."""
        if not self.is_header(row):
            return
        b = -self._visible[row] - 1
        self._looks.clear()
        if b in self._collapsed:
            self._collapsed.discard(b)
            block = self._flatten_run(b)
            if block:
                self._insert(row + 1, block)
        else:
            n = len(self._flatten_run(b))
            self._collapsed.add(b)
            if n:
                self.beginRemoveRows(QModelIndex(), row + 1, row + n)
                del self._visible[row + 1:row + 1 + n]
                self.endRemoveRows()
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(_COLUMNS) - 1))

    def reveal(self, checkpoint_id: str) -> int:
        """Expand the branches above a checkpoint; its visible row, or -1 if unknown."""
        i = self._index.get(checkpoint_id)
        if i is None:
            return -1
        chain = []
        r = self._chain_of[i]
        while True:
            chain.append(r)
            owner = self._chains[r].owner
            if owner is None:
                break
            r = self._chain_of[owner]
        for r in reversed(chain):
            if r in self._collapsed:
                try:
                    self.toggle(self._visible.index(-(r + 1)))
                except ValueError:
                    self._collapsed.discard(r)
        try:
            return self._position(i)
        except ValueError:
            return -1

    # -- lookups --------------------------------------------------------------------------
    def checkpoint_at(self, row: int) -> TimelineRow | None:
        if 0 <= row < len(self._visible) and self._visible[row] >= 0:
            return self._rows[self._visible[row]]
        return None

    def entry_at(self, row: int) -> int | None:
        """What a visible row shows, as a key that stays with it when rows above move: a
        checkpoint's index (>= 0) or a branch header's (< 0); None past the end."""
        return self._visible[row] if 0 <= row < len(self._visible) else None

    def row_of(self, checkpoint_id: str | None) -> int:
        i = self._index.get(checkpoint_id) if checkpoint_id is not None else None
        if i is None:
            return -1
        try:
            return self._position(i)
        except ValueError:
            return -1

    def rows(self) -> list[TimelineRow]:
        return list(self._rows)

    def mark_recorded(self, marks: Mapping[str, Iterable[str]]) -> None:
        """Checkpoint id -> nodes a recorded replay answered from records: shown "node (rec)"."""
        self.recorded.update({cid: frozenset(nodes) for cid, nodes in marks.items() if nodes})
        self._looks.clear()
        if self._visible:
            self.dataChanged.emit(self.index(0, 2), self.index(len(self._visible) - 1, 2))

    def set_marker(self, which: str, checkpoint_id: str | None) -> None:
        """Move the "head" or "current" marker, repainting the two rows concerned."""
        old = getattr(self, which)
        setattr(self, which, checkpoint_id)
        for cid in (old, checkpoint_id):
            i = self._index.get(cid) if cid is not None else None
            if i is not None:
                self._looks.pop(i, None)
        for cid in (old, checkpoint_id):
            row = self.row_of(cid)
            if row >= 0:
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(_COLUMNS) - 1))

    # -- QAbstractTableModel ----------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._visible)

    def columnCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return _COLUMNS[section]
        return None

    @total(None)
    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in _ANSWERED or not index.isValid():
            return None  # most roles a view asks for (icons, check states…) have no answer here
        return self._answer(self._visible[index.row()], index.column(), role)

    def look(self, row: int) -> Look:
        """Everything visible row `row` shows, in every column: what `data()` answers, in one
        call (a painted row asks for it once instead of a dozen roles per cell)."""
        entry = self._visible[row]
        hit = self._looks.get(entry)
        if hit is None:
            if len(self._looks) >= LOOKS_KEPT:  # scrolled far: the rows now in view are made again
                self._looks.clear()
            hit = self._looks[entry] = make_look(lambda col, role: self._answer(entry, col, role), len(_COLUMNS))
        return hit

    def _answer(self, entry: int, col: int, role: int) -> Any:
        if entry < 0:
            return self._header_data(-entry - 1, col, role)
        r = self._rows[entry]
        if r.namespace:
            return self._sub_data(entry, r, col, role)
        return self._row_data(entry, r, col, role)

    def _row_data(self, entry: int, r: TimelineRow, col: int, role: int) -> Any:
        """A checkpoint of the thread's own."""
        if role == _DISPLAY:
            if col == 0:
                return str(r.step)
            if col == 1:
                return ""
            if col == 2:
                return self._nodes_text(r)
            return self._clock_of(entry)
        if role == BadgeRole:
            if col == 1:
                return r.source, r.source
            if col == 2 and r.id == self.head:
                return "head", "commit"
            return None
        if role == DepthRole:
            return self._chains[self._chain_of[entry]].depth
        if role == LanesRole:
            return self._row_lanes(entry) if col == 0 and len(self._chains) > 1 else None
        if role == IdRole:
            return r.id
        if role == KindRole:
            return "head" if r.id == self.head else "checkpoint"
        if role == Qt.ItemDataRole.FontRole and r.id == self.head:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.BackgroundRole and r.id == self.current and r.id != self.head:
            return QColor("#eef4ff")
        if role == Qt.ItemDataRole.ToolTipRole:
            nxt = ", ".join(r.next) or "END"
            rec = f"\nanswered from the recording (not called): {', '.join(sorted(self.recorded[r.id]))}" \
                if r.id in self.recorded else ""
            return f"checkpoint {r.id}\nstep {r.step} · {r.source} · ran {', '.join(r.nodes) or '—'}\n" \
                   f"next: {nxt}\n{r.created_at}{rec}"
        return None

    def _sub_data(self, entry: int, r: TimelineRow, col: int, role: int) -> Any:
        """A subgraph's checkpoint: one level under its parent step, muted, never the head."""
        if role == _DISPLAY:
            if col == 0:
                return str(r.step)
            if col == 1:
                return ""
            if col == 2:
                return f"{r.path} › {self._nodes_text(r)}"
            return self._clock_of(entry)
        if role == BadgeRole:
            return ("subgraph", "subgraph") if col == 1 else None
        if role == DepthRole:
            return self._chains[self._chain_of[entry]].depth + 1 + r.namespace.count("|")
        if role == LanesRole and col == 0 and len(self._chains) > 1:
            return self._sub_lanes(entry)
        if role == IdRole:
            return r.id
        if role == KindRole:
            return "subgraph"
        if role == Qt.ItemDataRole.ForegroundRole and col in (0, 2, 3):
            return QColor(MUTED)
        if role == Qt.ItemDataRole.BackgroundRole and r.id == self.current:
            return QColor("#eef4ff")
        if role == Qt.ItemDataRole.ToolTipRole:
            nxt = ", ".join(r.next) or "END"
            return (f"subgraph checkpoint {r.id}\n{r.path} · step {r.step} · ran {', '.join(r.nodes) or '—'}\n"
                    f"next: {nxt}\nnamespace {r.namespace}\n{r.created_at}\n"
                    "Saved by the parent step above it (read-only).")
        return None

    def _nodes_text(self, r: TimelineRow) -> str:
        """The nodes column: "node (rec)" for those a recorded replay answered from records."""
        rec = self.recorded.get(r.id)
        if rec:
            return ", ".join(f"{n} (rec)" if n in rec else n for n in r.nodes)
        return _ran(r)

    def _clock_of(self, entry: int) -> str:
        text = self._clocks.get(entry)
        if text is None:
            text = self._clocks[entry] = clock(self._rows[entry].created_at)
        return text

    def has_subgraphs(self) -> bool:
        """Whether any subgraph checkpoint is listed."""
        return bool(self._subs or self._waiting)

    def max_depth(self) -> int:
        """The deepest branch's indentation level (0: no branches)."""
        return max((chain.depth for chain in self._chains), default=0)

    def _header_data(self, b: int, col: int, role: int) -> Any:
        chain = self._chains[b]
        first = self._rows[chain.items[0]]
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 2:
                n = self._run_size(b)
                if chain.owner is None:
                    return f"↳ separate history · {n:,} checkpoint{'s' if n != 1 else ''}"
                owner = self._rows[chain.owner]
                return f"↳ branch from step {owner.step} · {n:,} checkpoint{'s' if n != 1 else ''}"
            if col == 3:
                return clock(first.created_at)
            return ""
        if role == BadgeRole and col == 1:
            return first.source, first.source
        if role == DepthRole:
            return chain.depth
        if role == LanesRole:
            return self._header_lanes(b) if col == 0 else None
        if role == ExpandedRole:
            return b not in self._collapsed
        if role == KindRole:
            return "branch"
        if role == Qt.ItemDataRole.ForegroundRole and col in (2, 3):
            return QColor(MUTED)
        if role == Qt.ItemDataRole.ToolTipRole:
            return (f"{self._header_data(b, 2, Qt.ItemDataRole.DisplayRole)[2:]}\nA branch: a fork, a replay "
                    "or an edit made from an earlier checkpoint. Click to fold.")
        return None

    # -- branch lines ----------------------------------------------------------------------
    def _goes_on(self, p: int, b: int) -> bool:
        """Whether the line of fork point `p` goes on below branch `b` (more of its chain,
        or another of its branches, follows the branch)."""
        chain = self._chains[self._chain_of[p]]
        return chain.items[-1] != p or self._branches.get(p, [b])[-1] != b

    def _lines_through(self, r: int) -> tuple[bool, ...]:
        """The lines passing the rows of chain `r`, one per level above its own."""
        got = self._through.get(r)
        if got is None:
            out: list[bool] = []
            b = r
            seen = 0
            while (owner := self._chains[b].owner) is not None and seen < len(self._chains):
                out.append(self._goes_on(owner, b))
                b, seen = self._chain_of[owner], seen + 1
            got = self._through[r] = tuple(reversed(out))
        return got

    def _row_lanes(self, entry: int) -> Lanes:
        r = self._chain_of[entry]
        chain = self._chains[r]
        first = chain.items[0] == entry
        last = chain.items[-1] == entry
        return Lanes(level=chain.depth, through=self._lines_through(r), up=not first or chain.owner is not None,
                     down=not last)

    def _sub_lanes(self, entry: int) -> Lanes:
        """A subgraph's row under its step: the step's own line passes it when it goes on."""
        r = self._chain_of[entry]
        owner = self._index.get(self._rows[entry].owner_id or "")
        chain = self._chains[r]
        on = owner is not None and (chain.items[-1] != owner or bool(self._branches.get(owner)))
        return Lanes(level=chain.depth + 1, through=(*self._lines_through(r), on), up=False, down=False)

    def _header_lanes(self, b: int) -> Lanes:
        chain = self._chains[b]
        if chain.owner is None:  # a separate history: no line leads into it
            return Lanes(level=0, through=(), up=False, down=False, elbow=False, into=b not in self._collapsed)
        return Lanes(level=chain.depth, through=self._lines_through(self._chain_of[chain.owner]), up=True,
                     down=self._goes_on(chain.owner, b), elbow=True, into=b not in self._collapsed)

    def _run_size(self, b: int) -> int:
        """Checkpoints in a branch, its own sub-branches included."""
        if b in self._sizes:
            return self._sizes[b]
        total, todo = 0, [b]
        while todo:
            chain = self._chains[todo.pop()]
            total += len(chain.items)
            for i in chain.items:
                todo += self._branches.get(i, ())
        self._sizes[b] = total
        return total


def _ran(r: TimelineRow) -> str:
    """What a row's nodes column says: the nodes that ran, "(input)", or "—" (a fork)."""
    return ", ".join(r.nodes) if r.nodes else ("(input)" if r.source == "input" else "—")
