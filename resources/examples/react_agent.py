"""A ReAct agent: a chat model and its tools in a loop until the model answers.

Teaches: `MessagesState`, an `AIMessage` carrying `tool_calls`, a tools node answering
each call with a `ToolMessage`, and a router (`-> Literal[...]` hint, so it is drawn
with both targets) that loops back to the tools while the model keeps asking for them.

The chat model is scripted: it reads the question, works out which tools it needs
(a calculator for arithmetic, a weather table for "weather in <city>") and calls them one
per turn, then answers from the tool results. Same question, same run, no network.
"""

import ast
import operator
import re
from typing import Literal

from engine import END, START, AIMessage, MessagesState, StateGraph, ToolMessage

WEATHER = {"paris": "18°C and sunny", "london": "12°C and drizzling", "tokyo": "22°C and clear"}

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.Pow: operator.pow, ast.USub: operator.neg}


def calculator(expression: str) -> str:
    """Evaluate + - * / ** on numbers (no names, no calls: safe to run on model output)."""

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.operand))
        raise ValueError(f"calculator cannot evaluate {ast.unparse(node)!r}")

    value = ev(ast.parse(expression, mode="eval").body)
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def weather(city: str) -> str:
    """Today's weather from a fixed table."""
    return WEATHER.get(city.lower(), f"no weather data for {city}")


TOOLS = {"calculator": calculator, "weather": weather}


def _needed_calls(question: str) -> list[dict]:
    calls = []
    math = re.search(r"\d[\d\s.+\-*/()]*[\d)]", question)
    if math and re.search(r"[+\-*/]", math.group()):
        calls.append({"name": "calculator", "args": {"expression": math.group().strip()}})
    city = re.search(r"weather in ([A-Za-z]+)", question, re.IGNORECASE)
    if city:
        calls.append({"name": "weather", "args": {"city": city.group(1)}})
    return calls


def agent(state: MessagesState) -> dict:
    """The scripted chat model: call the next tool it still needs, or answer."""
    messages = state["messages"]
    question = next(m.text for m in messages if m.type == "human")
    results = {m.name: m.text for m in messages if m.type == "tool"}
    for i, call in enumerate(_needed_calls(question)):
        if call["name"] not in results:
            turn = sum(1 for m in messages if m.type == "ai")
            tool_call = {**call, "id": f"call_{turn}_{i}", "type": "tool_call"}
            return {"messages": [AIMessage("", tool_calls=[tool_call])]}
    if not results:
        return {"messages": [AIMessage("I can do arithmetic and look up the weather; ask me about those.")]}
    parts = []
    if "calculator" in results:
        parts.append(f"the result is {results['calculator']}")
    if "weather" in results:
        parts.append(f"the weather is {results['weather']}")
    answer = " and ".join(parts)
    return {"messages": [AIMessage(answer[0].upper() + answer[1:] + ".")]}


def tools(state: MessagesState) -> dict:
    """Run every tool call of the last AI message and answer each with a ToolMessage."""
    last = state["messages"][-1]
    replies = []
    for call in last.tool_calls:
        output = TOOLS[call["name"]](**call["args"])
        replies.append(ToolMessage(output, tool_call_id=call["id"], name=call["name"]))
    return {"messages": replies}


def should_continue(state: MessagesState) -> Literal["tools", "__end__"]:
    """Loop to the tools while the model asks for them; otherwise finish."""
    last = state["messages"][-1]
    return "tools" if getattr(last, "tool_calls", None) else END


builder = StateGraph(MessagesState)
builder.add_node("agent", agent)
builder.add_node("tools", tools)
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", should_continue)
builder.add_edge("tools", "agent")
graph = builder.compile()

example_input = {"messages": [{"role": "user", "content": "What is 6 * 7, and what is the weather in Paris?"}]}

if __name__ == "__main__":
    for update in graph.stream(example_input, stream_mode="updates"):
        print(update)
