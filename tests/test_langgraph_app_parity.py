"""One LangGraph app file (tests/apps/approval_app.py: `langgraph` imports, MessagesState,
a tool node, an interrupt() approval) run on real LangGraph and through `retrograph run`
with each `--resume` in a fresh process: the same checkpoints (step, source, next) and
the same final messages, as `retrograph history --json --values` prints them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("engine.compat")

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "tests" / "apps" / "approval_app.py"

MESSAGES = """
def messages(ms):
    out = []
    for m in ms:
        row = {"type": m.type, "content": m.content}
        if getattr(m, "tool_calls", None):
            row["tool_calls"] = [[c["name"], c["args"], c["id"]] for c in m.tool_calls]
        if m.type == "tool":
            row["tool_call_id"] = m.tool_call_id
        out.append(row)
    return out
"""

ON_LANGGRAPH = MESSAGES + """
import json, sys
sys.path.insert(0, sys.argv[1])
import approval_app as app
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
graph = app.builder.compile(checkpointer=InMemorySaver())
config = {"configurable": {"thread_id": "t"}}
graph.invoke(app.example_input, config)
graph.invoke(Command(resume="yes"), config)
history = [[s.metadata["step"], s.metadata["source"], list(s.next)] for s in graph.get_state_history(config)]
print(json.dumps({"history": history, "messages": messages(graph.get_state(config).values["messages"])}))
"""



def _from_history(lines: list[dict]) -> dict:
    """`retrograph history --json --values` lines (newest first) in the form printed above."""
    def message(m: dict) -> dict:
        row = {"type": m["type"], "content": m["content"]}
        if m.get("tool_calls"):
            row["tool_calls"] = [[c["name"], c["args"], c["id"]] for c in m["tool_calls"]]
        if m["type"] == "tool":
            row["tool_call_id"] = m["tool_call_id"]
        return row

    return {"history": [[h["step"], h["source"], h["next"]] for h in lines],
            "messages": [message(m) for m in lines[0]["values"]["messages"]]}


def _python(code: str, *args: str, engine: bool) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if engine:
        env["PYTHONPATH"] = str(ROOT)
    else:
        env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                          cwd=ROOT if engine else "/", timeout=120)


def _retrograph(*args: str) -> subprocess.CompletedProcess[str]:
    return _python("import sys; from studio.__main__ import main; sys.exit(main(sys.argv[1:]))", *args, engine=True)


def test_the_same_app_gives_the_same_checkpoints_and_messages_on_langgraph_and_retrograph(tmp_path: Path) -> None:
    probe = _python("import langgraph.graph", engine=False)
    if probe.returncode != 0:
        pytest.skip("real LangGraph is not installed (test extra)")
    real = _python(ON_LANGGRAPH, str(APP.parent), engine=False)
    assert real.returncode == 0, real.stderr
    expected = json.loads(real.stdout)

    db = tmp_path / "runs.sqlite"
    first = _retrograph("run", str(APP), "--db", str(db))  # a new thread, printed
    assert first.returncode == 0, first.stderr
    thread = next(line.split()[-1] for line in first.stderr.splitlines() if line.startswith("retrograph: thread "))
    assert "interrupted in approve" in first.stderr
    second = _retrograph("run", str(APP), "--db", str(db), "--thread", thread, "--resume", '"yes"')
    assert second.returncode == 0, second.stderr
    history = _retrograph("history", str(db), "--thread", thread, "--json", "--values")
    assert history.returncode == 0, history.stderr
    got = _from_history([json.loads(line) for line in history.stdout.splitlines()])
    assert got == json.loads(json.dumps(expected))
    assert expected["messages"][-1] == {"type": "ai", "content": "The weather: sunny, 21C."}
