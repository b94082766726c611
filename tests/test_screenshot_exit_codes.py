"""`--screenshot` ends like every other mode: an error of the command line (a database that
cannot be opened, a bad --input, a graph file that does not load, a --do word that fails,
a PNG that cannot be written) is one line on stderr and a non-zero exit. A run whose node
fails is what the screenshot shows: exit 0."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_studio_support import ROOT, write_graph

COUNTER = """
    class S(TypedDict):
        n: int
    def inc(s):
        return {"n": s["n"] + 1}
    def boom(s):
        raise ValueError("a node error, shown in the window")
    b = StateGraph(S)
    b.add_node("inc", inc)
    b.add_node("boom", boom)
    b.add_edge(START, "inc")
    b.add_edge("inc", "boom")
    graph = b.compile()
    example_input = {"n": 0}
"""


def _shoot(tmp_path: Path, *args: str, out: Path | None = None) -> tuple[int, list[str], Path]:
    out = out or tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "studio", *args, "--screenshot", str(out)], capture_output=True,
                          text=True, timeout=180, cwd=tmp_path, env=env)
    said = [line for line in done.stderr.splitlines() if line.startswith("retrograph:")]
    noise = [line for line in done.stderr.splitlines()
             if not line.startswith("retrograph:") and "propagateSizeHints" not in line]
    assert not noise, done.stderr  # no traceback
    return done.returncode, said, out


def test_a_postgresql_url_the_server_refuses(tmp_path: Path, pg_server) -> None:
    url = f"postgresql://nobody:wrong-password@127.0.0.1:{pg_server.port}/postgres"
    code, said, out = _shoot(tmp_path, "open", url)
    assert code == 1
    assert len(said) == 1 and "Cannot open the checkpoint database" in said[0], said
    assert 'role "nobody" does not exist' in said[0]
    assert "wrong-password" not in said[0]  # the password is never printed


def test_a_bad_input(tmp_path: Path) -> None:
    path = write_graph(tmp_path, "counter", COUNTER)
    code, said, out = _shoot(tmp_path, str(path), "--db", str(tmp_path / "runs.sqlite"), "--input", "{bad")
    assert code == 1
    assert said == ["retrograph: --input: The input is not valid JSON: Expecting property name enclosed in "
                    "double quotes at line 1, column 2. (the screenshot shows it)"]
    assert out.exists()  # the window with its banner was still rendered


@pytest.mark.parametrize("case", ["syntax", "missing-db", "not-sqlite", "do-word", "unwritable"])
def test_every_other_error_of_the_command_line(tmp_path: Path, case: str) -> None:
    path = write_graph(tmp_path, "counter", COUNTER)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"\x00not a database" * 200)
    args, expect = {
        "syntax": ((str(write_graph(tmp_path, "broken", "x = (\n")),), "Syntax error in the graph file"),
        "missing-db": (("open", str(tmp_path / "none.sqlite")), "No such database"),
        "not-sqlite": (("open", str(junk)), "is not a SQLite database"),
        "do-word": ((str(path), "--db", str(tmp_path / "r.sqlite"), "--do", "rewind:99"),
                    "no checkpoint of step 99"),
        "unwritable": ((str(path), "--db", str(tmp_path / "r.sqlite")),
                       "could not write the screenshot /nonexistent-dir/x.png"),
    }[case]
    before = junk.read_bytes()
    out = Path("/nonexistent-dir/x.png") if case == "unwritable" else None
    code, said, _ = _shoot(tmp_path, *args, out=out)
    assert code == 1, said
    assert len(said) == 1 and expect in said[0], said
    assert junk.read_bytes() == before  # reading a file never changes it


def test_a_failed_node_is_shown_and_exits_0(tmp_path: Path) -> None:
    path = write_graph(tmp_path, "counter", COUNTER)
    code, said, out = _shoot(tmp_path, str(path), "--db", str(tmp_path / "runs.sqlite"), "--do", "continue")
    assert code == 0 and said == []  # nothing on stderr; "wrote" goes to stdout
    assert out.exists()
