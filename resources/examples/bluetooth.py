"""The Bluetooth state machine: off -> scanning -> pairing -> connected.

Teaches: a graph as a state machine. Each node is a state of the radio; the edges are
its transitions, and a failed pairing goes back to scanning (a cycle through a router
with a `Literal` hint). Deterministic: the first `failures` pairing attempts fail
(one by default), so the default run visits scanning and pairing twice.
"""

import operator
from typing import Annotated, Literal, TypedDict

from engine import END, START, StateGraph


class RadioState(TypedDict, total=False):
    device: str
    failures: int
    status: str
    attempts: int
    found: list[str]
    log: Annotated[list[str], operator.add]


def off(state: RadioState) -> dict:
    """The radio starts powered off; switching it on starts a scan."""
    return {"status": "off", "attempts": 0, "log": ["radio off: powering on"]}


def scanning(state: RadioState) -> dict:
    """Scan for devices in range; the wanted one is always in range here."""
    found = sorted({state["device"], "Kitchen Speaker", "Phone"})
    return {"status": "scanning", "found": found, "log": [f"scanning: found {', '.join(found)}"]}


def pairing(state: RadioState) -> dict:
    """Try to pair; the first `failures` attempts fail."""
    attempt = state.get("attempts", 0) + 1
    ok = attempt > state.get("failures", 1)
    status = "paired" if ok else "pairing_failed"
    return {"status": status, "attempts": attempt,
            "log": [f"pairing with {state['device']}: attempt {attempt} {'succeeded' if ok else 'failed'}"]}


def paired_or_retry(state: RadioState) -> Literal["connected", "scanning"]:
    """A failed pairing goes back to scanning; a good one connects."""
    return "connected" if state["status"] == "paired" else "scanning"


def connected(state: RadioState) -> dict:
    return {"status": "connected", "log": [f"connected to {state['device']}"]}


builder = StateGraph(RadioState)
builder.add_node("off", off)
builder.add_node("scanning", scanning)
builder.add_node("pairing", pairing)
builder.add_node("connected", connected)
builder.add_edge(START, "off")
builder.add_edge("off", "scanning")
builder.add_edge("scanning", "pairing")
builder.add_conditional_edges("pairing", paired_or_retry)
builder.add_edge("connected", END)
graph = builder.compile()

example_input = {"device": "Headphones", "failures": 1}

if __name__ == "__main__":
    for update in graph.stream(example_input, stream_mode="updates"):
        print(update)
