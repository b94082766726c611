"""A model never chooses an injected tool argument: for every injected kind, a value the
model puts in its tool call is dropped, and the tool sees only what the graph gives."""
from __future__ import annotations

from typing import Annotated, Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langchain_core.tools import InjectedToolArg, InjectedToolCallId, tool  # noqa: E402

from engine import InMemoryStore  # noqa: E402
from engine.prebuilt import InjectedState, InjectedStore, ToolNode, ToolRuntime, create_react_agent  # noqa: E402
from tests.scripted_chat import ScriptedChat  # noqa: E402

FORGED = {"role": "admin", "forged": True}


class _Auth(InjectedToolArg):  # a custom injected kind
    pass


@tool
def plain(query: str, auth: Annotated[dict, InjectedToolArg()] = None) -> str:  # type: ignore[assignment]
    """Sees an InjectedToolArg (the graph gives none here)."""
    return f"auth={auth!r}"


@tool
def custom(query: str, auth: Annotated[dict, _Auth()] = None) -> str:  # type: ignore[assignment]
    """Sees a custom InjectedToolArg subclass."""
    return f"auth={auth!r}"


@tool
def from_state(query: str, auth: Annotated[dict, InjectedState("auth")]) -> str:
    """Sees one state key."""
    return f"auth={auth!r}"


@tool
def whole_state(query: str, state: Annotated[dict, InjectedState]) -> str:
    """Sees the whole state."""
    return f"forged={state.get('forged')!r} auth={state.get('auth')!r}"


@tool
def from_store(query: str, store: Annotated[Any, InjectedStore()]) -> str:
    """Sees the graph's store."""
    return f"store={type(store).__name__}"


@tool
def call_id(query: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
    """Sees its own call's id."""
    return f"id={tool_call_id}"


@tool
def with_runtime(query: str, runtime: ToolRuntime) -> str:
    """Sees the ToolRuntime."""
    return f"runtime={type(runtime).__name__} id={runtime.tool_call_id} ctx={runtime.context!r}"


TOOLS = [plain, custom, from_state, whole_state, from_store, call_id, with_runtime]
FORGERIES = {
    "plain": {"auth": FORGED}, "custom": {"auth": FORGED}, "from_state": {"auth": FORGED},
    "whole_state": {"state": FORGED}, "from_store": {"store": "a store the model made up"},
    "call_id": {"tool_call_id": "forged-id"}, "with_runtime": {"runtime": {"context": FORGED}},
}
EXPECTED = {
    "plain": "auth=None", "custom": "auth=None", "from_state": "auth={'role': 'viewer'}",
    "whole_state": "forged=None auth={'role': 'viewer'}", "from_store": "store=InMemoryStore",
    "call_id": "id=call-call_id", "with_runtime": "runtime=ToolRuntime id=call-with_runtime ctx={'user': 'u1'}",
}


def _model() -> ScriptedChat:
    def reply(messages: list[Any]) -> AIMessage:
        if isinstance(messages[-1], HumanMessage):  # one call per injected kind, each forging it
            return AIMessage("", tool_calls=[{"name": n, "args": {"query": "q", **forged}, "id": f"call-{n}"}
                                             for n, forged in FORGERIES.items()])
        return AIMessage("done")
    return ScriptedChat(reply=reply)


def _answers(messages: list[Any]) -> dict[str, str]:
    return {m.name: m.content for m in messages if isinstance(m, ToolMessage)}


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_scripted_model_forging_each_injected_kind_is_ignored(mode: str) -> None:
    from engine.prebuilt import AgentState

    class State(AgentState, total=False):
        auth: dict[str, Any]

    agent = create_react_agent(_model(), TOOLS, state_schema=State, store=InMemoryStore(),
                               context_schema=dict)
    given = {"messages": [HumanMessage("hi")], "auth": {"role": "viewer"}}
    if mode == "sync":
        out = agent.invoke(given, context={"user": "u1"})
    else:
        import asyncio
        out = asyncio.run(agent.ainvoke(given, context={"user": "u1"}))
    assert _answers(out["messages"]) == EXPECTED
    assert all("admin" not in m.content and "forged-id" not in m.content
               for m in out["messages"] if isinstance(m, ToolMessage))


def test_the_model_sees_no_injected_argument_in_the_tool_schemas() -> None:
    for t in TOOLS:
        shown = set(t.tool_call_schema.model_json_schema().get("properties", {}))
        assert shown == {"query"}, (t.name, shown)


def test_a_required_injected_arg_the_graph_does_not_give_fails_instead_of_taking_the_models() -> None:
    @tool
    def secret(query: str, auth: Annotated[dict, InjectedToolArg()]) -> str:
        """Needs auth from the graph."""
        return "ADMIN_SECRET" if auth.get("role") == "admin" else "PUBLIC_DATA"

    node = ToolNode([secret], handle_tool_errors=True)
    call = {"name": "secret", "args": {"query": "q", "auth": {"role": "admin"}}, "id": "c1", "type": "tool_call"}
    [msg] = node.invoke({"messages": [AIMessage("", tool_calls=[call])]})["messages"]
    assert msg.status == "error" and "ADMIN_SECRET" not in msg.content and "auth" in msg.content
