"""The superstep panel: the tasks of the superstep in progress and why each runs, the
writes of the tasks that finished (kept aside, not applied yet) with the reducer that
will merge each, the conflicts the commit will meet, the joins still waiting, and, after
a commit, how each key's writes merged into the state."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QHeaderView, QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from studio.core.explain import WhyView, pending_groups
from studio.core.valuefmt import preview
from studio.panels._common import title_label

__all__ = ["SuperstepPanel"]

_PENDING = QColor("#047857")
_CONFLICT = QColor("#b91c1c")
_WAIT = QColor("#b45309")


def _item(texts: list[str], *, colour: QColor | None = None, bold: bool = False, tip: str = "") -> QTreeWidgetItem:
    item = QTreeWidgetItem(texts)
    for col in range(len(texts)):
        if colour is not None:
            item.setForeground(col, colour)
        if bold:
            font = QFont(item.font(col))
            font.setBold(True)
            item.setFont(col, font)
        item.setToolTip(col, tip or texts[col])
    return item


class SuperstepPanel(QWidget):
    """What the superstep on screen does, in words and pending writes.

    Methods:
        set_why(why: WhyView): show the superstep (live, or a checkpoint read back).
    Signals: none (read-only).

    Sections (top-level rows): "Runs together" (each task and why; ✓ when its writes are
    in), "Pending writes (not applied yet)" grouped by key, each write with its node and
    the reducer that will merge it; "Conflicts"; "Waiting"; "Last commit merged".
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title_label("Superstep")
        self.summary = QLabel("Nothing runs yet.")
        self.summary.setWordWrap(True)
        self.summary.setObjectName("superstepSummary")
        self.tree = QTreeWidget()
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["", "", ""])
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(True)
        self.tree.setWordWrap(True)
        self.tree.setUniformRowHeights(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        layout.addWidget(self.summary)
        self.conflict_note = QLabel("")
        self.conflict_note.setObjectName("conflictNote")
        self.conflict_note.setWordWrap(True)
        self.conflict_note.setStyleSheet("color: #b91c1c; font-weight: 600")
        self.conflict_note.hide()
        layout.addWidget(self.conflict_note)
        layout.addWidget(self.tree, 1)
        self.why = WhyView()

    def section(self, name: str) -> QTreeWidgetItem | None:
        """The top-level row whose text starts with `name` (tests, and the README)."""
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.text(0).startswith(name):
                return item
        return None

    def set_why(self, why: WhyView) -> None:
        self.why = why
        self.tree.clear()
        where = " (viewing a checkpoint)" if why.viewing else ""
        self.title.setText(f"Superstep {why.step}{where}" if why.step is not None else f"Superstep{where}")
        self.summary.setText(why.summary)
        self.conflict_note.setText("\n".join(t.replace("`", "") for t in why.conflicts))
        self.conflict_note.setVisible(bool(why.conflicts))
        if why.together:
            runs = _item([f"Runs together ({len(why.together)})", "", ""], bold=True)
            seen: set[str] = set()
            for node in why.together:
                if node in seen:
                    continue
                seen.add(node)
                count = why.together.count(node)
                mark = "✓ " if node in why.finished else "· "
                name = f"{mark}{node}" + (f" ×{count}" if count > 1 else "")
                runs.addChild(_item([name, why.hover.get(node, "").replace("`", ""), ""],
                                    colour=_PENDING if node in why.finished else None))
            self.tree.addTopLevelItem(runs)
        if why.pending:
            pending = _item(["Pending writes (not applied yet)", "", ""], colour=_PENDING, bold=True)
            for key, rows in pending_groups(why.pending).items():
                group = _item([key, f"{len(rows)} write{'s' if len(rows) != 1 else ''} · {rows[0].reducer}", ""],
                              bold=True, tip=rows[0].how)
                for row in rows:
                    group.addChild(_item([f"⊕ {row.node}", preview(row.value, 160), row.reducer], tip=row.how))
                pending.addChild(group)
            self.tree.addTopLevelItem(pending)
        if why.conflicts:
            conflicts = _item(["Conflicts", "", ""], colour=_CONFLICT, bold=True)
            for text in why.conflicts:
                conflicts.addChild(_item([text.replace("`", ""), "", ""], colour=_CONFLICT))
            self.tree.addTopLevelItem(conflicts)
        if why.waiting:
            waiting = _item(["Waiting", "", ""], colour=_WAIT, bold=True)
            for node, text in why.waiting.items():
                waiting.addChild(_item([node, text.replace("`", ""), ""], colour=_WAIT))
            self.tree.addTopLevelItem(waiting)
        if why.merged:
            merged = _item([f"Step {why.merged_step} committed: merged into the state", "", ""], bold=True)
            for m in why.merged:
                counts: dict[str, int] = {}
                for w in m.writers:
                    counts[w] = counts.get(w, 0) + 1
                writers = ", ".join(w + (f" ×{c}" if c > 1 else "") for w, c in counts.items())
                merged.addChild(_item([m.key, f"{writers} → {preview(m.after, 120)}", m.how.split(":")[0]],
                                      tip=m.how))
            self.tree.addTopLevelItem(merged)
        for i in range(self.tree.topLevelItemCount()):
            self.tree.topLevelItem(i).setFirstColumnSpanned(True)
        self.tree.expandAll()
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.tree.setColumnWidth(0, 160)
        self.tree.setColumnWidth(2, 110)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
