"""Lesson 2: reducers and conflicts (the text the studio shows is reducers_conflicts.md).

Two reviewers run in the same superstep and write the same keys. Each key's reducer says
how their writes merge: a list with operator.add, messages with add_messages, a score
with a custom reducer. A plain key keeps one value per superstep: with {"clash": true}
both reviewers write `verdict`, and the commit refuses it.
"""

import operator
from typing import Annotated, TypedDict

from engine import END, START, StateGraph, add_messages


def keep_highest(current: int, new: int) -> int:
    """Keeps the highest score written so far; the order of the writes does not matter."""
    return max(current, new)


class Review(TypedDict, total=False):
    draft: str
    clash: bool
    verdict: str
    comments: Annotated[list[str], operator.add]
    messages: Annotated[list, add_messages]
    score: Annotated[int, keep_highest]


def alice(state: Review) -> dict:
    update = {"comments": ["alice: clear title"], "score": 7,
              "messages": [{"role": "ai", "content": "Alice: looks good", "id": "alice-1"}]}
    if state.get("clash"):
        update["verdict"] = "accept"
    return update


def bob(state: Review) -> dict:
    update = {"comments": ["bob: add an example"], "score": 9,
              "messages": [{"role": "ai", "content": "Bob: needs an example", "id": "bob-1"}]}
    if state.get("clash"):
        update["verdict"] = "revise"
    return update


def editor(state: Review) -> dict:
    """Alone in its superstep: its one write to `verdict` is fine; it also edits Bob's message by id."""
    verdict = "accept" if state["score"] >= 8 else "revise"
    return {"verdict": verdict,
            "messages": [{"role": "ai", "content": "Bob: needs an example (done)", "id": "bob-1"}]}


builder = StateGraph(Review)
builder.add_node("alice", alice)
builder.add_node("bob", bob)
builder.add_node("editor", editor)
builder.add_edge(START, "alice")
builder.add_edge(START, "bob")
builder.add_edge(["alice", "bob"], "editor")
builder.add_edge("editor", END)
graph = builder.compile()

example_input = {"draft": "Reducers in ten minutes", "clash": False, "score": 0}

if __name__ == "__main__":
    print(graph.invoke(example_input)["verdict"])
