"""LangGraph apps with langchain-core: add_messages on every input form (classes kept),
ToolNode (errors, injected state, Commands) and create_react_agent with a scripted model."""
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, RemoveMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import InjectedToolCallId, tool
from normalize import norm
from support import history, thread


def _prebuilt(api):
    if api.impl == "langgraph":
        import langgraph.prebuilt as prebuilt
        from langgraph.graph import MessagesState
    else:
        import engine.prebuilt as prebuilt
        from engine import MessagesState
    return prebuilt, MessagesState


def _shown(messages: list) -> list:
    return [[type(m).__name__, m.content, getattr(m, "tool_call_id", None), getattr(m, "status", None),
             norm(getattr(m, "tool_calls", None) or [])] for m in messages]


def case_add_messages_input_forms(api, tmp):
    merged = api.add_messages([HumanMessage("a", id="1")], [
        "plain", ("assistant", "a pair"), {"role": "user", "content": "a dict"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}]},
        {"role": "tool", "content": "r", "tool_call_id": "c1"},
        AIMessageChunk("to", id="k") + AIMessageChunk("ken", id="k"),
        AIMessage("A", id="1"),
    ])
    removed = api.add_messages(merged, [RemoveMessage(id="1")])
    return {"merged": _shown(merged), "removed": _shown(removed), "ids": all(m.id for m in merged)}


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def boom(x: str) -> str:
    """Always fails."""
    raise ValueError(f"kaput {x}")


@tool
def note(text: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
    """Stores a note through a Command."""
    from_api = note.metadata["command"]
    return from_api(update={"note": text, "messages": [ToolMessage(f"noted {text}", tool_call_id=tool_call_id)]})


def case_tool_node_in_a_graph(api, tmp):
    prebuilt, MessagesState = _prebuilt(api)
    note.metadata = {"command": api.Command}

    class State(MessagesState):
        note: str

    def run(node, calls):
        g = api.StateGraph(State)
        g.add_node("tools", node)
        g.add_edge(api.START, "tools")
        g.add_edge("tools", api.END)
        msg = AIMessage("", tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(calls)])
        out = g.compile().invoke({"messages": [msg], "note": ""})
        return {"note": out["note"], "messages": _shown(out["messages"][1:])}

    out = {
        "ok": run(prebuilt.ToolNode([add, note]), [("add", {"a": 1, "b": 2}), ("note", {"text": "hi"})]),
        "bad_args": run(prebuilt.ToolNode([add]), [("add", {"a": "x"})]),
        "unknown": run(prebuilt.ToolNode([add]), [("nope", {})]),
        "caught": run(prebuilt.ToolNode([boom], handle_tool_errors=True), [("boom", {"x": "1"})]),
        "text": run(prebuilt.ToolNode([boom], handle_tool_errors="sorry"), [("boom", {"x": "1"})]),
    }
    try:
        run(prebuilt.ToolNode([boom]), [("boom", {"x": "1"})])
    except ValueError as exc:
        out["raised"] = str(exc)
    out["condition"] = [prebuilt.tools_condition({"messages": [AIMessage("", tool_calls=[
        {"name": "add", "args": {}, "id": "1"}])]}), prebuilt.tools_condition([AIMessage("done")])]
    return out


class _Scripted(BaseChatModel):
    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "_Scripted":
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        if isinstance(messages[-1], HumanMessage):
            msg = AIMessage("", tool_calls=[{"name": "add", "args": {"a": 6, "b": 7}, "id": "c1"},
                                            {"name": "add", "args": {"a": 1, "b": 2}, "id": "c2"}])
        else:
            msg = AIMessage(f"{messages[0].type}: " + ", ".join(m.content for m in messages if m.type == "tool"))
        return ChatResult(generations=[ChatGeneration(message=msg)])


def case_react_agent(api, tmp):
    prebuilt, _ = _prebuilt(api)
    out = {}
    for version in ("v1", "v2"):
        agent = prebuilt.create_react_agent(_Scripted(), [add], prompt="brief", checkpointer=api.InMemorySaver(),
                                            version=version)
        result = agent.invoke({"messages": [("user", "sum?")]}, thread())
        short = agent.invoke({"messages": [("user", "sum?")]}, thread("s", recursion_limit=2))
        paused = prebuilt.create_react_agent(_Scripted(), [add], checkpointer=api.InMemorySaver(),
                                             interrupt_before=["tools"], version=version)
        paused.invoke({"messages": [("user", "sum?")]}, thread("p"))
        out[version] = {"messages": _shown(result["messages"]), "history": history(agent, thread()),
                        "short": _shown(short["messages"][-1:]), "paused_next": list(paused.get_state(thread("p")).next),
                        "resumed": _shown(paused.invoke(None, thread("p"))["messages"][-1:])}
    return out
