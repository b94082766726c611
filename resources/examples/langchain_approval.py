"""A LangGraph app with a human approval before its tools run: `ToolNode` + `interrupt()`.

Teaches: a `StateGraph(MessagesState)` written for LangGraph, with `ToolNode` and
`tools_condition` from `langgraph.prebuilt`, runs unchanged on Retrograph's engine. The
`review` node pauses the run with `interrupt()` showing the tool calls the model wants;
answer "yes" to let `tools` run them, anything else to refuse (the model is told, with a
ToolMessage per call, and answers without them). The checkpointer is `InMemorySaver()`
here; the studio swaps in its own.

The chat model is scripted (no network) and picks its reply from the conversation.
"""

from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, interrupt

ACCOUNTS = {"ada": 120.0, "bob": 15.5}


@tool
def refund(customer: str, amount: float) -> str:
    """Refund an amount to a customer's account."""
    ACCOUNTS[customer.lower()] = ACCOUNTS.get(customer.lower(), 0.0) + amount
    return f"refunded {amount:.2f} to {customer}; balance {ACCOUNTS[customer.lower()]:.2f}"


class ScriptedModel(BaseChatModel):
    """Asks for a refund tool call, then reports what happened to it."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        last = messages[-1]
        if isinstance(last, HumanMessage):
            call = {"name": "refund", "args": {"customer": "Ada", "amount": 30.0}, "id": "call_refund"}
            reply = AIMessage("I will refund Ada 30.00.", tool_calls=[call])
        elif isinstance(last, ToolMessage) and last.status == "error":
            reply = AIMessage(f"The refund was not made: {last.content}")
        else:
            reply = AIMessage(f"Done: {last.content}.")
        return ChatResult(generations=[ChatGeneration(message=reply)])


model = ScriptedModel()


def agent(state: MessagesState) -> dict:
    return {"messages": [model.invoke(state["messages"])]}


def review(state: MessagesState) -> Command[Literal["tools", "agent"]]:
    """Pause for a human: "yes" runs the tools, anything else refuses every call."""
    calls = state["messages"][-1].tool_calls
    answer = interrupt({"question": "Run these tool calls?",
                        "tool_calls": [f"{c['name']}({c['args']})" for c in calls]})
    if answer == "yes":
        return Command(goto="tools")
    refusals = [ToolMessage(f"refused by the reviewer ({answer!r})", tool_call_id=c["id"], name=c["name"],
                            status="error") for c in calls]
    return Command(goto="agent", update={"messages": refusals})


builder = StateGraph(MessagesState)
builder.add_node("agent", agent)
builder.add_node("review", review)
builder.add_node("tools", ToolNode([refund]))
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", tools_condition, {"tools": "review", END: END})
builder.add_edge("tools", "agent")
graph = builder.compile(checkpointer=InMemorySaver())

example_input = {"messages": [{"role": "user", "content": "Ada's parcel arrived damaged; please refund her 30."}]}

if __name__ == "__main__":
    config = {"configurable": {"thread_id": "langchain-approval-demo"}}
    for update in graph.stream(example_input, config, stream_mode="updates"):
        print(update)
    print("-- resuming with 'yes' --")
    for update in graph.stream(Command(resume="yes"), config, stream_mode="updates"):
        print(update)
