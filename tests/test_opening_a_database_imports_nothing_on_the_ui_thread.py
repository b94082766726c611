"""Opening a checkpoint file in a window already on screen imports no module on the UI
thread: the saver's modules (~30 ms there, PySide's import hook reads each new module's
source) were imported on a thread of their own while the session and window were made.

A fresh interpreter (real Qt, offscreen) builds the window as the studio does, lets the
session's import thread finish, then counts the modules `open_database()` imports.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from engine import END, START, SqliteSaver, StateGraph

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import asyncio, json, sys, threading
from PySide6.QtCore import QSettings
from studio.cli.launch import make_app, make_loop

app = make_app()
loop = make_loop(app)


async def main():
    from studio.session.session import Session
    from studio.window.main_window import MainWindow

    db, ini = sys.argv[1], sys.argv[2]
    window = MainWindow(Session(db), settings=QSettings(ini, QSettings.Format.IniFormat), watch=False)
    window.show()
    app.processEvents()
    aside = [t for t in threading.enumerate() if t.name == "store-modules"]
    for t in aside:
        t.join(30)
    before = set(sys.modules)
    opened = window.open_database(db)
    imported = sorted(set(sys.modules) - before)
    history = window.session.history
    for _ in range(2000):  # the thread is read as before
        if window.session.settled and len(history) > 0:
            break
        await asyncio.sleep(0.005)
        history = window.session.history
    print(json.dumps({"opened": opened, "imported": imported, "aside": len(aside), "rows": len(history)}))
    window.close()


with loop:
    loop.run_until_complete(main())
"""


def _database(path: Path) -> None:
    builder = StateGraph(dict)
    builder.add_node("a", lambda state: {"n": state.get("n", 0) + 1})
    builder.add_edge(START, "a")
    builder.add_edge("a", END)
    saver = SqliteSaver(str(path))
    try:
        builder.compile(checkpointer=saver).invoke({"n": 0}, {"configurable": {"thread_id": "t"}})
    finally:
        saver.close()


def test_open_database_in_a_shown_window_imports_no_module(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    _database(db)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(db), str(tmp_path / "studio.ini")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    assert lines, done.stderr[-2000:]
    got = json.loads(lines[-1])
    assert got["opened"] is True
    assert got["rows"] > 0, "the thread was not read"
    assert got["imported"] == [], f"open_database() imported on the UI thread: {got['imported']}"
    assert got["aside"] <= 1
