"""Starting the window: the QApplication, the qasync loop, and the --screenshot mode."""
from __future__ import annotations

import argparse
import asyncio
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, QStandardPaths, QTimer
from PySide6.QtWidgets import QApplication

from .script import screenshot_after_steps


__all__ = ["make_app", "make_loop", "default_db_path", "run_window", "PlatformUnavailable"]


class PlatformUnavailable(RuntimeError):
    """Qt's platform cannot start here (missing system libraries, no display)."""


def make_app() -> QApplication:
    """The QApplication; raises PlatformUnavailable, naming what to install, where Qt
    would abort the process instead (see qtcheck)."""
    if QApplication.instance() is None:
        from .qtcheck import platform_problem

        problem = platform_problem()
        if problem:
            raise PlatformUnavailable(problem)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("retrograph")
    app.setApplicationName("studio")
    app.setApplicationDisplayName("Retrograph Studio")
    return app  # type: ignore[return-value]


def make_loop(app: QApplication) -> Any:
    """A qasync loop whose default executor (where sync nodes run) is a plain thread pool
    that starts threads on demand, names them, and is shut down with the loop."""
    import qasync

    loop = qasync.QEventLoop(app)
    loop.set_default_executor(ThreadPoolExecutor(max_workers=32, thread_name_prefix="retrograph-node"))
    asyncio.set_event_loop(loop)
    return loop


def default_db_path() -> Path:
    """runs.sqlite in the per-user data folder (created when missing)."""
    folder = Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation))
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "runs.sqlite"


def _splash(app: QApplication, what: str) -> Any:
    """A small window shown at once, while the studio's own modules import (the engine, the
    panels: a second or more on a loaded machine), saying what it waits for."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor, QPainter, QPixmap
    from PySide6.QtWidgets import QSplashScreen

    pixmap = QPixmap(460, 120)
    pixmap.fill(QColor("#1f2430"))
    painter = QPainter(pixmap)
    font = painter.font()
    font.setPointSize(15)
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(QColor("#e6e6e6"))
    painter.drawText(24, 48, "Retrograph Studio")
    painter.end()
    splash = QSplashScreen(pixmap)
    splash.showMessage(f"  starting the debugger for {what}…", Qt.AlignmentFlag.AlignBottom | Qt.AlignmentFlag.AlignLeft,
                       QColor("#a0a8b8"))
    splash.show()
    app.processEvents()
    return splash


def run_window(args: argparse.Namespace) -> int:
    """Open the studio window for `retrograph FILE` / `retrograph open DB`. The window shows
    before the graph file has imported (that runs on a worker thread, the window says so)."""
    try:
        app = make_app()
    except PlatformUnavailable as exc:
        print(f"retrograph: {exc}", file=sys.stderr)
        return 2
    target = getattr(args, "graph", None) if args.command != "open" else getattr(args, "db", None)
    # never a URL on screen: it may carry a password
    label = "a database" if "://" in str(target) else Path(str(target or "the studio")).name
    splash = None if args.screenshot else _splash(app, label)
    from studio.window.docks import apply_default_sizes
    from studio.window.main_window import MainWindow
    from studio.session.session import Session

    loop = make_loop(app)
    from studio.core.store import db_target

    db = db_target(args.db) if args.db else default_db_path()
    session = Session(db)
    window = MainWindow(session, remember_layout=not args.screenshot)
    if args.command == "open":
        window.open_database(db, getattr(args, "graph", None), thread_id=args.thread)
    else:
        window.open_graph(args.graph, thread_id=args.thread, input_text=args.input)
    code = 0
    if args.screenshot:
        width, _, height = str(args.size).partition("x")
        window.resize(QSize(int(width or 1600), int(height or 1000)))
        window.show()
        apply_default_sizes(window, window.docks)

        async def shoot() -> bool:
            try:
                return await screenshot_after_steps(window, args.steps, args.screenshot, args.do)
            finally:
                QTimer.singleShot(0, window.close)

        with loop:
            ok = loop.run_until_complete(shoot())
        code = 0 if ok else 1
        if ok:
            print(f"retrograph: wrote {args.screenshot}")
        wanted_graph = args.command != "open" or getattr(args, "graph", None)
        if wanted_graph and session.graph is None:
            error = session.error  # the banner's own words: a database refused is not a graph that failed
            said = f"{error.title}: {' '.join(error.message.split())}" if error is not None \
                else f"the graph did not load ({args.graph})"
            print(f"retrograph: {said} (the screenshot shows it)", file=sys.stderr)
            code = 1
        return code
    window.show()
    if splash is not None:
        splash.finish(window)
    with loop:
        loop.run_forever()
    return code
