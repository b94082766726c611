"""Small graphs the explanation tests share."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from engine import START, StateGraph


class Diamond(TypedDict, total=False):
    n: int
    log: Annotated[list[str], operator.add]


def diamond():
    """START → fast and slow → slow2; join(fast, slow2) → join."""
    b = StateGraph(Diamond)
    for name in ("fast", "slow", "slow2", "join"):
        b.add_node(name, lambda s, name=name: {"log": [name]})
    b.add_edge(START, "fast")
    b.add_edge(START, "slow")
    b.add_edge("slow", "slow2")
    b.add_edge(["fast", "slow2"], "join")
    return b.compile()
