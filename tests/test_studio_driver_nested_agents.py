"""The studio's driver (studio.core, no Qt) on graphs that invoke graphs from their nodes:
two deepagents `task` subagents of one superstep pause together at their interrupts, as on
LangGraph, and answering both finishes the run; a graph invoked by a sync `invoke()` on the
driver's own loop thread (inside an async node) runs through (no gate can park it there:
the loop it would wait on is the one blocked), while one invoked from a sync node's worker
thread is stepped into. Real deepagents and langchain objects, scripted chat models."""
from __future__ import annotations

import asyncio
import importlib.util
import operator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from engine import START, InMemorySaver, StateGraph
from studio.core.driver import RunDriver

needs_agents = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("langchain", "deepagents")),
    reason="the [agents] extra is not installed")


def _two_subagents() -> Any:
    from engine import compat

    compat.install()  # before deepagents imports `langgraph`
    from deepagents import create_deep_agent
    from langchain_core.messages import AIMessage, ToolMessage
    from langchain_core.tools import tool
    from langgraph.types import interrupt

    from tests.scripted_chat import ScriptedChat

    def lead(messages: list[Any]) -> AIMessage:
        if not any(isinstance(m, ToolMessage) for m in messages):
            return AIMessage("", tool_calls=[
                {"name": "task", "args": {"description": "check A", "subagent_type": "checker"}, "id": "call_a"},
                {"name": "task", "args": {"description": "check B", "subagent_type": "checker"}, "id": "call_b"}])
        return AIMessage("done: " + " | ".join(sorted(m.content for m in messages if isinstance(m, ToolMessage))))

    @tool
    def ask_human(question: str) -> str:
        """Ask a human."""
        return str(interrupt(question))

    def checker(messages: list[Any]) -> AIMessage:
        answers = [m for m in messages if isinstance(m, ToolMessage)]
        if not answers:
            return AIMessage("", tool_calls=[{"name": "ask_human", "args": {"question": messages[-1].content + "?"},
                                              "id": "ask"}])
        return AIMessage("answer " + answers[-1].content)

    return create_deep_agent(model=ScriptedChat(reply=lead), system_prompt="lead",
                             subagents=[{"name": "checker", "description": "checks", "system_prompt": "check",
                                         "model": ScriptedChat(reply=checker), "tools": [ask_human]}],
                             checkpointer=InMemorySaver())


def _driver(graph: Any, value: Any) -> RunDriver:
    driver = RunDriver(lambda event: None)
    driver.set_graph(graph)
    driver.open_thread("t")
    driver.set_input(value)
    return driver


@needs_agents
def test_two_subagents_of_one_superstep_pause_together_and_each_answer_goes_to_its_own() -> None:
    from langchain_core.messages import HumanMessage

    graph = _two_subagents()

    async def main() -> list[Any]:
        driver = _driver(graph, {"messages": [HumanMessage("go")]})
        seen = [(await driver.continue_()).reason, sorted(p.interrupt.value for p in driver.interrupts)]
        tasks = {p.task_id for p in driver.interrupts}
        first = next(p for p in driver.interrupts if p.interrupt.value == "check A?")
        seen.append((await driver.resume("yes", first.interrupt.id)).reason)
        seen += [(await driver.continue_()).reason, [p.interrupt.value for p in driver.interrupts]]
        seen.append((await driver.resume("no", driver.interrupts[0].interrupt.id)).reason)
        seen.append((await driver.continue_()).reason)
        assert driver.run is not None
        return [len(tasks), *seen, driver.run.values["messages"][-1].content]

    assert asyncio.run(main()) == [
        2,  # one task per `task` call, both in one superstep
        "interrupted", ["check A?", "check B?"],  # they pause together, as on LangGraph
        "stepped",  # A's answer resumes A's task only
        "interrupted", ["check B?"],  # B is still waiting
        "stepped", "done", "done: answer no | answer yes"]


class S(TypedDict):
    log: Annotated[list, operator.add]


def _caller() -> Any:
    inner = StateGraph(S)
    inner.add_node("research", lambda s: {"log": ["research"]})
    inner.add_node("write", lambda s: {"log": ["write"]})
    inner.add_edge(START, "research")
    inner.add_edge("research", "write")
    helper = inner.compile()

    async def on_the_loop(state: S) -> dict[str, Any]:
        return {"log": ["loop: " + ", ".join(helper.invoke({"log": []})["log"])]}  # a sync call on the loop thread

    def on_a_worker(state: S) -> dict[str, Any]:
        return {"log": ["worker: " + ", ".join(helper.invoke({"log": []})["log"])]}

    builder = StateGraph(S)
    builder.add_node("on_the_loop", on_the_loop)
    builder.add_node("on_a_worker", on_a_worker)
    builder.add_edge(START, "on_the_loop")
    builder.add_edge("on_the_loop", "on_a_worker")
    return builder.compile(checkpointer=InMemorySaver())


def test_a_sync_invoke_on_the_loop_thread_runs_through_and_one_on_a_worker_is_stepped() -> None:
    async def main() -> list[str]:
        driver = _driver(_caller(), {"log": []})
        await driver.step_node()  # __start__
        reasons = [(await asyncio.wait_for(driver.step_into(), 60)).reason]  # on_the_loop: runs through
        reasons.append((await asyncio.wait_for(driver.step_into(), 60)).reason)  # on_a_worker: inside
        while driver.inside is not None:
            reasons.append((await asyncio.wait_for(driver.step_into(), 60)).reason)
        assert driver.run is not None
        assert driver.run.values["log"] == ["loop: research, write", "worker: research, write"]
        return reasons

    assert asyncio.run(main()) == ["stepped", "inside", "inside", "inside", "done"]
