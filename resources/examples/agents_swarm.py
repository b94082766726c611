"""Two agents that hand the conversation to each other (langgraph-swarm's `create_swarm`).

Teaches: in a swarm each agent holds a handoff tool to the other; calling it returns a
`Command(graph=Command.PARENT, goto=..., update={"active_agent": ...})` from inside the
agent's subgraph, which ends the agent and moves the swarm to the other one. The
`active_agent` stays in the thread's state, so the next turn on the same thread starts
with whichever agent spoke last: here Alice hands the user to Bob, and on the second turn
(`second_input`, the same thread) Bob answers at once and hands a sum back to Alice.

The chat models are scripted (no network): each picks its reply from the conversation.
Needs `pip install 'retrograph[agents]'`.
"""

from collections.abc import Callable
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph_swarm import create_handoff_tool, create_swarm


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


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def last_human(messages: list[BaseMessage]) -> str:
    return next(str(m.content) for m in reversed(messages) if isinstance(m, HumanMessage))


def alice_script(messages: list[BaseMessage]) -> AIMessage:
    last = messages[-1]
    if isinstance(last, ToolMessage) and last.name == "add":
        return AIMessage(f"Alice here: the sum is {last.content}.")
    if "Bob" in last_human(messages):
        return call("transfer_to_bob", {}, "call_to_bob")
    return call("add", {"a": 5, "b": 7}, "call_add")


def bob_script(messages: list[BaseMessage]) -> AIMessage:
    if isinstance(messages[-1], ToolMessage):  # just handed over
        return AIMessage("Ahoy, Bob here! What be yer question?")
    if "+" in last_human(messages):
        return call("transfer_to_alice", {}, "call_to_alice")
    return AIMessage("Arr, I only talk.")


alice = create_agent(ScriptedModel(script=alice_script),
                     [add, create_handoff_tool(agent_name="Bob", description="Transfer to Bob")],
                     system_prompt="You are Alice, an addition expert.", name="Alice")
bob = create_agent(ScriptedModel(script=bob_script),
                   [create_handoff_tool(agent_name="Alice", description="Transfer to Alice, she can do sums")],
                   system_prompt="You are Bob, you speak like a pirate.", name="Bob")
builder = create_swarm([alice, bob], default_active_agent="Alice")
graph = builder.compile(checkpointer=InMemorySaver())

example_input = {"messages": [{"role": "user", "content": "I'd like to speak to Bob"}]}
second_input = {"messages": [{"role": "user", "content": "What is 5 + 7?"}]}

if __name__ == "__main__":
    config = {"configurable": {"thread_id": "swarm-demo"}}
    for turn in (example_input, second_input):
        for update in graph.stream(turn, config, stream_mode="updates"):
            print(update)
