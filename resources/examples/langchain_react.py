"""A LangGraph app as written for LangGraph: `create_react_agent` with langchain-core tools.

Teaches: opening your own LangGraph app in the studio unchanged. Its `langgraph` imports
run on Retrograph's engine (the studio and `retrograph run` install `engine.compat`), so
`create_react_agent`, the tools and the langchain-core messages are stepped, drawn and
checkpointed like any engine graph. Each tool call of the model becomes its own `tools`
task (LangGraph's version "v2"), so one superstep runs both tools side by side.

The chat model is scripted (no network): it picks its reply from the conversation, so a
run resumed from any checkpoint answers as an uninterrupted one would.
"""

import re
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.prebuilt import create_react_agent

WEATHER = {"paris": "18°C and sunny", "london": "12°C and drizzling", "tokyo": "22°C and clear"}


@tool
def multiply(a: float, b: float) -> float:
    """Multiply two numbers."""
    return a * b


@tool
def weather(city: str) -> str:
    """Today's weather in a city, from a fixed table."""
    return WEATHER.get(city.lower(), f"no weather data for {city}")


class ScriptedModel(BaseChatModel):
    """A chat model that reads the question and calls the tools it needs, then answers."""

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedModel":
        return self

    def _generate(self, messages: list, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        question = next(m.content for m in messages if isinstance(m, HumanMessage))
        results = {m.name: m.content for m in messages if isinstance(m, ToolMessage)}
        if not results:
            calls = []
            product = re.search(r"(\d+(?:\.\d+)?)\s*\*\s*(\d+(?:\.\d+)?)", question)
            if product:
                calls.append({"name": "multiply", "args": {"a": float(product[1]), "b": float(product[2])},
                              "id": "call_multiply"})
            city = re.search(r"weather in ([A-Za-z]+)", question, re.IGNORECASE)
            if city:
                calls.append({"name": "weather", "args": {"city": city[1]}, "id": "call_weather"})
            if calls:
                return _result(AIMessage("", tool_calls=calls))
        parts = [f"{name}: {value}" for name, value in results.items()]
        return _result(AIMessage("; ".join(parts) or "Ask me to multiply or about the weather."))


def _result(message: AIMessage) -> ChatResult:
    return ChatResult(generations=[ChatGeneration(message=message)])


graph = create_react_agent(ScriptedModel(), [multiply, weather], prompt="You are a concise assistant.",
                           checkpointer=InMemorySaver())

example_input = {"messages": [{"role": "user", "content": "What is 6 * 7, and the weather in Paris?"}]}

if __name__ == "__main__":
    config = {"configurable": {"thread_id": "langchain-react-demo"}}
    for update in graph.stream(example_input, config, stream_mode="updates"):
        print(update)
