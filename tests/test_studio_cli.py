"""The `retrograph` command line: headless run and draw, and the window's --screenshot."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_studio_support import EXAMPLES, ROOT, write_graph

COUNTER = """
    class S(TypedDict):
        n: int
        log: Annotated[list, operator.add]
    def inc(s):
        return {"n": s["n"] + 1, "log": [f"inc {s['n']}"]}
    def route(s):
        return "inc" if s["n"] < 3 else END
    b = StateGraph(S)
    b.add_node("inc", inc)
    b.add_edge(START, "inc")
    b.add_conditional_edges("inc", route, ["inc", END])
    graph = b.compile()
"""


def _retrograph(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`python -m studio ARGS` in a child process, checking Qt was not imported for headless commands."""
    code = ("import sys; from studio.__main__ import main; rc = main(sys.argv[1:]); "
            "print('QT-IMPORTED' if 'PySide6' in sys.modules else 'NO-QT', file=sys.stderr); sys.exit(rc)")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env=env)


def test_run_prints_the_updates_stream_without_qt(tmp_path: Path) -> None:
    path = write_graph(tmp_path, "counter", COUNTER)
    done = _retrograph("run", str(path), "--input", '{"n": 0}')
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines == [{"inc": {"n": 1, "log": ["inc 0"]}}, {"inc": {"n": 2, "log": ["inc 1"]}},
                     {"inc": {"n": 3, "log": ["inc 2"]}}]
    assert "NO-QT" in done.stderr


def test_run_values_mode_and_bad_input(tmp_path: Path) -> None:
    path = write_graph(tmp_path, "counter", COUNTER)
    done = _retrograph("run", str(path), "--input", '{"n": 2}', "--stream-mode", "values")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {"n": 3, "log": ["inc 2"]}
    bad = _retrograph("run", str(path), "--input", "{n: 2}")
    assert bad.returncode == 2
    assert "The input is not valid JSON: Expecting property name enclosed in double quotes at line 1, column 2" \
        in bad.stderr


def test_run_reports_a_file_without_a_graph(tmp_path: Path) -> None:
    path = tmp_path / "empty.py"
    path.write_text("x = 1\n")
    done = _retrograph("run", str(path), "--input", "{}")
    assert done.returncode == 2 and "defines no graph" in done.stderr


@pytest.mark.parametrize("suffix, magic", [(".svg", b"<svg"), (".png", b"\x89PNG"), (".dot", b"digraph"),
                                           (".mmd", b"flowchart")])
def test_draw_writes_each_format(tmp_path: Path, suffix: str, magic: bytes) -> None:
    path = write_graph(tmp_path, "counter", COUNTER)
    out = tmp_path / f"out{suffix}"
    done = _retrograph("draw", str(path), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert magic in out.read_bytes()[:400]
    assert "NO-QT" in done.stderr


def test_screenshot_renders_the_window_after_steps(tmp_path: Path) -> None:
    example = EXAMPLES / "react_agent.py"
    if not example.exists():
        pytest.skip("the react_agent example is not there yet")
    out = tmp_path / "shot.png"
    done = _retrograph(str(example), "--db", str(tmp_path / "runs.sqlite"), "--steps", "3",
                       "--screenshot", str(out), "--size", "1500x950", timeout=120)
    assert done.returncode == 0, done.stderr
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert (image.width(), image.height()) == (1500, 950)
