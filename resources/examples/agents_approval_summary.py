"""A langchain agent whose refunds wait for a human, and whose conversation is summarized.

Teaches: `langchain.agents.create_agent` with two middleware runs on Retrograph's engine:
- `HumanInTheLoopMiddleware` stops before `issue_refund` runs. Answer the interrupt with
  `{"decisions": [{"type": "approve"}]}`, or edit the call's arguments
  (`{"type": "edit", "edited_action": {"name": "issue_refund", "args": {...}}}`), or
  refuse it with a message for the model (`{"type": "reject", "message": "..."}`).
- `SummarizationMiddleware` replaces the older messages with a summary once the
  conversation reaches four messages, keeping the last two: watch `messages` in the state
  panel shrink before the model's last call.
Each middleware hook is a node of the graph (`HumanInTheLoopMiddleware.after_model`,
`SummarizationMiddleware.before_model`) beside `model` and `tools`.

The chat models are scripted (no network): each picks its reply from the conversation.
Needs `pip install 'retrograph[agents]'`.
"""

from collections.abc import Callable
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware, SummarizationMiddleware
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver


class ScriptedModel(BaseChatModel):
    """A chat model whose reply is `script(messages)`; tools bind to it as given."""

    script: Callable[[list[BaseMessage]], AIMessage]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedModel":
        return self

    def _generate(self, messages: list, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self.script(list(messages)))])


def call(name: str, args: dict, call_id: str) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


ORDERS = {"A-17": {"customer": "Ada", "total": 30.0, "state": "arrived damaged"}}


@tool
def look_up_order(order: str) -> str:
    """Look an order up by its number."""
    found = ORDERS.get(order)
    return f"{order}: {found['customer']}, {found['total']:.2f}, {found['state']}" if found else f"no order {order}"


@tool
def issue_refund(order: str, amount: float) -> str:
    """Refund an amount of an order to its customer."""
    return f"refunded {amount:.2f} for {order}"


def agent_script(messages: list[BaseMessage]) -> AIMessage:
    tools = {m.name: m for m in messages if isinstance(m, ToolMessage)}
    if "issue_refund" in tools:
        return AIMessage(f"Done: {tools['issue_refund'].content}.")
    if not any("A-17:" in str(m.content) for m in messages):
        return call("look_up_order", {"order": "A-17"}, "call_look_up")
    return call("issue_refund", {"order": "A-17", "amount": 30.0}, "call_refund")


def summary_script(messages: list[BaseMessage]) -> AIMessage:
    return AIMessage("Ada's order A-17 (30.00) arrived damaged; a full refund was asked for.")


graph = create_agent(
    ScriptedModel(script=agent_script),
    [look_up_order, issue_refund],
    system_prompt="You handle refunds.",
    middleware=[
        SummarizationMiddleware(ScriptedModel(script=summary_script), trigger=("messages", 4), keep=("messages", 2)),
        HumanInTheLoopMiddleware(interrupt_on={"issue_refund": True}),
    ],
    checkpointer=InMemorySaver(),
)

example_input = {"messages": [{"role": "user", "content": "Order A-17 arrived damaged; please refund it."}]}
example_resume = {"decisions": [{"type": "approve"}]}

if __name__ == "__main__":
    from langgraph.types import Command

    config = {"configurable": {"thread_id": "approval-summary-demo"}}
    for update in graph.stream(example_input, config, stream_mode="updates"):
        print(update)
    print("-- approving the refund --")
    for update in graph.stream(Command(resume=example_resume), config, stream_mode="updates"):
        print(update)
