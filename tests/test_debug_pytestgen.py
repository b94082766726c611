"""`retrograph pytest`: a regression test written from an example's recorded run passes
on the unchanged graph and fails, with a readable diff, when a node's behaviour changes."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from studio.cli.commands import cmd_run, parse_args
from studio.cli.pytestgen import cmd_pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "resources" / "examples"
ROOT = Path(__file__).resolve().parent.parent


def cli(fn, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = fn(parse_args(list(argv)), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def run_pytest(test_file: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
                          cwd=test_file.parent, env=env, capture_output=True, text=True, timeout=120)


@pytest.fixture
def react_run(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the ReAct example, run once with `retrograph run --db` (which records)."""
    app = tmp_path / "react_agent.py"
    shutil.copyfile(EXAMPLES / "react_agent.py", app)
    db = tmp_path / "runs.sqlite"
    code, _, err = cli(cmd_run, "run", str(app), "--db", str(db), "--thread", "t1")
    assert code == 0, err
    (tmp_path / "tests").mkdir()
    return app, db


def test_generated_test_passes_then_fails_on_a_changed_node(react_run):
    app, db = react_run
    test_file = app.parent / "tests" / "test_react_run.py"
    code, out, err = cli(cmd_pytest, "pytest", str(db), "--thread", "t1", "--graph", str(app),
                         "--record", "agent", "-o", str(test_file))
    assert code == 0, err
    assert "wrote" in out and (test_file.parent / "test_react_run.recording.sqlite").is_file()
    text = test_file.read_text()
    assert "RECORD = ['agent']" in text and "# superstep 2: agent (from the recording)" in text
    assert "'content': '42'" in text  # the calculator tool's answer, as a literal in the test
    passed = run_pytest(test_file)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "1 passed" in passed.stdout
    # the tools node changes behaviour: the calculator now answers one more
    source = app.read_text()
    changed = source.replace("return str(int(value)) if", "return str(int(value) + 1) if")
    assert changed != source, "the example's calculator line moved: update this test"
    app.write_text(changed)
    failed = run_pytest(test_file)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "superstep 3: node `tools` wrote something else" in failed.stdout
    assert "`tools` key `messages`" in failed.stdout and '"43"' in failed.stdout


def test_non_deterministic_node_is_named_before_any_file_is_written(tmp_path: Path):
    app = tmp_path / "clock.py"
    app.write_text(
        "import time\nfrom typing import TypedDict\nfrom engine import StateGraph, START, END\n"
        "class S(TypedDict, total=False):\n    n: int\n"
        "def count(s):\n    return {'n': time.perf_counter_ns()}\n"
        "g = StateGraph(S)\ng.add_node('count', count)\ng.add_edge(START, 'count')\ng.add_edge('count', END)\n"
        "graph = g.compile()\nexample_input = {'n': -1}\n")
    db = tmp_path / "runs.sqlite"
    assert cli(cmd_run, "run", str(app), "--db", str(db), "--thread", "other")[0] == 0
    target = tmp_path / "test_clock.py"
    code, _, err = cli(cmd_pytest, "pytest", str(db), "--thread", "other", "--graph", str(app), "-o", str(target))
    # the clock moved on, so `count` writes another number than recorded
    assert code == 1 and "could never pass" in err and "--record" in err and "`count`" in err
    assert not target.exists() and not (tmp_path / "test_clock.recording.sqlite").exists()
    code, _, err = cli(cmd_pytest, "pytest", str(db), "--thread", "other", "--graph", str(app),
                       "--record", "count", "-o", str(target))
    assert code == 0, err


def test_bad_inputs_name_the_culprit(react_run):
    app, db = react_run
    out = str(app.parent / "tests" / "test_x.py")
    code, _, err = cli(cmd_pytest, "pytest", str(db), "--thread", "t1", "--graph", str(app),
                       "--record", "agent,planner", "-o", out)
    assert code == 2 and "--record: unknown node `planner`" in err and "agent, tools" in err
    code, _, err = cli(cmd_pytest, "pytest", str(db), "--thread", "nope", "--graph", str(app), "-o", out)
    assert code == 1 and "--thread nope: no such thread" in err and "t1" in err
    code, _, err = cli(cmd_pytest, "pytest", str(db), "--thread", "t1", "--graph", str(app), "-o",
                       str(app.parent / "tests" / "regression.py"))
    assert code == 2 and "test_NAME.py" in err
    code, _, err = cli(cmd_pytest, "pytest", str(app.parent / "none.sqlite"), "--thread", "t1", "--graph",
                       str(app), "-o", out)
    assert code == 2 and "none.sqlite" in err and "no such file" in err
    code, _, err = cli(cmd_pytest, "pytest", str(db), "--thread", "t1", "--graph", str(app),
                       "--checkpoint", "abc", "-o", out)
    assert code == 1 and "no checkpoint `abc`" in err


def test_a_node_inside_a_subgraph_is_answered_in_the_generated_test(tmp_path: Path):
    """The subgraph example: `--record research:fetch` answers the inner node from the
    subgraph's recorded checkpoints (exported with the thread); the rest re-runs."""
    app = tmp_path / "subgraph.py"
    shutil.copyfile(EXAMPLES / "subgraph.py", app)
    db = tmp_path / "runs.sqlite"
    code, _, err = cli(cmd_run, "run", str(app), "--db", str(db), "--thread", "s1")
    assert code == 0, err
    (tmp_path / "tests").mkdir()
    test_file = tmp_path / "tests" / "test_article.py"
    code, out, err = cli(cmd_pytest, "pytest", str(db), "--thread", "s1", "--graph", str(app),
                         "--record", "research:fetch", "-o", str(test_file))
    assert code == 0, err
    assert "RECORD = ['research:fetch']" in test_file.read_text(encoding="utf-8")
    assert run_pytest(test_file).returncode == 0
    # fetch answers from the recording: a change in its library does not show ...
    text = app.read_text(encoding="utf-8")
    app.write_text(text.replace('"An octopus has three hearts."', '"An octopus has 3 hearts."'), encoding="utf-8")
    assert run_pytest(test_file).returncode == 0
    # ... a change in a node that re-runs (extract, inside the same subgraph) does
    app.write_text(text.replace('f"{i + 1}. {page}"', 'f"{i + 1}. {page.upper()}"'), encoding="utf-8")
    failed = run_pytest(test_file)
    assert failed.returncode == 1 and "AN OCTOPUS HAS THREE HEARTS" in failed.stdout, failed.stdout[-2000:]
