"""After the command palette or the New run dialog closes, the keys reach the studio again:
without a window manager to give the focus back (Xvfb driven by xdotool, a kiosk), F10
went nowhere after Esc until a click. Driven by keys (QTest)."""
from __future__ import annotations

from test_studio_support import EXAMPLES, open_window, settings, studio_loop, wait_ready  # noqa: F401 (fixtures)


def _f10_steps(qtbot, window) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    qtbot.waitUntil(window.isActiveWindow, timeout=3000)  # the keys go to the studio again
    with qtbot.waitSignal(window.session.commandFinished, timeout=20000):
        QTest.keyClick(window, Qt.Key.Key_F10)
    wait_ready(qtbot, window)


def test_esc_in_the_palette_and_in_new_run_gives_the_keys_back(open_window, qtbot) -> None:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    window = open_window(EXAMPLES / "router.py")
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    QTest.keyClick(window, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is not window, timeout=3000)
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
    _f10_steps(qtbot, window)

    closed = []

    def cancel() -> None:
        dialog = QApplication.activeModalWidget()
        closed.append(type(dialog).__name__)
        QTest.keyClick(dialog, Qt.Key.Key_Escape)

    QTimer.singleShot(300, cancel)
    QTest.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)  # New run…, closed with Esc
    assert closed == ["NewRunDialog"], closed
    _f10_steps(qtbot, window)
