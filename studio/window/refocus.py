"""The keyboard comes back to the studio when one of its dialogs or popups closes (the
command palette, New run, the thread picker): without a window manager to hand the focus
back (a kiosk, Xvfb, a remote X session), F10 and every other key went nowhere until a
click."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow, QWidget

__all__ = ["KeepFocus"]


class KeepFocus(QObject):
    """When a window of `main`'s (a dialog or popup it is the parent of) is hidden and no
    window is active then, `main` is activated."""

    def __init__(self, main: QMainWindow) -> None:
        super().__init__(main)
        self.main = main
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Hide and isinstance(watched, QWidget) and watched.isWindow() \
                and watched is not self.main:
            parent = watched.parentWidget()
            if parent is not None and parent.window() is self.main:
                QTimer.singleShot(0, self._activate)
        return False

    def _activate(self) -> None:
        if QApplication.activeWindow() is None and QApplication.activeModalWidget() is None \
                and QApplication.activePopupWidget() is None and self.main.isVisible() and not self.main.isMinimized():
            self.main.activateWindow()
