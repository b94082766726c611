"""A LangGraph app as users write it: MessagesState, a tool node, an interrupt() approval
before tools run, and a scripted chat model that answers from the conversation (not from a
call counter), so a resumed run in a fresh process answers as an uninterrupted one."""
from __future__ import annotations

from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt


@tool
def weather(city: str) -> str:
    """The weather in a city."""
    return {"Paris": "sunny, 21C", "Oslo": "snow, -3C"}.get(city, "unknown")


TOOLS = {"weather": weather}


class ScriptedChat(BaseChatModel):
    """Asks for the weather tool for the city the user named; then reports the tool's answer."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[Any], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            reply = AIMessage(content=f"The weather: {last.content}.")
        elif isinstance(last, HumanMessage):
            city = last.content.rsplit(" ", 1)[-1].strip("?")
            reply = AIMessage(content="", tool_calls=[{"name": "weather", "args": {"city": city}, "id": f"call-{city}"}])
        else:
            reply = AIMessage(content="Nothing to do.")
        return ChatResult(generations=[ChatGeneration(message=reply)])


model = ScriptedChat()


def agent(state: MessagesState) -> dict[str, Any]:
    return {"messages": [model.invoke(state["messages"])]}


def approve(state: MessagesState) -> dict[str, Any]:
    calls = state["messages"][-1].tool_calls
    answer = interrupt({"question": "run these tools?", "calls": [c["name"] for c in calls]})
    if answer != "yes":
        return {"messages": [AIMessage(content="Cancelled by the reviewer.")]}
    return {}


def tools(state: MessagesState) -> dict[str, Any]:
    out = []
    for call in state["messages"][-1].tool_calls:
        result = TOOLS[call["name"]].invoke(call["args"])
        out.append(ToolMessage(content=str(result), tool_call_id=call["id"], name=call["name"]))
    return {"messages": out}


def wants_tools(state: MessagesState) -> str:
    last = state["messages"][-1]
    return "approve" if getattr(last, "tool_calls", None) else END


def approved(state: MessagesState) -> str:
    last = state["messages"][-1]
    return "tools" if getattr(last, "tool_calls", None) else END


builder = StateGraph(MessagesState)
builder.add_node("agent", agent)
builder.add_node("approve", approve)
builder.add_node("tools", tools)
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", wants_tools, ["approve", END])
builder.add_conditional_edges("approve", approved, ["tools", END])
builder.add_edge("tools", "agent")
graph = builder.compile()

example_input = {"messages": [{"role": "user", "content": "What is the weather in Paris?"}]}
