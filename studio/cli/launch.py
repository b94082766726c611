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


__all__ = ["make_app", "make_loop", "default_db_path", "run_window", "screenshot_error", "PlatformUnavailable"]


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
    from studio.window.main_window import MainWindow
    from studio.session.session import Session

    loop = make_loop(app)
    from studio.core.store import db_target

    db = db_target(args.db) if args.db else default_db_path()
    from studio.core.longterm import is_store_file

    if args.command == "open" and not getattr(args, "graph", None) and is_store_file(db):
        return _run_store_window(app, loop, db, args)  # a long-term memory store file, read-only
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
        window.fit_area = window.size()  # a --do zoom fits the panels into this size, not the screen's
        window.show()
        window.arrange_default()

        async def shoot() -> bool:
            try:
                return await screenshot_after_steps(window, args.steps, args.screenshot, args.do)
            finally:
                QTimer.singleShot(0, window.close)

        with loop:
            ok = loop.run_until_complete(shoot())
        if ok:
            print(f"retrograph: wrote {args.screenshot}")
        else:
            print(f"retrograph: could not write the screenshot {args.screenshot}", file=sys.stderr)
        said = screenshot_error(args, session, window.banner.error)
        if said is not None:
            print(f"retrograph: {said} (the screenshot shows it)", file=sys.stderr)
        return 0 if ok and said is None else 1
    window.show()
    if splash is not None:
        splash.finish(window)
    with loop:
        loop.run_forever()
    return code


# What the banner may show that is an error of the command line (its file, database, input
# or --do script), not of the graph's run: a node that failed is what the screenshot shows.
_COMMAND_ERRORS = ("load", "input", "database", "command")


def screenshot_error(args: argparse.Namespace, session: Any, shown: Any = None) -> str | None:
    """The one line a --screenshot run ends with when its command line failed (None: it did
    not): the session's error, or the one the window's banner shows (a bad --input)."""
    if args.command != "open" and args.input is not None:
        from studio.core.jsontext import parse_json_input

        problem = parse_json_input(args.input)[1]
        if problem:
            return f"--input: {problem}"
    error = session.error if session.error is not None else shown
    if error is not None and error.kind in _COMMAND_ERRORS:
        return f"{error.title}: {' '.join(error.message.split())}"  # the banner's own words
    wanted_graph = args.command != "open" or getattr(args, "graph", None)
    if wanted_graph and session.graph is None:
        return f"the graph did not load ({args.graph})"
    return None


def _run_store_window(app: QApplication, loop: Any, path: Any, args: argparse.Namespace) -> int:
    """`retrograph open memory.db` on a SQLite store file: browse it read-only."""
    from studio.window.store_dock import StoreWindow

    window = StoreWindow(path)
    if args.screenshot:
        width, _, height = str(args.size).partition("x")
        window.resize(QSize(int(width or 1600), int(height or 1000)))
        window.show()
        app.processEvents()
        ok = window.grab().save(str(args.screenshot))
        window.close()
        if ok:
            print(f"retrograph: wrote {args.screenshot}")
        return 0 if ok else 1
    window.resize(1200, 800)
    window.show()
    with loop:
        loop.run_forever()
    return 0
