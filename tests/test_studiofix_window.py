"""Issue 12 item 12: the window fits the screen and restores its saved geometry."""
from __future__ import annotations

from pathlib import Path

from test_studio_support import (  # noqa: F401 (fixtures)
    open_window,
    settings,
    studio_loop,
    wait_ready,
)


def test_item12_window_fits_the_screen_and_restores_saved_geometry(qtbot, studio_loop, settings, tmp_path: Path) -> None:
    from PySide6.QtGui import QGuiApplication

    from studio.session.session import Session
    from studio.window.docks import save_layout
    from studio.window.main_window import MainWindow

    area = QGuiApplication.primaryScreen().availableGeometry()
    window = MainWindow(Session(tmp_path / "a.sqlite"), settings=settings)
    qtbot.addWidget(window)
    assert window.width() <= area.width() and window.height() <= area.height()
    assert area.contains(window.frameGeometry().topLeft())
    window.resize(min(area.width(), 700) - 20, min(area.height(), 500) - 30)
    window.move(area.left() + 7, area.top() + 9)
    save_layout(window, settings)
    size = window.size()
    window.close()
    again = MainWindow(Session(tmp_path / "b.sqlite"), settings=settings)
    qtbot.addWidget(again)
    assert again.size() == size
    again.close()
