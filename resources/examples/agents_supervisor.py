"""A supervisor with two experts (langgraph-supervisor's `create_supervisor`).

Teaches: a multi-agent app built with `langgraph-supervisor` runs on Retrograph's
engine. The supervisor is a tool-calling agent whose tools are handoffs: it calls
`transfer_to_math_expert`, the math expert (its own agent, a subgraph) multiplies and
answers, control comes back to the supervisor with a "Transferring back" pair of
messages, it hands off to the research expert, and finally answers the user itself.
Step into the expert nodes to watch each agent's own loop; `output_mode="full_history"`
keeps every message the experts wrote in the supervisor's conversation.

The chat models are scripted (no network): each picks its reply from the conversation.
Needs `pip install 'retrograph[agents]'`.
"""

from collections.abc import Callable
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph_supervisor import create_supervisor


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
def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b


@tool
def look_up(topic: str) -> str:
    """Look a topic up in the encyclopedia."""
    return {"france": "France's capital is Paris."}.get(topic.lower(), "nothing found")


def math_script(messages: list[BaseMessage]) -> AIMessage:
    if isinstance(messages[-1], ToolMessage) and messages[-1].name == "multiply":
        return AIMessage(f"6 times 7 is {messages[-1].content}.")
    return call("multiply", {"a": 6, "b": 7}, "call_multiply")


def research_script(messages: list[BaseMessage]) -> AIMessage:
    if isinstance(messages[-1], ToolMessage) and messages[-1].name == "look_up":
        return AIMessage(messages[-1].content)
    return call("look_up", {"topic": "France"}, "call_look_up")


def supervisor_script(messages: list[BaseMessage]) -> AIMessage:
    said = " ".join(str(m.content) for m in messages if isinstance(m, AIMessage))
    if "6 times 7" not in said:
        return call("transfer_to_math_expert", {}, "call_to_math")
    if "Paris" not in said:
        return call("transfer_to_research_expert", {}, "call_to_research")
    return AIMessage("6 times 7 is 42.0, and the capital of France is Paris.")


math_expert = create_agent(ScriptedModel(script=math_script), [multiply], name="math_expert",
                           system_prompt="You are a math expert.")
research_expert = create_agent(ScriptedModel(script=research_script), [look_up], name="research_expert",
                               system_prompt="You are a research expert.")
builder = create_supervisor([math_expert, research_expert], model=ScriptedModel(script=supervisor_script),
                            prompt="You manage a math expert and a research expert.",
                            output_mode="full_history")
graph = builder.compile(checkpointer=InMemorySaver())

example_input = {"messages": [{"role": "user", "content": "What is 6 times 7, and what is the capital of France?"}]}

if __name__ == "__main__":
    config = {"configurable": {"thread_id": "supervisor-demo"}}
    for update in graph.stream(example_input, config, stream_mode="updates"):
        print(update)
