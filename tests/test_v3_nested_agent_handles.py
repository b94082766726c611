"""Agents inside agents in a v3 event stream: a task start carries its config's metadata (as
LangGraph's "tasks" payloads do), a graph invoked inside a node inherits the caller's
metadata under its own, so langchain's `run.subagents` surfaces a named `create_agent` run by
a tool, with the tool call that caused it, sync and async; an unnamed one surfaces under the
caller's name. Real langchain agents, a scripted chat model."""
from __future__ import annotations

import asyncio
import importlib.util
import operator
import sys
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from engine import START, StateGraph

if importlib.util.find_spec("langchain") is None:  # (not imported here: compat serves it `langgraph` first)
    pytest.skip("the [agents] extra is not installed", allow_module_level=True)

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402

from tests.scripted_chat import ScriptedChat  # noqa: E402


@pytest.fixture
def create_agent() -> Iterator[Any]:
    from engine import compat

    compat.install()
    from langchain.agents import create_agent as made

    assert sys.modules["langchain.agents.factory"].StateGraph.__module__.startswith("engine.")  # on the engine
    yield made


def _lead(messages: list[Any]) -> AIMessage:
    if not any(isinstance(m, ToolMessage) for m in messages):
        return AIMessage("", tool_calls=[{"name": "ask_weather", "args": {"city": "SF"}, "id": "call_w"}])
    return AIMessage("it is " + messages[-1].content)


def _weather(messages: list[Any]) -> AIMessage:
    return AIMessage("sunny in " + messages[-1].content.split()[-1])


def _agents(create_agent: Any, inner_name: str | None, *, sync: bool = True) -> Any:
    inner = create_agent(model=ScriptedChat(reply=_weather), tools=[], name=inner_name)
    if sync:
        @tool
        def ask_weather(city: str) -> str:
            """Ask the weather agent."""
            return inner.invoke({"messages": [HumanMessage(f"weather in {city}")]})["messages"][-1].content
    else:
        @tool
        async def ask_weather(city: str) -> str:
            """Ask the weather agent."""
            done = await inner.ainvoke({"messages": [HumanMessage(f"weather in {city}")]})
            return done["messages"][-1].content
    return create_agent(model=ScriptedChat(reply=_lead), tools=[ask_weather], name="lead")


def test_a_named_agent_run_by_a_tool_is_a_subagent_handle(create_agent) -> None:
    lead = _agents(create_agent, "weather")
    run = lead.stream_events({"messages": [HumanMessage("weather?")]}, version="v3")
    handles = []
    for handle in run.subagents:
        handles.append(handle)
        for _ in handle:  # its own events, while the run goes on
            pass
    [found] = handles
    assert (found.name, found.cause, found.status) == ("weather", {"type": "toolCall", "tool_call_id": "call_w"},
                                                        "completed")
    assert found.path[0].startswith("tools:")
    assert found.output["messages"][-1].content == "sunny in SF"  # the subagent's own last values
    assert run.output["messages"][-1].content == "it is sunny in SF"


def test_the_async_lane_surfaces_it_too(create_agent) -> None:
    async def main() -> list[Any]:
        lead = _agents(create_agent, "weather", sync=False)
        run = await lead.astream_events({"messages": [HumanMessage("weather?")]}, version="v3")
        handles = []
        async for handle in run.subagents:
            handles.append(handle)
            async for _ in handle:
                pass
        return handles

    [found] = asyncio.run(main())
    assert (found.name, found._seen_terminal, found.status) == ("weather", True, "completed")


def test_an_unnamed_inner_agent_surfaces_under_the_callers_name(create_agent) -> None:
    lead = _agents(create_agent, None)
    starts = [(part["ns"], part["data"]["metadata"]) for part in
              lead.stream({"messages": [HumanMessage("weather?")]}, stream_mode="tasks", subgraphs=True, version="v2")
              if "triggers" in part["data"]]
    inner = [md for ns, md in starts if ns]
    assert inner and all(md["lc_agent_name"] == "lead" for md in inner)  # inherited from the tool's task
    run = lead.stream_events({"messages": [HumanMessage("weather?")]}, version="v3")
    assert [h.name for h in run.subagents] == ["lead"]


class S(TypedDict):
    xs: Annotated[list, operator.add]


def test_a_task_start_carries_its_configs_own_metadata_and_tags() -> None:
    builder = StateGraph(S)
    builder.add_node("a", lambda s: {"xs": [1]})
    builder.add_edge(START, "a")
    graph = builder.compile().with_config(metadata={"team": "blue"}, tags=["mine"])
    [start] = [p["data"] for p in graph.stream({"xs": []}, {"metadata": {"who": "me"}}, stream_mode="tasks",
                                                version="v2") if "triggers" in p["data"]]
    # the run's own keys (step, node, thread...) are in the payload and its namespace already
    assert start["metadata"] == {"team": "blue", "who": "me", "tags": ["mine"]}
