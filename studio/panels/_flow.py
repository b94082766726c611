"""A layout that places its items left to right and wraps them onto more lines when its
width runs out: a header of buttons (the timeline's, the stop banner's keys) never makes
its dock wider than the screen, however large a presentation zoom makes the text."""
from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtWidgets import QLayout, QLayoutItem

__all__ = ["FlowLayout"]


class FlowLayout(QLayout):
    """Items at their size hints, in rows; a row ends where the next item would not fit.
    The minimum width is the widest item's; the height follows the width it is given."""

    def __init__(self, spacing: int = 4) -> None:
        super().__init__()
        self._items: list[QLayoutItem] = []
        self.setSpacing(spacing)
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 (Qt's name)
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 (Qt's name)
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 (Qt's name)
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 (Qt's name)
        super().setGeometry(rect)
        self._place(rect, move=True)

    def _shown(self) -> list[QLayoutItem]:
        return [i for i in self._items if not i.isEmpty()]

    @staticmethod
    def _hint(item: QLayoutItem) -> QSize:
        """An item's size hint; a widget's own (a label whose width policy is Ignored, as a
        zoom makes it, has a zero-wide hint as a layout item: it was drawn cut to "3")."""
        widget = item.widget()
        return widget.sizeHint().expandedTo(widget.minimumSize()) if widget is not None else item.sizeHint()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        shown = self._shown()
        width = sum(self._hint(i).width() for i in shown) + self.spacing() * max(len(shown) - 1, 0)
        return QSize(width, max((self._hint(i).height() for i in shown), default=0))

    def minimumSize(self) -> QSize:  # noqa: N802 (Qt's name)
        shown = self._shown()
        return QSize(max((i.minimumSize().width() for i in shown), default=0),
                     max((i.minimumSize().height() for i in shown), default=0))

    def _rows(self, width: int) -> list[list[tuple[QLayoutItem, int]]]:
        """The items of each row with the width each gets."""
        rows: list[list[tuple[QLayoutItem, int]]] = [[]]
        used = 0
        for item in self._shown():
            least = self._hint(item).width()
            if rows[-1] and used + self.spacing() + least > width:
                rows.append([])
                used = 0
            used += (self.spacing() if rows[-1] else 0) + least
            rows[-1].append((item, least))
        return rows

    def _place(self, rect: QRect, *, move: bool) -> int:
        y = rect.y()
        for row in self._rows(rect.width()):
            height = max((self._hint(item).height() for item, _ in row), default=0)
            x = rect.x()
            for item, width in row:
                if move:
                    item.setGeometry(QRect(QPoint(x, y), QSize(min(width, rect.width()), height)))
                x += width + self.spacing()
            y += height + self.spacing()
        return max(y - self.spacing() - rect.y(), 0)
