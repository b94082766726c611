"""deepagents, langgraph-supervisor, langgraph-swarm and langchain's create_agent with
human-in-the-loop and summarization: each example of resources/examples/agents_*.py run
through `retrograph run` (a fresh process for every turn and every `--resume`) gives the
checkpoints (step, source, next) of the thread's root and the final state that real
LangGraph gives the same app (recorded in tests/apps/agents_on_langgraph.json by
tests/record_agents_on_langgraph.py; re-recorded live here when real LangGraph is there)."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

if any(importlib.util.find_spec(m) is None for m in ("langchain", "deepagents", "langgraph_supervisor",
                                                   "langgraph_swarm")):
    # found, never imported: imported here, before engine.compat, they would bind real LangGraph
    pytest.skip("the [agents] extra is not installed", allow_module_level=True)

from agent_apps import APPS, EXAMPLES, FIXTURE, ROOT, comparable_run  # noqa: E402


def _retrograph(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", "import sys; from studio.__main__ import main; sys.exit(main(sys.argv[1:]))",
                           *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=180)


def _on_the_engine(name: str, db: Path) -> dict[str, Any]:
    app = str(EXAMPLES / f"{name}.py")
    first = _retrograph("run", app, "--db", str(db))
    assert first.returncode == 0, first.stderr
    thread = next(line.split()[-1] for line in first.stderr.splitlines() if line.startswith("retrograph: thread "))
    for kind, value in APPS[name]:
        turn = _retrograph("run", app, "--db", str(db), "--thread", thread, f"--{kind}", json.dumps(value))
        assert turn.returncode == 0, turn.stderr
    history = _retrograph("history", str(db), "--thread", thread, "--json", "--values")
    assert history.returncode == 0, history.stderr
    lines = [json.loads(line) for line in history.stdout.splitlines()]
    root = [h for h in lines if h["checkpoint_ns"] == ""]
    return comparable_run(root, root[0]["values"])


@pytest.mark.parametrize("name", sorted(APPS))
def test_the_example_gives_langgraphs_checkpoints_and_final_state(name: str, tmp_path: Path) -> None:
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))[name]
    assert _on_the_engine(name, tmp_path / "runs.sqlite") == expected


def test_the_recorded_answers_are_langgraphs() -> None:
    """The fixture is what real LangGraph answers today (skipped without it)."""
    probe = subprocess.run([sys.executable, "-c", "import langgraph.graph, deepagents, langgraph_swarm"],
                           capture_output=True, text=True, cwd="/", env={k: v for k, v in os.environ.items()
                                                                          if k != "PYTHONPATH"})
    if probe.returncode != 0:
        pytest.skip("real LangGraph and the agent libraries are not installed")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT)  # for `tests.agent_apps`; engine.compat is not installed by the recorder
    live = subprocess.run([sys.executable, "-m", "tests.record_agents_on_langgraph", "--print"], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=180)
    assert live.returncode == 0, live.stderr
    assert json.loads(live.stdout) == json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_each_library_reaches_its_own_answer() -> None:
    """Independent of LangGraph: the recorded runs end as each script says they should."""
    recorded = json.loads(FIXTURE.read_text(encoding="utf-8"))
    last = {name: run["values"]["messages"][-1]["content"] for name, run in recorded.items()}
    assert last["agents_approval_summary"] == "Done: refunded 30.00 for A-17."
    assert last["agents_deep"].endswith("The critic says: Looks good: 2 items, each one line.")
    assert last["agents_supervisor"] == "6 times 7 is 42.0, and the capital of France is Paris."
    assert last["agents_swarm"] == "Alice here: the sum is 12."
    assert recorded["agents_swarm"]["values"]["active_agent"] == "Alice"
    assert recorded["agents_deep"]["values"]["files"]["/notes.md"]["content"].startswith("# Release 2.0")
