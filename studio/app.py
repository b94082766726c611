"""Starting the window: the QApplication, the qasync loop, and the --screenshot mode."""
from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, QStandardPaths, QTimer, SignalInstance
from PySide6.QtWidgets import QApplication

from . import qtcompat  # noqa: F401 (guards signal emission; see the module)

__all__ = ["make_app", "make_loop", "default_db_path", "run_window", "wait_signal", "screenshot_after_steps"]


def make_app() -> QApplication:
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


async def wait_signal(signal: SignalInstance, timeout_s: float = 30.0,
                      when: Callable[..., bool] | None = None) -> tuple[Any, ...]:
    """Await the next emission of a Qt signal (that satisfies `when`)."""
    fut: asyncio.Future[tuple[Any, ...]] = asyncio.get_running_loop().create_future()

    def slot(*args: Any) -> None:
        if not fut.done() and (when is None or when(*args)):
            fut.set_result(args)

    signal.connect(slot)
    try:
        return await asyncio.wait_for(fut, timeout_s)
    finally:
        signal.disconnect(slot)


async def screenshot_after_steps(window: Any, steps: int, path: str | Path) -> bool:
    """Take `steps` node steps (as F10 would), let every panel settle, save a PNG."""
    session = window.session
    await window.when_ready()
    for _ in range(max(steps, 0)):
        if not session.step():
            break
        _, result = await wait_signal(session.commandFinished, 120.0)
        if isinstance(result, Exception) or session.status in ("done", "failed", "interrupted"):
            break
    await window.when_settled()
    image = window.grab()
    ok = image.save(str(path))
    return bool(ok)


def run_window(args: argparse.Namespace) -> int:
    """Open the studio window for `retrograph FILE` / `retrograph open DB`."""
    from .docks import apply_default_sizes
    from .main_window import MainWindow
    from .session import Session

    app = make_app()
    loop = make_loop(app)
    db = Path(args.db) if args.db else default_db_path()
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
                return await screenshot_after_steps(window, args.steps, args.screenshot)
            finally:
                QTimer.singleShot(0, window.close)

        with loop:
            ok = loop.run_until_complete(shoot())
        code = 0 if ok else 1
        if ok:
            print(f"retrograph: wrote {args.screenshot}")
        return code
    window.show()
    with loop:
        loop.run_forever()
    return code
