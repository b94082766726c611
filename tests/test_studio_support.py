"""Fixtures and helpers shared by the studio tests (imported by each test_studio_* module).

Every window test uses a real SQLite file in tmp_path, a real qasync loop, a temporary
QSettings file, and the real panels; it drives the window through its QActions (the same
objects the keys and toolbar buttons trigger) and waits on signals, never on sleep.
"""
from __future__ import annotations

import asyncio
import textwrap
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("qasync")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "resources" / "examples"

__all__ = ["studio_loop", "settings", "open_window", "write_graph", "act", "run_command", "EXAMPLES",
           "model_texts", "panel_text", "event_lines", "wait_ready", "answer",
           "ROOT", "GRAPH_HEADER"]

GRAPH_HEADER = textwrap.dedent("""\
    import asyncio, operator, time
    from typing import Annotated, TypedDict
    from engine import StateGraph, START, END, interrupt
""")


def write_graph(folder: Path, name: str, body: str) -> Path:
    """A graph file in `folder` made of the common imports and `body`."""
    path = folder / f"{name}.py"
    path.write_text(GRAPH_HEADER + textwrap.dedent(body), encoding="utf-8")
    return path


@pytest.fixture
def studio_loop(qapp: Any) -> Iterator[Any]:
    """A qasync loop marked as running (as under `loop.run_forever()`), with a thread pool
    for sync nodes that is shut down (and waited for) at the end of the test."""
    import qasync

    loop = qasync.QEventLoop(qapp)
    executor = ThreadPoolExecutor(max_workers=8, thread_name_prefix="retrograph-node")
    loop.set_default_executor(executor)
    asyncio.set_event_loop(loop)
    asyncio.events._set_running_loop(loop)
    try:
        yield loop
    finally:
        asyncio.events._set_running_loop(None)
        executor.shutdown(wait=True, cancel_futures=True)
        loop.set_default_executor(None)
        loop.close()
        asyncio.set_event_loop(None)
        leftover = [t.name for t in threading.enumerate() if t.name.startswith("retrograph-")]
        assert not leftover, f"studio threads still running: {leftover}"


@pytest.fixture
def settings(tmp_path: Path) -> Any:
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "studio.ini"), QSettings.Format.IniFormat)


@pytest.fixture
def open_window(qtbot: Any, studio_loop: Any, settings: Any, tmp_path: Path) -> Iterator[Callable[..., Any]]:
    """`open_window(spec, input_text=None, thread_id=None)` -> a shown MainWindow, ready."""
    from studio.window.main_window import MainWindow
    from studio.session.session import Session

    windows: list[Any] = []

    def make(spec: str | Path | None = None, *, input_text: str | None = None, thread_id: str | None = None,
             db: Path | None = None, database: Path | None = None, graph: str | None = None,
             watch: bool = True) -> Any:
        session = Session(db or tmp_path / "runs.sqlite", poll_ms=400)
        window = MainWindow(session, settings=settings, watch=watch)
        qtbot.addWidget(window)
        windows.append(window)
        window.resize(1400, 900)
        window.show()
        if database is not None:
            window.open_database(database, graph, thread_id=thread_id)
        elif spec is not None:
            window.open_graph(str(spec), thread_id=thread_id, input_text=input_text)
        wait_ready(qtbot, window)
        return window

    yield make
    for window in windows:
        window.close()


def wait_ready(qtbot: Any, window: Any, timeout: int = 15000) -> None:
    def ready() -> bool:
        return window.session.settled and window.panels.ready()

    qtbot.waitUntil(ready, timeout=timeout)


def act(qtbot: Any, window: Any, name: str, timeout: int = 20000) -> Any:
    """Trigger the window action `name` (as its key or button would) and wait until the
    command it starts has finished; returns the command's outcome."""
    action = getattr(window.actions, name)
    assert action.isEnabled(), f"action {name} is disabled"
    with qtbot.waitSignal(window.session.commandFinished, timeout=timeout) as blocker:
        action.trigger()
    wait_ready(qtbot, window)
    return blocker.args[1]


def run_command(qtbot: Any, window: Any, start: Callable[[], Any], timeout: int = 20000) -> Any:
    """Call `start()` (a session command) and wait for its commandFinished."""
    with qtbot.waitSignal(window.session.commandFinished, timeout=timeout) as blocker:
        assert start() is not False
    wait_ready(qtbot, window)
    return blocker.args[1]


def test_write_graph_makes_an_importable_file(tmp_path: Path) -> None:
    from studio.core.loader import LoadedGraph, load_graph

    path = write_graph(tmp_path, "tiny", """
        class S(TypedDict):
            n: int
        b = StateGraph(S)
        b.add_node("inc", lambda s: {"n": s["n"] + 1})
        b.add_edge(START, "inc")
        graph = b.compile()
    """)
    assert isinstance(load_graph(path), LoadedGraph)


def model_texts(widget: Any, limit: int = 5000) -> list[str]:
    """Every display text of the item views inside `widget` (tree models walked, lazy
    models fetched), plus the text of its plain-text editors and labels."""
    from PySide6.QtCore import QModelIndex, Qt
    from PySide6.QtWidgets import QAbstractItemView, QLabel, QPlainTextEdit, QTextEdit

    texts: list[str] = []

    def walk(model: Any, parent: Any) -> None:
        if model.canFetchMore(parent):
            model.fetchMore(parent)
        for row in range(model.rowCount(parent)):
            for col in range(max(model.columnCount(parent), 1)):
                index = model.index(row, col, parent)
                value = model.data(index, Qt.ItemDataRole.DisplayRole)
                if value not in (None, ""):
                    texts.append(str(value))
                if len(texts) > limit:
                    return
            child = model.index(row, 0, parent)
            if model.rowCount(child) > 0 or model.canFetchMore(child):
                walk(model, child)

    views = [widget] if isinstance(widget, QAbstractItemView) else []
    views += widget.findChildren(QAbstractItemView)
    for view in views:
        if view.model() is not None and view.isVisibleTo(widget.window()):
            walk(view.model(), QModelIndex())
    for editor in widget.findChildren(QPlainTextEdit) + ([widget] if isinstance(widget, QPlainTextEdit) else []):
        texts.append(editor.toPlainText())
    for editor in widget.findChildren(QTextEdit):
        texts.append(editor.toPlainText())
    for label in widget.findChildren(QLabel):
        if label.text():
            texts.append(label.text())
    return texts


def panel_text(widget: Any) -> str:
    return "\n".join(model_texts(widget))


def event_lines(window: Any) -> list[str]:
    """The rows of the events panel as a person reads them: "node: what happened"."""
    model = window.panels.events.model
    return [f"{model.index(r, 1).data()}: {model.index(r, 2).data()}" for r in range(model.rowCount())]


def answer(qtbot: Any, window: Any, interrupt_id: str, text: str, timeout: int = 20000) -> Any:
    """Type `text` (JSON) as the resume value of an interrupt and press Resume."""
    panel = window.panels.interrupts
    panel.set_resume_text(interrupt_id, text)
    assert panel.resume_button.isEnabled(), "the Resume button is disabled"
    with qtbot.waitSignal(window.session.commandFinished, timeout=timeout) as blocker:
        panel.resume_button.click()
    wait_ready(qtbot, window)
    return blocker.args[1]
