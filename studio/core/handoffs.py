"""Handoffs between agents: a node that returns `Command(graph=Command.PARENT, goto=...)`
(langgraph-swarm's and langgraph-supervisor's handoff tools do) ends its subgraph by
raising ParentCommand, which carries the command up to the graph that runs the subgraph.
That is control flow, not a failure: the studio lists it as a handoff to its target and
never marks the node as failed."""
from __future__ import annotations

from typing import Any

from engine.errors import ParentCommand

__all__ = ["handoff_to", "is_handoff"]


def is_handoff(error: BaseException | None) -> bool:
    """Whether a task's error is a Command for the parent graph (a handoff)."""
    return isinstance(error, ParentCommand)


def _target(goto: Any) -> str:
    if isinstance(goto, str):
        return goto
    node = getattr(goto, "node", None)  # a Send
    if isinstance(node, str):
        return f"{node} (Send)"
    return str(goto)


def handoff_to(error: BaseException | None) -> str | None:
    """"Bob", "a, b", "the parent graph" (a command with no goto): where a handoff goes;
    None when the error is not a handoff."""
    if not isinstance(error, ParentCommand):
        return None
    goto = getattr(error.command, "goto", None)
    targets = list(goto) if isinstance(goto, (list, tuple)) else ([] if goto in (None, ()) else [goto])
    return ", ".join(_target(g) for g in targets) or "the parent graph"
