"""Lesson 3: interrupts and time travel (the text the studio shows is interrupts_time_travel.md).

A draft is written, then `review` calls interrupt() and the run pauses until a person
answers. The answer routes to `publish` or back to `revise`. Rewinding to before the
answer and answering again makes a second branch; both stay in the history.
"""

import operator
from typing import Annotated, Literal, TypedDict

from engine import END, START, StateGraph, interrupt


class Post(TypedDict, total=False):
    topic: str
    draft: str
    approved: bool
    revisions: int
    history: Annotated[list[str], operator.add]


def write(state: Post) -> dict:
    n = state.get("revisions", 0)
    return {"draft": f"{state['topic']}: version {n + 1}", "history": [f"wrote version {n + 1}"]}


def review(state: Post) -> dict:
    """Pauses the run: the studio's Interrupts panel shows the question and takes the answer."""
    answer = interrupt({"question": "Publish this draft?", "draft": state["draft"]})
    ok = answer is True or str(answer).lower() in ("yes", "true", "publish")
    return {"approved": ok, "history": [f"review said {answer!r}"]}


def route(state: Post) -> Literal["publish", "revise"]:
    return "publish" if state["approved"] else "revise"


def revise(state: Post) -> dict:
    return {"revisions": state.get("revisions", 0) + 1, "history": ["revise"]}


def publish(state: Post) -> dict:
    return {"history": [f"published {state['draft']!r}"]}


builder = StateGraph(Post)
builder.add_node("write", write)
builder.add_node("review", review)
builder.add_node("revise", revise)
builder.add_node("publish", publish)
builder.add_edge(START, "write")
builder.add_edge("write", "review")
builder.add_conditional_edges("review", route, {"publish": "publish", "revise": "revise"})
builder.add_edge("revise", "write")
builder.add_edge("publish", END)
graph = builder.compile()

example_input = {"topic": "Time travel", "revisions": 0}
