"""A toolbar that keeps within the window's width: buttons first give up their text (the
short label stays in the tooltip and the menus), then the least used ones move into a "⋯"
menu at the end of their toolbar, in a fixed order, and come back when there is room again.
Nothing is dropped: every action keeps its key, its menu entry, and a place in "⋯".
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QToolBar, QToolButton

__all__ = ["ToolbarOverflow", "OVERFLOW_TEXT"]

OVERFLOW_TEXT = "⋯"


class ToolbarOverflow:
    """Fits one toolbar to a width (`fit`). The toolbar's entries (actions, separators,
    widgets) as they are when this is made are its order; `drop_text` lists the buttons that
    lose their text first, `overflow` the actions that move into "⋯" first; `icon_only` the
    buttons that never show text."""

    def __init__(self, bar: QToolBar, *, overflow: Sequence[QAction], drop_text: Sequence[QAction] = (),
                 icon_only: Sequence[QAction] = (), before: QAction | None = None,
                 stand_ins: Mapping[QAction, QAction] | None = None) -> None:
        self.bar = bar
        self.button = QToolButton(bar, objectName=f"{bar.objectName()}Overflow")
        self.button.setText(OVERFLOW_TEXT)
        self.button.setToolTip("More: the actions that do not fit this toolbar")
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.menu = QMenu(self.button)
        self.button.setMenu(self.menu)
        self.button_action = bar.insertWidget(before, self.button) if before is not None \
            else bar.addWidget(self.button)
        self.button_action.setVisible(False)
        self.order: list[QAction] = list(bar.actions())
        """Every entry of the toolbar, in its place (the "⋯" button's included)."""
        self.overflow = [a for a in overflow if a in self.order]
        self.drop_text = [a for a in drop_text if a in self.order]
        self.icon_only = set(icon_only)
        self.stand_ins = dict(stand_ins or {})
        """A widget's entry (`addWidget`) -> what "⋯" offers instead when the widget does not
        fit (a submenu with the widget's choices)."""
        self.hidden: list[QAction] = []
        """The actions now in the "⋯" menu, in toolbar order."""

    def fit(self, width: int) -> None:
        """Everything back on the toolbar; then texts dropped, then actions moved into "⋯",
        until the toolbar's width fits `width`."""
        self._restore()
        if self._need() <= width:
            return
        for action in self.drop_text:
            self._style(action, Qt.ToolButtonStyle.ToolButtonIconOnly)
            if self._need() <= width:
                return
        self.button_action.setVisible(True)
        for action in self.overflow:
            if action in self.stand_ins:
                action.setVisible(False)  # a widget: hidden here, its stand-in goes into "⋯"
            else:
                self.bar.removeAction(action)
            self.hidden.append(action)
            self._tidy_separators()
            if self._need() <= width:
                break
        self.hidden.sort(key=self.order.index)
        self._fill_menu()

    # -- helpers -----------------------------------------------------------------------------
    def _need(self) -> int:
        layout = self.bar.layout()
        if layout is not None:
            layout.invalidate()
        return self.bar.sizeHint().width()

    def _style(self, action: QAction, style: Qt.ToolButtonStyle) -> None:
        button = self.bar.widgetForAction(action)
        if isinstance(button, QToolButton):
            button.setToolButtonStyle(style)

    def _restore(self) -> None:
        for action in self.hidden:
            if action in self.stand_ins:
                action.setVisible(True)
                continue
            present = set(self.bar.actions())
            at = self.order.index(action)
            after = next((a for a in self.order[at + 1:] if a in present), None)
            if after is None:
                self.bar.addAction(action)
            else:
                self.bar.insertAction(after, action)
        self.hidden = []
        self._empty_menu()
        self.button_action.setVisible(False)
        for action in self.order:
            if action.isSeparator():
                action.setVisible(True)
            elif self.bar.widgetForAction(action) is not None and not _is_widget(self.bar, action):
                self._style(action, Qt.ToolButtonStyle.ToolButtonIconOnly if action in self.icon_only
                            else Qt.ToolButtonStyle.ToolButtonTextBesideIcon)

    def _tidy_separators(self) -> None:
        """A separator shows only between two groups that both have a button left."""
        present = set(self.bar.actions())
        seen_button = False
        pending: QAction | None = None
        for action in self.order:
            if action not in present or (not action.isSeparator() and not action.isVisible()):
                continue
            if action.isSeparator():
                action.setVisible(False)
                if seen_button:
                    pending = action
                continue
            if pending is not None:
                pending.setVisible(True)
                pending = None
            seen_button = True

    def _empty_menu(self) -> None:
        """Take every entry out of "⋯" (QMenu.clear would delete the stand-ins' actions)."""
        for action in self.menu.actions():
            self.menu.removeAction(action)
            if action.isSeparator():
                action.deleteLater()

    def _fill_menu(self) -> None:
        self._empty_menu()
        last_group = None
        for action in self.hidden:
            group = sum(1 for a in self.order[:self.order.index(action)] if a.isSeparator())
            if last_group is not None and group != last_group:
                self.menu.addSeparator()
            self.menu.addAction(self.stand_ins.get(action, action))
            last_group = group


def _is_widget(bar: QToolBar, action: QAction) -> bool:
    """An entry made by `addWidget` (the thread box, a label, the "⋯" button): never restyled."""
    widget = bar.widgetForAction(action)
    return not isinstance(widget, QToolButton) or widget.objectName().endswith("Overflow")
