"""A loop that iterates until done: Newton's method for a square root.

Teaches: a cycle (`refine` routes back to itself) with a router that decides when to stop,
a counter in the state, and why `recursion_limit` exists (a loop that never converges
would hit it). Each step halves the error, so the loop ends after a few supersteps.
"""

from typing import Literal, TypedDict

from engine import END, START, StateGraph

TOLERANCE = 1e-9


class LoopState(TypedDict, total=False):
    number: float
    guess: float
    iterations: int
    history: list[float]


def start(state: LoopState) -> dict:
    """First guess: the number itself (any positive guess converges)."""
    if state["number"] < 0:
        raise ValueError(f"cannot take the square root of {state['number']}: give a number >= 0")
    guess = max(state["number"], 1.0)
    return {"guess": guess, "iterations": 0, "history": [guess]}


def refine(state: LoopState) -> dict:
    """One Newton step: guess <- (guess + number / guess) / 2."""
    guess = (state["guess"] + state["number"] / state["guess"]) / 2
    return {"guess": guess, "iterations": state["iterations"] + 1, "history": [*state["history"], guess]}


def done(state: LoopState) -> Literal["refine", "__end__"]:
    """Stop once guess² is within TOLERANCE of the number."""
    return END if abs(state["guess"] ** 2 - state["number"]) <= TOLERANCE else "refine"


builder = StateGraph(LoopState)
builder.add_node("start", start)
builder.add_node("refine", refine)
builder.add_edge(START, "start")
builder.add_conditional_edges("start", done)
builder.add_conditional_edges("refine", done)
graph = builder.compile()

example_input = {"number": 2.0}

if __name__ == "__main__":
    for update in graph.stream(example_input, stream_mode="updates"):
        print(update)
