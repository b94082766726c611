"""The superstep panel: the tasks of the superstep in progress and why each runs, the
writes of the tasks that finished (kept aside, not applied yet) with the reducer that
will merge each, the conflicts the commit will meet, the joins still waiting, and, after
a commit, how each key's writes merged into the state."""
from __future__ import annotations

import re

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPointF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QShowEvent, QTextDocument, QTextOption
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from studio.core.explain import pending_groups
from studio.core.records import WhyMarks
from studio.core.safe import total
from studio.core.valuefmt import preview
from studio.panels._common import MUTED, escape, title_label

__all__ = ["SuperstepPanel"]

_TOGETHER = re.compile(r"; it runs in the same superstep as [^;]*?, on the same snapshot")
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
    item.setToolTip(0, tip or "  ".join(t for t in texts if t))
    return item


class _Paragraph(QStyledItemDelegate):
    """A row of the superstep tree as one paragraph wrapped to the panel's width: the
    row's name (its colour, bold if the row is), then its explanation, then the reducer
    in grey. The tree shows only this column; the other two hold the parts (and tests)."""

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self.tree = tree

    def _document(self, index: QModelIndex | QPersistentModelIndex, width: int) -> QTextDocument:
        font = index.data(Qt.ItemDataRole.FontRole)
        font = QFont(font) if isinstance(font, QFont) else QFont(self.tree.font())
        brush = index.data(Qt.ItemDataRole.ForegroundRole)
        colour = brush.color().name() if brush is not None and hasattr(brush, "color") else None
        name = escape(str(index.data() or ""))
        style = (f"color: {colour};" if colour else "") + ("font-weight: 600;" if font.bold() else "")
        html = f"<span style='{style}'>{name}</span>" if style else name
        detail = index.siblingAtColumn(1).data()
        if detail:
            html += "&nbsp;&nbsp;" + escape(str(detail))
        extra = index.siblingAtColumn(2).data()
        parent = index.parent()
        if extra and parent.isValid() and str(extra) in str(parent.siblingAtColumn(1).data() or ""):
            extra = None  # "results  1 write · operator.add" above it says so already
        if extra:
            html += f" <span style='color: {MUTED}'>· {escape(str(extra))}</span>"
        html = f"<p style='margin: 0; margin-left: 14px; text-indent: -14px'>{html}</p>"  # a hanging indent
        font.setBold(False)
        doc = QTextDocument()
        doc.setDefaultFont(font)
        doc.setDocumentMargin(2)
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        doc.setDefaultTextOption(option)
        doc.setHtml(html)
        doc.setTextWidth(max(width, 40))
        return doc

    def _width(self, index: QModelIndex | QPersistentModelIndex) -> int:
        """Column 0's width less the indentation of the row's level."""
        depth, parent = 0, index.parent()
        while parent.isValid():
            depth, parent = depth + 1, parent.parent()
        levels = depth + (1 if self.tree.rootIsDecorated() else 0)
        return self.tree.columnWidth(0) - levels * self.tree.indentation() - 4

    @total(None)
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget else None
        if style is not None:  # background, selection, focus
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        doc = self._document(index, opt.rect.width() - 4)
        painter.save()
        painter.translate(QPointF(opt.rect.left() + 2, opt.rect.top() + 1))
        doc.drawContents(painter)
        painter.restore()

    @total(QSize())
    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex) -> QSize:
        width = self._width(index)
        doc = self._document(index, width)
        return QSize(width, int(doc.size().height()) + 2)


class SuperstepPanel(QWidget):
    """What the superstep on screen does, in words and pending writes.

    Methods:
        set_why(why: WhyMarks): show the superstep (live, or a checkpoint read back).
    Signals: none (read-only).

    Sections (top-level rows): "Runs together" (each task and why; ✓ when its writes are
    in), "Pending writes (not applied yet)" grouped by key, each write with its node and
    the reducer that will merge it; "Conflicts"; "Waiting"; "Last commit merged".
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # the title and the summary share one wrapped label: the dock is short at 1280x720
        self.title = title_label("")
        self.title.setObjectName("superstepSummary")
        self.title.setFont(self.font())
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self._set_title("Superstep", "Nothing runs yet.")
        self.tree = QTreeWidget()
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["", "", ""])
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(True)
        self.tree.setIndentation(14)
        self.tree.setUniformRowHeights(False)
        self.tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # one column, each row a paragraph wrapped to the width (nothing ends in "…")
        self.tree.setItemDelegateForColumn(0, _Paragraph(self.tree))
        self.tree.setColumnHidden(1, True)
        self.tree.setColumnHidden(2, True)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.sectionResized.connect(lambda *_: self.tree.doItemsLayout())  # wrap to the new width
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        self.conflict_note = QLabel("")
        self.conflict_note.setObjectName("conflictNote")
        self.conflict_note.setWordWrap(True)
        self.conflict_note.setStyleSheet("color: #b91c1c; font-weight: 600")
        self.conflict_note.hide()
        layout.addWidget(self.conflict_note)
        layout.addWidget(self.tree, 1)
        self.why = WhyMarks()
        self._built = True
        self.builds = 0
        """Trees built so far (a hidden panel builds none until it is shown)."""

    def _set_title(self, title: str, summary: str) -> None:
        self.title.setText(f"<b style='color: #102a43'>{escape(title)}</b>&nbsp; {escape(summary)}")

    def section(self, name: str) -> QTreeWidgetItem | None:
        """The top-level row whose text starts with `name` (tests, and the README)."""
        self._build()
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item.text(0).startswith(name):
                return item
        return None

    def set_why(self, why: WhyMarks) -> None:
        """Show `why`; a hidden panel (its dock closed or behind another tab) builds its
        tree when it is shown: a 300-task superstep's tree is ~900 rows."""
        self.why, self._built = why, False
        if self.isVisible():
            self._build()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._build()

    def _build(self) -> None:
        if not self._built:
            self._built = True
            self.builds += 1
            self._fill(self.why)

    def _fill(self, why: WhyMarks) -> None:
        self.tree.clear()
        where = " (viewing a checkpoint)" if why.viewing else ""
        self._set_title(f"Superstep {why.step}{where}" if why.step is not None else f"Superstep{where}", why.summary)
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
                full = why.hover.get(node, "").replace("`", "")
                reason = full[len(node) + 1:] if full.startswith(f"{node} ") else full  # the name is there
                # "…; it runs in the same superstep as b, on the same snapshot": the section says so
                reason = _TOGETHER.sub("", reason)
                runs.addChild(_item([name, reason, ""], tip=full,
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
