"""Run context and long-term memory: an assistant that remembers each user across threads.

Teaches: `StateGraph(..., context_schema=UserContext)` declares what every run is started
with besides its input (who the user is, the tone to answer in); nodes read it as
`runtime.context` through a `runtime: Runtime[UserContext]` parameter, and it is passed as
`graph.invoke(input, config, context={...})` (`retrograph run --context JSON`). What the
assistant learns goes into the store (`compile(store=...)`, `runtime.store`), which outlives
the thread: the next thread of the same user starts from it. `ask` pauses at `interrupt()`
for the fact to remember; resuming (also in a new process: `retrograph run --resume`) runs
with the same context, which the thread keeps.
"""

from dataclasses import dataclass
from typing import Literal, TypedDict

from engine import END, START, InMemorySaver, InMemoryStore, Runtime, StateGraph, interrupt


@dataclass
class UserContext:
    user_id: str
    tone: Literal["friendly", "formal"] = "friendly"


class MemoryState(TypedDict, total=False):
    question: str
    memories: list[str]
    fact: str
    answer: str


def recall(state: MemoryState, runtime: Runtime[UserContext]) -> dict:
    """What the store holds about this user (empty for a new one)."""
    items = runtime.store.search(("memories", runtime.context.user_id)) if runtime.store else []
    return {"memories": sorted(item.value["fact"] for item in items)}


def ask(state: MemoryState, runtime: Runtime[UserContext]) -> dict:
    """Ask for one new fact about the user; the resume value is the fact (a string)."""
    fact = interrupt({"question": f"What should I remember about {runtime.context.user_id}?"})
    return {"fact": str(fact).strip()}


def has_fact(state: MemoryState) -> Literal["remember", "reply"]:
    return "remember" if state.get("fact") else "reply"


def remember(state: MemoryState, runtime: Runtime[UserContext]) -> dict:
    """Keep the fact in the store, under the user's namespace."""
    if runtime.store is not None:
        key = f"fact-{len(state.get('memories', [])) + 1}"
        runtime.store.put(("memories", runtime.context.user_id), key, {"fact": state["fact"]})
    return {"memories": sorted([*state.get("memories", []), state["fact"]])}


def reply(state: MemoryState, runtime: Runtime[UserContext]) -> dict:
    ctx = runtime.context
    known = "; ".join(state.get("memories", [])) or "nothing yet"
    opener = f"Hi {ctx.user_id}!" if ctx.tone == "friendly" else f"Good day, {ctx.user_id}."
    return {"answer": f"{opener} About you I know: {known}. You asked: {state['question']}"}


builder = StateGraph(MemoryState, context_schema=UserContext)
builder.add_node("recall", recall)
builder.add_node("ask", ask)
builder.add_node("remember", remember)
builder.add_node("reply", reply)
builder.add_edge(START, "recall")
builder.add_edge("recall", "ask")
builder.add_conditional_edges("ask", has_fact)
builder.add_edge("remember", "reply")
builder.add_edge("reply", END)
store = InMemoryStore()
graph = builder.compile(checkpointer=InMemorySaver(), store=store)

example_input = {"question": "what do you know about me?"}
example_context = {"user_id": "ada", "tone": "friendly"}

if __name__ == "__main__":
    from engine import Command

    config = {"configurable": {"thread_id": "memory-demo"}}
    for update in graph.stream(example_input, config, context=example_context, stream_mode="updates"):
        print(update)
    print("-- resuming with a fact to remember --")
    for update in graph.stream(Command(resume="likes tea"), config, context=example_context, stream_mode="updates"):
        print(update)
