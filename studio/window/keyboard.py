"""The window's keyboard extras: the command palette (Ctrl+Shift+P, `palette.py`) and
"Go to Graph" (Ctrl+G), which puts the focus on the graph, where the arrow keys and Tab
move the focus ring among the nodes (and F9, Shift+F9, Ctrl+F10 act on the node under it).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

from .palette import CommandPalette, install_palette

__all__ = ["Keyboard", "install_keyboard"]


@dataclass
class Keyboard:
    palette: CommandPalette
    palette_action: QAction
    go_to_graph: QAction


def install_keyboard(window: QMainWindow, focus_graph: Callable[[], None], menu: QMenu | None) -> Keyboard:
    """The palette and Go to Graph, in `menu` (View) and working from any dock."""
    go = QAction("&Go to Graph", window)
    go.setObjectName("goToGraph")
    go.setShortcut(QKeySequence("Ctrl+G"))
    go.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    go.setToolTip("Focus the graph: arrows / Tab move among the nodes, Enter inspects (Ctrl+G)")

    go.triggered.connect(focus_graph)
    window.addAction(go)
    if menu is not None:
        menu.addSeparator()
        menu.addAction(go)
    action, palette = install_palette(window, menu)
    return Keyboard(palette=palette, palette_action=action, go_to_graph=go)
