"""Run in a fresh process by test_langchain_agents_on_the_engine.py: langchain's create_agent
(tools, system prompt, human-in-the-loop middleware, a checkpointer) on the engine through
engine.compat, with a scripted model. Prints one JSON line: what happened, and where every
loaded `langgraph` module came from. argv: the tests folder, then "engine" or "real"."""
from __future__ import annotations

import json
import sys

if sys.argv[2:] != ["real"]:  # "real": the same app on real LangGraph, to compare with
    import engine.compat

    engine.compat.install()

from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import HumanInTheLoopMiddleware  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.types import Command  # noqa: E402

sys.path.insert(0, sys.argv[1])
from scripted_chat import ScriptedChat  # noqa: E402


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def reply(messages):
    done = [m for m in messages if isinstance(m, ToolMessage)]
    if done:
        return AIMessage(f"sum is {done[-1].content}")
    return AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}])


def run(decision):
    agent = create_agent(ScriptedChat(reply=reply), [add], system_prompt="You add.",
                         middleware=[HumanInTheLoopMiddleware(interrupt_on={"add": True})],
                         checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    first = agent.invoke({"messages": [HumanMessage("1+2?")]}, cfg)
    asked = [i.value for i in first.get("__interrupt__", [])]
    out = agent.invoke(Command(resume={"decisions": [decision]}), cfg)
    return {"asked": json.loads(json.dumps(asked, default=str)),
            "messages": [[type(m).__name__, m.content] for m in out["messages"]],
            "nodes": sorted(agent.get_graph().nodes)}


result = {
    "approve": run({"type": "approve"}),
    "edit": run({"type": "edit", "edited_action": {"name": "add", "args": {"a": 5, "b": 5}}}),
    "reject": run({"type": "reject", "message": "no adding today"}),
    "langgraph_modules": sorted({getattr(m, "__file__", None) or "" for n, m in sys.modules.items()
                                 if n == "langgraph" or n.startswith("langgraph.")}),
}
print(json.dumps(result))
