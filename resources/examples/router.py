"""Routing: a classifier sends each question either to "search" or to "llm".

Teaches: `add_conditional_edges` with a path_map (`{"search": "search", "llm": "llm"}`),
so the drawing shows both labelled branches, and how only the chosen branch runs. The
classifier is a keyword rule: questions about recent events need a search, others do not.
"""

from typing import TypedDict

from engine import END, START, StateGraph

FRESH_WORDS = ("latest", "today", "news", "current", "this week")

SEARCH_INDEX = {
    "graph engines": "Retrograph 0.1 ships a stepper engine and a time-travel debugger.",
    "weather": "Storms are expected along the coast this week.",
}


class RouterState(TypedDict, total=False):
    question: str
    route: str
    sources: list[str]
    answer: str


def classify(state: RouterState) -> dict:
    """Pick the route: questions about fresh events go to search."""
    question = state["question"].lower()
    return {"route": "search" if any(w in question for w in FRESH_WORDS) else "llm"}


def pick_route(state: RouterState) -> str:
    return state["route"]


def search(state: RouterState) -> dict:
    """Look the question up in a small offline "web index"."""
    question = state["question"].lower()
    hits = [text for topic, text in SEARCH_INDEX.items() if topic in question]
    answer = hits[0] if hits else "The search found nothing recent on that."
    return {"sources": [f"index:{topic}" for topic in SEARCH_INDEX if topic in question], "answer": answer}


def llm(state: RouterState) -> dict:
    """Answer from the (scripted) model's own knowledge."""
    return {"answer": f"From what I know: {state['question'].rstrip('?')} is a classic question.",
            "sources": []}


builder = StateGraph(RouterState)
builder.add_node("classify", classify)
builder.add_node("search", search)
builder.add_node("llm", llm)
builder.add_edge(START, "classify")
builder.add_conditional_edges("classify", pick_route, {"search": "search", "llm": "llm"})
builder.add_edge("search", END)
builder.add_edge("llm", END)
graph = builder.compile()

example_input = {"question": "What is the latest news about graph engines?"}

if __name__ == "__main__":
    for update in graph.stream(example_input, stream_mode="updates"):
        print(update)
