"""langchain's create_agent runs on the engine (engine.compat serves every `langgraph`
import, though the [agents] extra installs real LangGraph beside it): tools, a system
prompt, a checkpointer and the human-in-the-loop middleware's three decisions give the
same interrupts and messages as on real LangGraph, and nothing of real LangGraph loads."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.compat.finder import LOCATION

HERE = Path(__file__).parent
CHILD = HERE / "apps" / "langchain_agent_child.py"


def _run(side: str) -> dict:
    done = subprocess.run([sys.executable, str(CHILD), str(HERE), side], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def both() -> tuple[dict, dict]:
    return _run("engine"), _run("real")


def test_no_module_of_real_langgraph_is_loaded_on_the_engine(both):
    engine, real = both
    assert engine["langgraph_modules"] == [LOCATION]
    assert any("site-packages" in f for f in real["langgraph_modules"])  # the comparison is real


@pytest.mark.parametrize("decision", ["approve", "edit", "reject"])
def test_a_human_in_the_loop_decision_gives_langgraphs_interrupt_and_messages(both, decision):
    engine, real = both
    assert engine[decision]["asked"] == real[decision]["asked"]
    assert engine[decision]["messages"] == real[decision]["messages"]
    assert engine[decision]["nodes"] == real[decision]["nodes"]


def test_the_decisions_reach_the_tool():
    # independent of the comparison: the engine's own answers are the ones langchain defines
    engine = _run("engine")
    assert engine["approve"]["messages"][2] == ["ToolMessage", "3"]
    assert "10" in engine["edit"]["messages"][2][1]
    assert "no adding today" in engine["reject"]["messages"][2][1]
