"""The command palette (Ctrl+Shift+P): every action of the window's menus with its key and
its menu, filtered as you type (fuzzy: the letters in order, word starts and runs count
most), Enter runs the highlighted one. Up/Down move, Escape closes.

Nothing here knows what an action does: the palette lists the QActions the menus hold, so
a new action in a menu shows up in it without more code.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

__all__ = ["PaletteEntry", "CommandPalette", "fuzzy_score", "palette_entries", "install_palette"]


@dataclass(frozen=True, kw_only=True)
class PaletteEntry:
    """One row of the palette."""

    text: str
    """The action's name without its mnemonic ("Step Node")."""
    keys: str
    """Its shortcut as the platform writes it ("F10"), or ""."""
    menu: str
    """Where it lives in the menus ("Run", "View ▸ Debug")."""
    action: QAction


def fuzzy_score(query: str, text: str) -> float | None:
    """How well `query` matches `text` (higher is better), None when its letters do not all
    appear in order. Spaces in the query are ignored; a letter at a word start or right
    after the previous match scores more, so "sn" ranks "Step Node" above "Restart"."""
    needle = [c for c in query.lower() if not c.isspace()]
    if not needle:
        return 0.0
    hay = text.lower()
    score, at, previous = 0.0, 0, -2
    for char in needle:
        found = hay.find(char, at)
        if found < 0:
            return None
        word_start = found == 0 or not hay[found - 1].isalnum()
        score += 1.0 + (2.0 if word_start else 0.0) + (1.5 if found == previous + 1 else 0.0)
        previous, at = found, found + 1
    return score - 0.01 * len(hay)  # of equal matches, the shorter name first


def _clean(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip(".…").strip()


def palette_entries(window: QMainWindow) -> list[PaletteEntry]:
    """Every action reachable from the window's menus (submenus walked), once each, in menu
    order; the palette's own action is left out."""
    entries: list[PaletteEntry] = []
    seen: set[int] = set()

    def walk(menu: QMenu, path: str) -> None:
        for action in menu.actions():
            if action.isSeparator() or not action.isVisible():
                continue
            sub = action.menu()
            if isinstance(sub, QMenu):
                walk(sub, f"{path} ▸ {_clean(sub.title())}")
                continue
            if id(action) in seen or not _clean(action.text()) or action.objectName() == "commandPalette":
                continue
            seen.add(id(action))
            keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            entries.append(PaletteEntry(text=_clean(action.text()), keys=keys, menu=path, action=action))

    for top in window.menuBar().actions():
        menu = top.menu()
        if isinstance(menu, QMenu):
            walk(menu, _clean(menu.title()))
    return entries


class CommandPalette(QDialog):
    """The palette: a filter line over the list of actions."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window_ = window
        self.setObjectName("commandPalette")
        self.setWindowTitle("Command Palette")
        self.setModal(True)
        self.edit = QLineEdit(objectName="paletteFilter")
        self.edit.setPlaceholderText("Type to filter the actions; Enter runs the highlighted one")
        self.edit.setClearButtonEnabled(True)
        self.list = QTreeWidget(objectName="paletteList")
        self.list.setColumnCount(3)
        self.list.setHeaderLabels(["Action", "Key", "Menu"])
        self.list.setRootIsDecorated(False)
        self.list.setUniformRowHeights(True)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.list.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.hint = QLabel("")
        self.hint.setObjectName("paletteHint")
        layout = QVBoxLayout(self)
        layout.addWidget(self.edit)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.hint)
        self.entries: list[PaletteEntry] = []
        self.shown: list[PaletteEntry] = []
        self.ran: PaletteEntry | None = None
        self.edit.textChanged.connect(self._filter)
        self.edit.installEventFilter(self)
        self.list.itemActivated.connect(lambda item, _col: self._run(self.list.indexOfTopLevelItem(item)))

    def open_palette(self) -> None:
        """Fill from the menus as they are now, clear the filter and show."""
        self.entries = palette_entries(self.window_)
        self.ran = None
        self.edit.clear()
        self._filter("")
        parent = self.window_.geometry()
        width = min(720, max(420, parent.width() * 2 // 3))
        height = min(520, max(260, parent.height() * 2 // 3))
        self.resize(width, height)
        self.move(parent.x() + (parent.width() - width) // 2, parent.y() + 60)
        self.show()
        self.raise_()
        self.activateWindow()
        self.edit.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _filter(self, text: str) -> None:
        scored = [(fuzzy_score(text, f"{e.text} {e.menu}"), i, e) for i, e in enumerate(self.entries)]
        matched = [(s, i, e) for s, i, e in scored if s is not None]
        if text.strip():
            matched.sort(key=lambda t: (-(t[0] or 0.0), t[1]))
        self.shown = [e for _s, _i, e in matched]
        self.list.clear()
        for entry in self.shown:
            item = QTreeWidgetItem([entry.text, entry.keys, entry.menu])
            item.setToolTip(0, entry.action.toolTip())
            if not entry.action.isEnabled():
                item.setDisabled(True)
            self.list.addTopLevelItem(item)
        first = next((i for i, e in enumerate(self.shown) if e.action.isEnabled()), 0 if self.shown else -1)
        if first >= 0:
            self.list.setCurrentItem(self.list.topLevelItem(first))
        self.hint.setText(f"{len(self.shown)} of {len(self.entries)} actions · ↑↓ move · Enter runs · Esc closes"
                          if self.shown else "No action matches; Backspace to widen the filter.")

    def current_entry(self) -> PaletteEntry | None:
        index = self.list.indexOfTopLevelItem(self.list.currentItem()) if self.list.currentItem() else -1
        return self.shown[index] if 0 <= index < len(self.shown) else None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        """Up/Down/PageUp/PageDown in the filter line move in the list; Enter runs."""
        if watched is self.edit and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            key = event.key()
            if key in (Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_PageUp, Qt.Key.Key_PageDown):
                self.list.keyPressEvent(event)  # the list moves its current row (and skips disabled rows)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                entry = self.current_entry()
                self._run(self.shown.index(entry) if entry is not None else -1)
                return True
        return super().eventFilter(watched, event)

    def _run(self, index: int) -> None:
        if not 0 <= index < len(self.shown):
            return
        entry = self.shown[index]
        if not entry.action.isEnabled():
            self.hint.setText(f"“{entry.text}” is not available now.")
            return
        self.ran = entry
        self.accept()
        entry.action.trigger()  # after the palette closed: a dialog it opens gets the focus


def install_palette(window: QMainWindow, menu: QMenu | None) -> tuple[QAction, CommandPalette]:
    """The Ctrl+Shift+P action (in `menu`, and working from any dock) and its palette."""
    palette = CommandPalette(window)
    action = QAction("Command &Palette…", window)
    action.setObjectName("commandPalette")
    action.setShortcut(QKeySequence("Ctrl+Shift+P"))
    action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    action.setToolTip("Every action with its key; type to filter, Enter runs it (Ctrl+Shift+P)")
    action.triggered.connect(palette.open_palette)
    window.addAction(action)
    if menu is not None:
        menu.addSeparator()
        menu.addAction(action)
    return action, palette
