"""The graph the kill harness runs: parallel branches, Sends, a join and an interrupt.

One round is five supersteps:

    plan ──► left ──► left2 ──┐           ┌─► review (interrupt) ──► advance ──► plan ...
      │ ──► right ─► right2 ──┴─ join ───┤
      └─► Send("work", item) x ITEMS      └─► audit

`plan` is a one-task superstep; `left`/`right`/`work`x4 run together, `left2`/`right2`
together, and `review`/`audit` together (so `audit`'s saved writes must survive the
interrupt and a kill). Every node appends its identity (node, round, item) to an
append-only side-channel log before doing anything, so the harness can see every
execution, including ones cut short by SIGKILL.
"""
from __future__ import annotations

import operator
import os
import time
from collections.abc import Mapping
from typing import Annotated, Any, TypedDict

from engine import END, START, Send, StateGraph, interrupt

ROUNDS = 3
ITEMS = 4
THREAD_ID = "crash"

LOG_PATH: str | None = None
"""The side-channel log of executions; set by whoever runs the graph (None: no log)."""

NAP_S = 0.002
"""Node work is tiny; a short nap per node widens the windows between task saves."""


class State(TypedDict):
    round: int
    items: list[int]
    results: Annotated[list, operator.add]
    trail: Annotated[list, operator.add]
    approvals: Annotated[list, operator.add]


def identity(name: str, node_input: Mapping[str, Any]) -> str:
    """A task's identity from its node and input: unique within one run of this graph."""
    ident = f"{name}@{node_input['round']}"
    if "item" in node_input:
        ident += f"#{node_input['item']}"
    return ident


def _record(name: str, node_input: Mapping[str, Any]) -> None:
    """Append one line per execution, with a single O_APPEND write (survives SIGKILL)."""
    if LOG_PATH is None:
        return
    fd = os.open(LOG_PATH, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, f"{identity(name, node_input)}\n".encode())
    finally:
        os.close(fd)


def _nap(units: int = 1) -> None:
    time.sleep(NAP_S * units)


def plan(state: State) -> dict[str, Any]:
    _record("plan", state)
    r = state["round"]
    return {"items": [r * 10 + i for i in range(ITEMS)], "trail": [f"plan{r}"]}


def fan_out(state: State) -> list[Send]:
    return [Send("work", {"round": state["round"], "item": item}) for item in state["items"]]


def work(arg: dict[str, int]) -> dict[str, Any]:
    _record("work", arg)
    _nap(1 + arg["item"] % ITEMS)  # unequal durations: the Sends finish one by one
    return {"results": [arg["item"] * arg["item"]]}


def _branch(name: str, units: int):
    def node(state: State) -> dict[str, Any]:
        _record(name, state)
        _nap(units)
        return {"trail": [f"{name}{state['round']}"]}

    node.__name__ = name
    return node


def review(state: State) -> dict[str, Any]:
    _record("review", state)
    answer = interrupt({"round": state["round"], "question": "approve?"})
    _nap()
    return {"approvals": [answer]}


def audit(state: State) -> dict[str, Any]:
    _record("audit", state)
    _nap(2)
    return {"trail": [f"audit{state['round']}:{sum(state['results'])}"]}


def advance(state: State) -> dict[str, Any]:
    _record("advance", state)
    return {"round": state["round"] + 1}


def after_review(state: State) -> str:
    return "advance" if state["round"] + 1 < ROUNDS else END


def answer_for(interrupt_value: Mapping[str, Any]) -> str:
    """What the harness resumes an interrupt with (deterministic, so runs compare)."""
    return f"approved-{interrupt_value['round']}"


def build(checkpointer: Any) -> Any:
    g = StateGraph(State)
    g.add_node("plan", plan)
    g.add_node("work", work)
    for name, units in (("left", 1), ("right", 2), ("left2", 2), ("right2", 1)):
        g.add_node(name, _branch(name, units))
    g.add_node("review", review)
    g.add_node("audit", audit)
    g.add_node("advance", advance)
    g.add_edge(START, "plan")
    g.add_edge("plan", "left")
    g.add_edge("plan", "right")
    g.add_conditional_edges("plan", fan_out)
    g.add_edge("left", "left2")
    g.add_edge("right", "right2")
    g.add_edge(["left2", "right2"], "review")
    g.add_edge(["left2", "right2"], "audit")
    g.add_conditional_edges("review", after_review, ["advance", END])
    g.add_edge("advance", "plan")
    return g.compile(checkpointer=checkpointer)


def initial_input() -> dict[str, Any]:
    return {"round": 0, "results": [], "trail": [], "approvals": []}


def expected_final_state() -> dict[str, Any]:
    """The final state, worked out by hand from the graph (not by running it)."""
    results, trail, approvals = [], [], []
    for r in range(ROUNDS):
        items = [r * 10 + i for i in range(ITEMS)]
        trail += [f"plan{r}", f"left{r}", f"right{r}", f"left2{r}", f"right2{r}"]
        results += [i * i for i in items]
        trail.append(f"audit{r}:{sum(results)}")
        approvals.append(f"approved-{r}")
    return {"round": ROUNDS - 1, "items": [(ROUNDS - 1) * 10 + i for i in range(ITEMS)],
            "results": results, "trail": trail, "approvals": approvals}


def expected_identities() -> set[str]:
    """Every task identity an uninterrupted run executes."""
    names = ("plan", "left", "right", "left2", "right2", "review", "audit")
    out = {f"{n}@{r}" for n in names for r in range(ROUNDS)}
    out |= {f"work@{r}#{r * 10 + i}" for r in range(ROUNDS) for i in range(ITEMS)}
    out |= {f"advance@{r}" for r in range(ROUNDS - 1)}
    return out
