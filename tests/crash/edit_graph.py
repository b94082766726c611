"""What the edit kill harness does to one thread: runs, `update_state` and forks, in a
fixed order of numbered *ops*, and the rules that say a saved checkpoint is whole.

The graph is a line `a -> b -> c`, each node appending its name to `log` (an append-only
list, so the stores keep it as deltas along the parent chain, across branches). The ops:

- op 0: a run from the input `{"log": ["in"]}`;
- an odd op k: `update_state(head, {"log": ["u<k>"]}, as_node=a or c)` on the newest
  checkpoint; after `as_node="a"` the thread has `b` to run, and the op goes on with a
  run that continues the thread;
- an even op k > 0: a fork: a run from op 0's checkpoint at step `fork_step(k)` (the
  input's, the start's, a's or b's), which copies it (`source="fork"`) and re-runs what
  came after it.

Every checkpoint an op writes carries `metadata["op"] = k`, so a process started after a
kill sees which ops are done from the store alone, and goes on where the last one
stopped: it continues an unfinished run, or starts the next op.
"""
from __future__ import annotations

import operator
from collections.abc import Iterable
from typing import Annotated, Any, TypedDict

from engine import START, StateGraph

__all__ = ["INPUT", "OPS", "THREAD_ID", "build", "defects", "fork_step", "fork_target", "op_config", "op_of",
           "signature", "update_for"]

OPS = 12
THREAD_ID = "edits"
NODES = ("a", "b", "c")
INPUT = {"log": ["in"]}


class State(TypedDict):
    log: Annotated[list, operator.add]


def _node(name: str):
    def node(state: State) -> dict[str, Any]:
        return {"log": [name]}

    node.__name__ = name
    return node


def build(checkpointer: Any) -> Any:
    g = StateGraph(State)
    for name in NODES:
        g.add_node(name, _node(name))
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    return g.compile(checkpointer=checkpointer)


def op_config(op: int, checkpoint_id: str | None = None) -> dict[str, Any]:
    configurable: dict[str, Any] = {"thread_id": THREAD_ID}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable, "metadata": {"op": op}}


def update_for(op: int) -> tuple[dict[str, Any], str]:
    """An odd op's update: the values and the node they are written as."""
    return {"log": [f"u{op}"]}, ("a" if op % 4 == 1 else "c")


def fork_step(op: int) -> int:
    """The step of op 0's checkpoint that an even op forks: -1 (input) to 2 (after b)."""
    return (op // 2) % 4 - 1


def signature(ckpt: Any) -> tuple[Any, ...]:
    """What two histories must share, checkpoint by checkpoint (ids and times aside)."""
    return (ckpt.metadata.get("op"), ckpt.source, ckpt.step, tuple(ckpt.values.get("log", ())),
            tuple(t.name for t in ckpt.tasks))


def _expected_log(ckpt: Any, parent: Any | None) -> list[Any] | None:
    """The log a whole checkpoint holds given its parent's; None when any is allowed."""
    before = list(parent.values.get("log", ())) if parent is not None else []
    if ckpt.source == "input":
        return before
    if ckpt.source == "fork":
        return before
    if ckpt.source == "update":
        return before + [f"u{ckpt.metadata.get('op')}"]
    log = list(ckpt.values.get("log", ()))
    if log[:-1] == before and log[-1:] and log[-1] in ("in", *NODES):
        return log  # a loop step adds one entry: the input's, or the node's that ran
    return before + ["<one of in, a, b, c>"]


def defects(checkpoints: Iterable[Any]) -> list[str]:
    """Why each checkpoint is not whole (one line each): its parent missing or not one step
    before it, its values not what its parent and its source make, its op unmarked, a
    fork's plan not its source's."""
    by_id = {c.id: c for c in checkpoints}
    out = []
    for c in by_id.values():
        parent = by_id.get(c.parent_id) if c.parent_id else None
        where = f"checkpoint {c.id} ({c.source}, step {c.step}, op {c.metadata.get('op')})"
        if not isinstance(c.metadata.get("op"), int):
            out.append(f"{where}: no op in its metadata {dict(c.metadata)}")
        if c.parent_id is not None and parent is None:
            out.append(f"{where}: its parent {c.parent_id} is not in the store")
            continue
        if parent is not None and c.step != parent.step + 1:
            out.append(f"{where}: step {c.step}, its parent's {parent.step}")
        expected = _expected_log(c, parent)
        if expected is not None and list(c.values.get("log", ())) != expected:
            out.append(f"{where}: log {c.values.get('log')}, expected {expected}")
        if c.source == "fork" and parent is not None and [t.name for t in c.tasks] != [t.name for t in parent.tasks]:
            out.append(f"{where}: plans {[t.name for t in c.tasks]}, its source {[t.name for t in parent.tasks]}")
    return out


def op_of(ckpt: Any) -> int:
    op = ckpt.metadata.get("op")
    return op if isinstance(op, int) else -1


def fork_target(checkpoints: Iterable[Any], op: int) -> Any:
    """Op 0's checkpoint (input or loop) at the step `op` forks."""
    step = fork_step(op)
    found = [c for c in checkpoints if op_of(c) == 0 and c.step == step and c.source in ("input", "loop")]
    if len(found) != 1:
        raise RuntimeError(f"op {op}: {len(found)} checkpoints of op 0 at step {step}")
    return found[0]
