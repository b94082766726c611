"""`retrograph run --context/--config/--durability`: a context_schema app runs headless, a
fresh process per `--resume` reuses the thread's context, and bad flags are one line, exit 2."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import SqliteSaver
from test_studio_support import ROOT, write_graph

APP = ROOT / "resources" / "examples" / "user_memory.py"


def retrograph(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A fresh process, as a user's shell starts it."""
    return subprocess.run([sys.executable, "-m", "studio", "run", str(APP), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False)


def lines(out: str) -> list[object]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_resume_in_a_new_process_runs_with_the_context_the_thread_started_with(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.sqlite")
    first = retrograph("--db", db, "--thread", "t1", "--context", '{"user_id": "bob", "tone": "formal"}', cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "What should I remember about bob?" in first.stdout
    second = retrograph("--db", db, "--thread", "t1", "--resume", '"likes tea"', cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    answer = [c["reply"]["answer"] for c in lines(second.stdout) if isinstance(c, dict) and "reply" in c]
    assert answer == ["Good day, bob. About you I know: likes tea. You asked: what do you know about me?"]


def test_a_new_run_without_context_takes_the_files_example_context(tmp_path: Path) -> None:
    result = retrograph("--db", str(tmp_path / "r.sqlite"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "What should I remember about ada?" in result.stdout


SECRETIVE = """
    class S(TypedDict, total=False):
        seen: str
    def look(s, runtime):
        return {"seen": f"{runtime.context['user_id']}:{len(runtime.context.get('api_key', ''))}"}
    b = StateGraph(S)
    b.add_node("look", look)
    b.add_edge(START, "look")
    graph = b.compile()
    example_input = {}
"""


def test_a_context_key_that_looks_like_a_secret_reaches_the_node_but_never_the_disk(tmp_path: Path) -> None:
    app = write_graph(tmp_path, "secretive", SECRETIVE)
    db = tmp_path / "runs.sqlite"
    result = subprocess.run([sys.executable, "-m", "studio", "run", str(app), "--db", str(db), "--thread", "t",
                             "--context", '{"user_id": "cy", "api_key": "sk-very-secret-123"}'], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert {"look": {"seen": "cy:18"}} in lines(result.stdout)
    assert "context key api_key not saved with the thread" in result.stderr
    metas = [t.metadata for t in SqliteSaver(str(db)).list({"configurable": {"thread_id": "t"}})]
    assert metas and all(m.get("run_context") == {"user_id": "cy"} for m in metas)
    for f in tmp_path.glob("runs.sqlite*"):
        assert b"sk-very-secret-123" not in f.read_bytes()


@pytest.mark.parametrize(("flags", "said"), [
    (["--context", "{bad"], "--context: The input is not valid JSON"),
    (["--context", "[1, 2]"], "--context must be a JSON object"),
    (["--context", '{"tone": "formal"}'], "--context does not fit UserContext"),
    (["--context", '{"user_id": "a", "mood": 1}'], "--context does not fit UserContext"),
    (["--config", '{"recursion_limit": 0}'], "--config: recursion_limit must be a whole number"),
    (["--config", '{"callbacks": []}'], "--config: unknown key 'callbacks'"),
    (["--config", '{"tags": "x"}'], "--config: tags must be a list of strings"),
    (["--durability", "never"], "argument --durability: invalid choice: 'never'"),
])
def test_a_bad_flag_is_one_line_naming_it_and_exit_2(tmp_path: Path, flags: list[str], said: str) -> None:
    db = tmp_path / "runs.sqlite"
    result = retrograph("--db", str(db), *flags, cwd=tmp_path)
    assert result.returncode == 2
    assert said in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert not db.exists() or not list(SqliteSaver(str(db)).list(None))


def test_config_sets_the_recursion_limit_and_tags_of_the_run(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.sqlite")
    result = retrograph("--db", db, "--thread", "t", "--config", '{"recursion_limit": 1}', cwd=tmp_path)
    assert result.returncode == 1
    assert "recursion" in result.stderr.lower()
    tagged = retrograph("--db", db, "--thread", "u", "--config", '{"metadata": {"ticket": "T-7"}}', cwd=tmp_path)
    assert tagged.returncode == 0, tagged.stderr
    saver = SqliteSaver(db)
    metas = [t.metadata for t in saver.list({"configurable": {"thread_id": "u"}})]
    assert metas and all(m.get("ticket") == "T-7" for m in metas)
    assert all(m.get("run_context") == {"user_id": "ada", "tone": "friendly"} for m in metas)


def test_durability_exit_saves_only_when_the_run_stops(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.sqlite")
    result = retrograph("--db", db, "--thread", "t", "--durability", "exit", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    exit_count = len(list(SqliteSaver(db).list({"configurable": {"thread_id": "t"}})))
    result = retrograph("--db", db, "--thread", "s", "--durability", "sync", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    sync_count = len(list(SqliteSaver(db).list({"configurable": {"thread_id": "s"}})))
    assert exit_count < sync_count
