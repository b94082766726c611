"""An `@entrypoint` in the studio and in `retrograph history --values`, in its own terms: the
inspector shows the entrypoint's and its tasks' source (not the engine's wrapper), the state
panel and the history show what it returned, as `get_state().values` does."""
from __future__ import annotations

import io
import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from studio.cli import parse_args
from studio.cli.history import cmd_history
from test_studio_support import open_window, settings, studio_loop, wait_ready, write_graph  # noqa: F401

WORKFLOW = """
    from engine.func import entrypoint, task

    @task
    def double(x: int) -> int:
        return x * 2

    @task
    def label(n: int) -> str:
        return f"n={n}"

    @entrypoint()
    def workflow(n: int) -> dict:
        doubled = double(n).result()
        return {"out": doubled, "text": label(doubled).result()}

    graph = workflow
    example_input = 3
"""


def state_rows(panel) -> dict[str, str]:
    model = panel.model
    return {model.index(r, 0).data(): model.index(r, 1).data() for r in range(model.rowCount())}


def click_node(qtbot, window, name: str) -> None:
    panel = window.panels.graph
    qtbot.waitUntil(lambda: panel.node_item(name) is not None, timeout=15000)
    item = panel.node_item(name)
    panel.canvas.ensureVisible(item)
    pos = panel.canvas.mapFromScene(item.sceneBoundingRect().center())
    qtbot.mouseClick(panel.canvas.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def test_an_entrypoint_shows_its_own_source_and_its_return_value(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "workflow", WORKFLOW))
    QTest.keyClick(window, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: window.session.state.values.get("out") == 6, timeout=15000)
    wait_ready(qtbot, window)
    rows = state_rows(window.panels.state)
    assert set(rows) == {"out", "text"} and rows["out"] == "6" and rows["text"] == '"n=6"'
    click_node(qtbot, window, "workflow")
    qtbot.waitUntil(lambda: "def workflow(" in window.panels.inspector.source.toPlainText(), timeout=10000)
    source = window.panels.inspector.source.toPlainText()
    assert source.startswith("@entrypoint()\ndef workflow(n: int) -> dict:")
    assert "# task `double`" in source and "def double(x: int) -> int:" in source
    assert "# task `label`" in source and "def label(n: int) -> str:" in source
    assert "def node(input" not in source and "engine/func.py" not in window.panels.inspector.location.text()
    assert "__end__" not in " ".join(rows) and "__previous__" not in " ".join(rows)


def test_history_values_of_an_entrypoint_are_its_return_values(tmp_path: Path) -> None:
    from studio.core.loader import load_graph

    from engine import SqliteSaver

    db = tmp_path / "runs.sqlite"
    loaded = load_graph(str(write_graph(tmp_path, "workflow", WORKFLOW)))
    graph = loaded.graph.with_checkpointer(SqliteSaver(str(db)))
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke(3, config)
    graph.invoke(5, config)
    out = io.StringIO()
    assert cmd_history(parse_args(["history", str(db), "--thread", "t", "--values", "--json"]), out=out) == 0
    values = [json.loads(line).get("values") for line in out.getvalue().splitlines() if line.strip()]
    expected = [s.values for s in graph.get_state_history(config)]
    assert {"out": 10, "text": "n=10"} in values and {"out": 6, "text": "n=6"} in values
    assert all("__end__" not in json.dumps(v) for v in values)
    assert [v for v in values if v] == [e for e in expected if e]


def test_the_diff_of_an_entrypoints_step_shows_its_return_values_keys(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "workflow", WORKFLOW))
    for _ in range(3):  # the input, then the entrypoint's node
        if window.session.state.values.get("out") == 6:
            break
        QTest.keyClick(window, Qt.Key.Key_F10)
        qtbot.wait(200)
        wait_ready(qtbot, window)
    qtbot.waitUntil(lambda: window.session.state.values.get("out") == 6, timeout=15000)
    model = window.panels.diff.model
    keys = {model.index(r, 0).data() for r in range(model.rowCount())}
    assert keys == {"out", "text"}
    # the reducer of what it returned is said as it is (the code is loaded), not "not known"
    from PySide6.QtWidgets import QLabel

    notes = window.panels.diff.findChild(QLabel, "reducerNotes")
    qtbot.waitUntil(lambda: "out" in notes.text(), timeout=5000)
    assert "not known" not in notes.text() and "last value" in notes.text(), notes.text()
    reducers = {model.index(r, 1).data() for r in range(model.rowCount())}
    assert reducers == {"last value"}, reducers
