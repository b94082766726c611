"""The agent-library examples compared with real LangGraph (test_agent_libraries_parity.py):
what each run does (its turns), and the comparable form of a thread's checkpoints and final
state, the same whether it comes from LangGraph's `get_state_history` or from
`retrograph history --json --values`. Random ids (uuid4 tool call ids of handoff messages,
message ids) and wall-clock times (deepagents' file timestamps) are left out."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["APPS", "EXAMPLES", "FIXTURE", "comparable_message", "comparable_values", "comparable_run"]

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "resources" / "examples"
FIXTURE = Path(__file__).resolve().parent / "apps" / "agents_on_langgraph.json"
"""LangGraph's answers, recorded by `python -m tests.record_agents_on_langgraph`."""

APPROVE = {"decisions": [{"type": "approve"}]}
APPS: dict[str, list[tuple[str, Any]]] = {
    # example name -> its turns after the example_input: ("resume", value) or ("input", value)
    "agents_approval_summary": [("resume", APPROVE)],
    "agents_deep": [("resume", APPROVE)],
    "agents_supervisor": [],
    "agents_swarm": [("input", {"messages": [{"role": "user", "content": "What is 5 + 7?"}]})],
}

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIMES = ("created_at", "modified_at")


def _id(value: Any) -> Any:
    return "<uuid>" if isinstance(value, str) and _UUID.fullmatch(value) else value


def comparable_message(m: dict[str, Any]) -> dict[str, Any]:
    """A message as a dict (LangGraph's `.model_dump()` or the history's JSON): its kind,
    text, name and tool calls."""
    row = {"type": m["type"], "content": m["content"], "name": m.get("name")}
    if m.get("tool_calls"):
        row["tool_calls"] = [[c["name"], c["args"], _id(c["id"])] for c in m["tool_calls"]]
    if m["type"] == "tool":
        row["tool_call_id"] = _id(m["tool_call_id"])
    return row


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k not in _TIMES}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def comparable_values(values: dict[str, Any]) -> dict[str, Any]:
    out = {k: _plain(v) for k, v in values.items() if k != "messages"}
    out["messages"] = [comparable_message(m) for m in values["messages"]]
    return out


def comparable_run(history: list[dict[str, Any]], values: dict[str, Any]) -> dict[str, Any]:
    """The root namespace's checkpoints, newest first, as [step, source, next], and the final state."""
    return {"history": [[h["step"], h["source"], list(h["next"])] for h in history],
            "values": comparable_values(values)}
