"""Start-up (issue 24): what the window needs before it is shown loads none of the heavy
libraries: langchain-core, pydantic, networkx and the rest load later, off the window's first
paint (the graph file's import runs on a worker thread; pygraphviz is imported once the window
is up, on a timer of the graph panel, and is not counted here).
The time itself is the benchmark's (tests/bench, `studio.startup`); this counts modules."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("langchain_core", "pydantic", "networkx", "psycopg", "requests", "engine.graph.drawing")

_PROBE = """\
import json, sys
from studio.cli.launch import make_app, make_loop
app = make_app()
loop = make_loop(app)
from studio.session.session import Session
from studio.window.main_window import MainWindow
window = MainWindow(Session(sys.argv[1]), remember_layout=False)
window.show()
app.processEvents()
print(json.dumps(sorted(m for m in {heavy!r} if m in sys.modules)))
window.close()
"""


def test_the_window_is_shown_before_any_heavy_library_loads(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", _PROBE.format(heavy=HEAVY), str(tmp_path / "runs.sqlite")],
                          capture_output=True, text=True, timeout=180, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_the_probe_sees_a_heavy_library_when_one_is_loaded(tmp_path: Path) -> None:
    # the check can fail: the same probe, with langchain-core imported first, reports it
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    code = "import langchain_core.messages\n" + _PROBE.format(heavy=HEAVY)
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "runs.sqlite")],
                          capture_output=True, text=True, timeout=180, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    assert "langchain_core" in json.loads(done.stdout.splitlines()[-1])
