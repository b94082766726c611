"""ToolNode and tools_condition, as graph nodes, with langchain-core tools."""
from __future__ import annotations

import threading
from typing import Annotated

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langchain_core.tools import InjectedToolCallId, tool  # noqa: E402

from engine import END, START, Command, InMemorySaver, MessagesState, StateGraph, interrupt  # noqa: E402
from engine.prebuilt import InjectedState, ToolNode, tools_condition  # noqa: E402


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def boom(x: str) -> str:
    """Always fails."""
    raise ValueError(f"kaput {x}")


def _calls(*calls: tuple[str, dict]) -> dict:
    return {"messages": [AIMessage("", tool_calls=[{"name": n, "args": a, "id": f"c{i}"}
                                                   for i, (n, a) in enumerate(calls)])]}


def _run(node: ToolNode, state: dict, schema: type = MessagesState) -> dict:
    b = StateGraph(schema)
    b.add_node("tools", node)
    b.add_edge(START, "tools")
    b.add_edge("tools", END)
    out = b.compile().invoke(state)
    return {**out, "messages": out["messages"][1:]}


def _shown(messages: list) -> list[tuple]:
    return [(m.content, m.name, m.tool_call_id, m.status) for m in messages]


def test_parallel_calls_answer_in_call_order() -> None:
    barrier = threading.Barrier(2, timeout=10)

    @tool
    def wait_a() -> str:
        """Waits for wait_b: passes only if both run at once."""
        barrier.wait()
        return "a"

    @tool
    def wait_b() -> str:
        """Waits for wait_a."""
        barrier.wait()
        return "b"

    out = _run(ToolNode([wait_a, wait_b]), _calls(("wait_a", {}), ("wait_b", {})))
    assert _shown(out["messages"]) == [("a", "wait_a", "c0", "success"), ("b", "wait_b", "c1", "success")]


def test_errors_become_tool_messages_as_handle_tool_errors_says() -> None:
    bad_args = _calls(("add", {"a": "x"}))
    [msg] = _run(ToolNode([add]), bad_args)["messages"]  # default: invalid arguments only
    assert msg.status == "error" and msg.content.startswith("Error invoking tool 'add' with kwargs {'a': 'x'}")
    with pytest.raises(ValueError, match="kaput 1"):  # default: a tool's own error is raised
        _run(ToolNode([boom]), _calls(("boom", {"x": "1"})))
    cases = [(True, "Error: ValueError('kaput 1')\n Please fix your mistakes."), ("sorry", "sorry"),
             (lambda e: f"handled {e}", "handled kaput 1"), (ValueError, "Error: ValueError('kaput 1')\n Please fix your mistakes.")]
    for flag, content in cases:
        [msg] = _run(ToolNode([boom], handle_tool_errors=flag), _calls(("boom", {"x": "1"})))["messages"]
        assert (msg.content, msg.status) == (content, "error"), flag
    with pytest.raises(ValueError):
        _run(ToolNode([boom], handle_tool_errors=KeyError), _calls(("boom", {"x": "1"})))

    def only_keys(e: KeyError) -> str:
        return "key"
    with pytest.raises(ValueError):
        _run(ToolNode([boom], handle_tool_errors=only_keys), _calls(("boom", {"x": "1"})))
    [msg] = _run(ToolNode([add]), _calls(("nope", {})))["messages"]
    assert msg.content == "Error: nope is not a valid tool, try one of [add]." and msg.status == "error"


class WhoState(MessagesState):
    who: str


def test_injected_state_tool_call_id_and_commands() -> None:
    @tool
    def set_who(name: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        """Set who."""
        return Command(update={"who": name, "messages": [ToolMessage(f"set {name}", tool_call_id=tool_call_id)]})

    @tool
    def greet(greeting: str, state: Annotated[dict, InjectedState]) -> str:
        """Greet."""
        return f"{greeting} {state['who']} ({len(state['messages'])} messages)"

    @tool
    def who_is(who: Annotated[str, InjectedState("who")]) -> str:
        """Who."""
        return who

    assert set(greet.tool_call_schema.model_json_schema()["properties"]) == {"greeting"}
    out = _run(ToolNode([set_who, greet, who_is]),
               {"who": "ada", **_calls(("greet", {"greeting": "hi"}), ("set_who", {"name": "bob"}), ("who_is", {}))},
               WhoState)
    assert out["who"] == "bob"
    assert [(m.content, m.tool_call_id) for m in out["messages"]] == [
        ("hi ada (1 messages)", "c0"), ("set bob", "c1"), ("ada", "c2")]


def test_an_interrupt_in_a_tool_pauses_the_run() -> None:
    @tool
    def refund(amount: int) -> str:
        """Refund after approval."""
        answer = interrupt({"approve refund": amount})
        return "refunded" if answer == "yes" else "refused"

    b = StateGraph(MessagesState)
    b.add_node("tools", ToolNode([refund], handle_tool_errors=True))
    b.add_edge(START, "tools")
    b.add_edge("tools", END)
    graph = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke(_calls(("refund", {"amount": 5})), cfg)
    state = graph.get_state(cfg)
    assert state.next == ("tools",) and state.tasks[0].interrupts[0].value == {"approve refund": 5}
    out = graph.invoke(Command(resume="yes"), cfg)
    assert out["messages"][-1].content == "refunded"


def test_tool_node_is_a_plain_node_not_a_subgraph() -> None:
    b = StateGraph(MessagesState)
    b.add_node("tools", ToolNode([add]))
    b.add_edge(START, "tools")
    b.add_edge("tools", END)
    graph = b.compile()
    assert graph.invoke(_calls(("add", {"a": 2, "b": 3})))["messages"][-1].content == "5"


def test_tools_condition() -> None:
    assert tools_condition(_calls(("add", {}))) == "tools"
    assert tools_condition({"messages": [AIMessage("done")]}) == END
    assert tools_condition([AIMessage("done")]) == END
    with pytest.raises(ValueError, match="(?i)no messages"):
        tools_condition({"messages": []})


def test_bad_arguments_are_named() -> None:
    with pytest.raises(TypeError, match="wrap_tool_calls"):
        ToolNode([add], wrap_tool_calls=1)
    with pytest.raises(TypeError, match="is not a tool"):
        ToolNode([42])
