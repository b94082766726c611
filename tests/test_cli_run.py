"""`retrograph run`: threads, --resume, and one-line errors (never a traceback)."""
from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from engine import SqliteSaver
from studio.cli import cmd_run, parse_args
from test_studio_support import ROOT, write_graph

APPROVAL = """
    class S(TypedDict):
        log: Annotated[list, operator.add]
    def ask(s):
        answer = interrupt({"question": "ship it?"})
        return {"log": [f"answer {answer}"]}
    def done(s):
        return {"log": ["done"]}
    b = StateGraph(S)
    b.add_node("ask", ask)
    b.add_node("done", done)
    b.add_edge(START, "ask")
    b.add_edge("ask", "done")
    graph = b.compile()
    example_input = {"log": ["start"]}
"""

BROKEN = """
    class S(TypedDict):
        n: int
    def listy(s):
        return [1, 2]
    def boom(s):
        raise KeyError("no such tool")
    b = StateGraph(S)
    b.add_node("listy", listy)
    b.add_edge(START, "listy")
    listy_graph = b.compile()
    c = StateGraph(S)
    c.add_node("boom", boom)
    c.add_edge(START, "boom")
    boom_graph = c.compile()
"""


def run(*argv: str) -> tuple[int, list[str], list[str]]:
    """`retrograph run ARGV` in this process: (exit code, stdout lines, stderr lines)."""
    out, err = io.StringIO(), io.StringIO()
    code = cmd_run(parse_args(["run", *argv]), out=out, err=err)
    return code, out.getvalue().splitlines(), err.getvalue().splitlines()


def threads_in(db: Path) -> list[str]:
    with SqliteSaver(db) as saver:
        return sorted(t.thread_id for t in saver.threads())


def test_db_without_thread_starts_a_new_thread_each_time_and_prints_it(tmp_path: Path) -> None:
    path = write_graph(tmp_path, "approval", APPROVAL)
    db = tmp_path / "runs.sqlite"
    code1, out1, err1 = run(str(path), "--db", str(db))
    code2, _, err2 = run(str(path), "--db", str(db))
    assert code1 == code2 == 0
    t1 = next(line.split()[-1] for line in err1 if line.startswith("retrograph: thread "))
    t2 = next(line.split()[-1] for line in err2 if line.startswith("retrograph: thread "))
    assert t1 != t2 and t1.startswith("approval-")
    assert threads_in(db) == sorted([t1, t2])
    assert json.loads(out1[-1])["__interrupt__"][0]["value"] == {"question": "ship it?"}
    assert any(f"--thread {t1} --resume JSON" in line for line in err1)


def test_resume_answers_the_pending_interrupt_and_the_run_goes_on(tmp_path: Path) -> None:
    path = write_graph(tmp_path, "approval", APPROVAL)
    db = tmp_path / "runs.sqlite"
    assert run(str(path), "--db", str(db), "--thread", "t1")[0] == 0
    code, out, err = run(str(path), "--db", str(db), "--thread", "t1", "--resume", '"yes"',
                         "--stream-mode", "values")
    assert code == 0, err
    assert json.loads(out[-1]) == {"log": ["start", "answer yes", "done"]}
    # nothing is pending any more: a second answer is an error, in one line
    code, out, err = run(str(path), "--db", str(db), "--thread", "t1", "--resume", '"again"')
    assert (code, out) == (1, [])
    assert err == ["retrograph: thread t1 has no pending interrupt to answer; run it with --input instead"]


@pytest.mark.parametrize("argv, message", [
    (["--resume", "1"], "retrograph: --resume needs --thread ID: the thread whose interrupt it answers"),
    (["--thread", "t", "--resume", "1"], "retrograph: --resume needs --db FILE: the database the interrupted "
                                         "run was saved in"),
    (["--input", "{}", "--thread", "t", "--resume", "1"], "retrograph: --input and --resume exclude each other: "
                                                          "--resume answers a pending interrupt, --input starts "
                                                          "a new run"),
    (["--thread", "t", "--db", "x.sqlite", "--resume", "{yes"], "retrograph: --resume: The input is not valid JSON: "
                                                                "Expecting property name enclosed in double quotes "
                                                                "at line 1, column 2."),
    (["--stream-mode", "valuez"], "retrograph: unknown --stream-mode valuez: use values, updates"),
])
def test_bad_command_lines_are_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   argv: list[str], message: str) -> None:
    monkeypatch.chdir(tmp_path)
    path = write_graph(tmp_path, "approval", APPROVAL)
    code, out, err = run(str(path), *argv)
    assert (code, out, len(err)) == (2, [], 1)
    assert err[0].startswith(message)


def test_a_node_returning_a_list_is_one_clear_line_exit_1(tmp_path: Path) -> None:
    path = write_graph(tmp_path, "broken", BROKEN)
    code, out, err = run(f"{path}:listy_graph", "--input", '{"n": 1}')
    assert (code, out) == (1, [])
    assert err == ["retrograph: the run failed: InvalidUpdateError: Expected dict, got [1, 2]: node `listy` returned "
                   "a list. A node must return a dict of state updates (e.g. {'key': value}), a Command, or None."]


def test_a_list_as_input_is_one_clear_line_exit_1(tmp_path: Path) -> None:
    path = write_graph(tmp_path, "broken", BROKEN)
    code, out, err = run(f"{path}:listy_graph", "--input", "[1,2]")
    assert (code, out, len(err)) == (1, [], 1)
    assert err[0].startswith("retrograph: the input was refused: InvalidUpdateError: the graph's input must be a dict")


def test_a_node_that_raises_is_named_and_traceback_only_on_request(tmp_path: Path) -> None:
    path = write_graph(tmp_path, "broken", BROKEN)
    code, _, err = run(f"{path}:boom_graph", "--input", '{"n": 1}')
    assert code == 1
    assert err == ["retrograph: the run failed: node `boom` raised KeyError: 'no such tool'"]
    code, _, err = run(f"{path}:boom_graph", "--input", '{"n": 1}', "--traceback")
    assert code == 1 and err[0] == "Traceback (most recent call last):" and "raise KeyError" in "\n".join(err)


def test_screenshot_exits_non_zero_when_the_graph_did_not_load(tmp_path: Path) -> None:
    bad = tmp_path / "nograph.py"
    bad.write_text("x = 1\n")
    out = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "studio", str(bad), "--db", str(tmp_path / "r.sqlite"),
                           "--screenshot", str(out)], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert done.returncode == 1, done.stderr
    assert f"retrograph: No graph in the file: {bad} defines no graph" in done.stderr
    assert "Traceback" not in done.stderr
    # a database that cannot be opened is said as such, not as a graph that did not load
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("create table users(id int)").connection.close()
    good = write_graph(tmp_path, "approval", APPROVAL)
    done = subprocess.run([sys.executable, "-m", "studio", str(good), "--db", str(other),
                           "--screenshot", str(out)], capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert done.returncode == 1, done.stderr
    assert (f"retrograph: Cannot open the checkpoint database: `{other}` is a SQLite database but not a Retrograph "
            "checkpoint file (its tables: users)") in done.stderr
