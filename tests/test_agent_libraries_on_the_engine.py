"""deepagents, langgraph-supervisor and langgraph-swarm (the [agents] extra, which installs
real LangGraph as their dependency) run on the engine with engine.compat: every
`langgraph` import is served by the engine, and no module or function of the installed
LangGraph is ever loaded, while each example reaches its answer."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.compat.finder import LOCATION

if any(importlib.util.find_spec(m) is None for m in ("langchain", "deepagents", "langgraph_supervisor",
                                                   "langgraph_swarm")):
    # found, never imported: imported here, before engine.compat, they would bind real LangGraph
    pytest.skip("the [agents] extra is not installed", allow_module_level=True)

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def child() -> dict:
    done = subprocess.run([sys.executable, str(HERE / "apps" / "agent_libraries_child.py"), str(HERE)],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_langgraph_module_is_the_engines(child: dict) -> None:
    assert child["langgraph_modules"] == [LOCATION]


def test_nothing_of_the_installed_langgraph_is_loaded(child: dict) -> None:
    assert child["real_langgraph_installed"]  # the check below means something
    assert child["modules_from_real"] == []
    assert child["functions_from_real"] == []


def test_each_library_answers_on_the_engine(child: dict) -> None:
    assert child["last"] == {
        "agents_approval_summary": "Done: refunded 30.00 for A-17.",
        "agents_deep": "The notes are in /notes.md. The critic says: Looks good: 2 items, each one line.",
        "agents_supervisor": "6 times 7 is 42.0, and the capital of France is Paris.",
        "agents_swarm": "Alice here: the sum is 12.",
    }
