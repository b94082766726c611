"""create_react_agent with a scripted chat model: the loop, prompt, checkpoints, breakpoints."""
from __future__ import annotations

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from pydantic import BaseModel  # noqa: E402
from scripted_chat import ScriptedChat  # noqa: E402

from engine import InMemorySaver  # noqa: E402
from engine.prebuilt import create_react_agent  # noqa: E402


@tool
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def _reply(messages: list) -> AIMessage:
    """Two tool calls for a question; a summary of the tool results once they are in."""
    if isinstance(messages[-1], HumanMessage):
        return AIMessage("", tool_calls=[{"name": "multiply", "args": {"a": 6, "b": 7}, "id": "call_1"},
                                         {"name": "add", "args": {"a": 1, "b": 2}, "id": "call_2"}])
    results = [m.content for m in messages if isinstance(m, ToolMessage)]
    return AIMessage("results: " + ", ".join(results))


CFG = {"configurable": {"thread_id": "t"}}


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_agent_loop_and_its_checkpoints(version: str) -> None:
    model = ScriptedChat(reply=_reply)
    agent = create_react_agent(model, [multiply, add], prompt="be brief", checkpointer=InMemorySaver(),
                               version=version)
    out = agent.invoke({"messages": [("user", "6*7 and 1+2?")]}, CFG)
    assert [type(m).__name__ for m in out["messages"]] == [
        "HumanMessage", "AIMessage", "ToolMessage", "ToolMessage", "AIMessage"]
    assert out["messages"][-1].content == "results: 42, 3"
    assert [t.name for t in model.bound] == ["multiply", "add"]
    first = model.seen[0]
    assert isinstance(first[0], SystemMessage) and first[0].content == "be brief"
    tools_next = ("tools", "tools") if version == "v2" else ("tools",)  # v2: one task per tool call
    history = [(s.metadata["step"], s.metadata["source"], s.next) for s in agent.get_state_history(CFG)]
    assert history == [(3, "loop", ()), (2, "loop", ("agent",)), (1, "loop", tools_next),
                       (0, "loop", ("agent",)), (-1, "input", ("__start__",))]


def test_interrupt_before_tools_then_go_on() -> None:
    agent = create_react_agent(ScriptedChat(reply=_reply), [multiply, add], checkpointer=InMemorySaver(),
                               interrupt_before=["tools"])
    agent.invoke({"messages": [("user", "go")]}, CFG)
    state = agent.get_state(CFG)
    assert state.next == ("tools", "tools") and len(state.values["messages"]) == 2
    assert agent.invoke(None, CFG)["messages"][-1].content == "results: 42, 3"


def test_a_callable_prompt_and_a_name() -> None:
    model = ScriptedChat(reply=lambda ms: AIMessage(f"{len(ms)} messages"))
    agent = create_react_agent(model, [], prompt=lambda state: [SystemMessage("sys"), *state["messages"][-1:]],
                               name="helper")
    out = agent.invoke({"messages": [("user", "a"), ("user", "b")]})
    assert out["messages"][-1].content == "2 messages" and out["messages"][-1].name == "helper"


def test_return_direct_ends_after_the_tool() -> None:
    @tool(return_direct=True)
    def lookup(q: str) -> str:
        """Look up."""
        return f"found {q}"

    model = ScriptedChat(reply=lambda ms: AIMessage("", tool_calls=[{"name": "lookup", "args": {"q": "x"}, "id": "1"}]))
    out = create_react_agent(model, [lookup]).invoke({"messages": [("user", "?")]})
    assert out["messages"][-1].content == "found x" and len(model.seen) == 1


def test_response_format_asks_for_structured_output() -> None:
    class Answer(BaseModel):
        value: int

    class Structured(ScriptedChat):
        def with_structured_output(self, schema, **kwargs):
            from langchain_core.runnables import RunnableLambda

            return RunnableLambda(lambda messages: schema(value=len(messages)))

    model = Structured(reply=lambda ms: AIMessage("done"))
    out = create_react_agent(model, [add], response_format=Answer).invoke({"messages": [("user", "?")]})
    assert out["structured_response"] == Answer(value=2)


def test_bad_arguments_are_named() -> None:
    model = ScriptedChat(reply=_reply)
    with pytest.raises(TypeError, match="unexpected keyword arguments: {'pre_hook': 1}"):
        create_react_agent(model, [add], pre_hook=1)
    with pytest.raises(ValueError, match="Invalid version v3"):
        create_react_agent(model, [add], version="v3")
    try:
        import langchain.chat_models  # noqa: F401
    except ImportError:  # a model named by a string needs langchain's init_chat_model
        with pytest.raises(ImportError, match="pip install langchain"):
            create_react_agent("openai:gpt-4o", [add])


def test_out_of_steps_the_agent_says_so_instead_of_calling_tools() -> None:
    agent = create_react_agent(ScriptedChat(reply=_reply), [multiply, add], checkpointer=InMemorySaver())
    out = agent.invoke({"messages": [("user", "go")]}, {**CFG, "recursion_limit": 2})
    assert out["messages"][-1].content == "Sorry, need more steps to process this request."
    assert out["messages"][-1].tool_calls == []
