"""Why each task of a superstep runs, which joins still wait, and why a node does not run.

Read from what the engine itself decided: a planned task's `trigger` ("edge:a",
"branch:a", "join:a+b", "send:a", "command:a", "input", "update"; several joined by
commas) and a checkpoint's `barriers` (join name -> the sources that arrived). The
graph's structure (path maps, waiting edges) only adds names and labels; without the
graph's code (a database opened post-mortem) the explanation still reads the triggers.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..constants import END, START
from ..specs import literal_targets
from .reasons import JoinWait, Reason, SendBatch, Superstep, TaskReason

__all__ = ["parse_trigger", "explain_tasks", "explain_waiting", "explain_plan", "why_not", "show_name"]

DEFER = "defer:"
JOIN = "join:"


def show_name(node: str) -> str:
    return {START: "START", END: "END"}.get(node, node)


def _branch_labels(graph: Any, source: str, target: str) -> str:
    """The router answers (path_map keys) of `source` that lead to `target`."""
    builder = getattr(graph, "builder", None)
    branches = getattr(builder, "branches", {}).get(source, {}) if builder is not None else {}
    labels: list[str] = []
    for branch in branches.values():
        path_map = getattr(branch, "path_map", None) or {}
        labels.extend(str(k) for k, v in path_map.items() if v == target and str(k) != target)
    return ", ".join(dict.fromkeys(labels))


def parse_trigger(trigger: str, node: str, graph: Any = None) -> tuple[Reason, ...]:
    """The reasons in a planned task's trigger text, each with a short phrase."""
    reasons: list[Reason] = []
    for part in (p for p in trigger.split(",") if p):
        kind, _, rest = part.partition(":")
        if kind == "edge":
            reasons.append(Reason(kind="edge", source=rest, text=f"edge {show_name(rest)} → {node}"))
        elif kind == "branch":
            label = _branch_labels(graph, rest, node)
            said = f" (answered {label!r})" if label else ""
            reasons.append(Reason(kind="branch", source=rest, label=label,
                                  text=f"{show_name(rest)}'s router chose {node}{said}"))
        elif kind == "command":
            who = "the run's input" if rest == START else rest
            reasons.append(Reason(kind="command", source=rest, text=f"{who} returned Command(goto={node!r})"))
        elif kind == "join":
            sources = tuple(s for s in rest.split("+") if s)
            reasons.append(Reason(kind="join", sources=sources,
                                  text=f"join: all of {', '.join(sources)} finished"))
        elif kind == "send":
            reasons.append(Reason(kind="send", source=rest, text=f"{show_name(rest)} sent Send({node!r}, ...)"))
        elif kind == "input":
            reasons.append(Reason(kind="input", text="the run's input"))
        elif kind == "update":
            reasons.append(Reason(kind="update", text=f"update_state(as_node={node!r})"))
        else:
            reasons.append(Reason(kind="other", text=part))
    return tuple(reasons)


def explain_tasks(tasks: Sequence[Any], graph: Any = None) -> tuple[TaskReason, ...]:
    """A TaskReason for each planned task (engine PlannedTask records), in plan order."""
    totals: dict[str, int] = {}
    for t in tasks:
        if t.is_send and t.trigger != "input":
            totals[t.name] = totals.get(t.name, 0) + 1
    seen: dict[str, int] = {}
    together = [t.name for t in tasks]
    out: list[TaskReason] = []
    for t in tasks:
        reasons = parse_trigger(t.trigger, t.name, graph)
        index = count = 0
        if t.name in totals and t.is_send and t.trigger != "input":
            seen[t.name] = index = seen.get(t.name, 0) + 1
            count = totals[t.name]
        out.append(TaskReason(task_id=t.id, node=t.name, reasons=reasons, send_index=index, send_count=count,
                              arg=t.arg if t.is_send else None,
                              sentence=_sentence(t.name, reasons, index, count, together)))
    return tuple(out)


def _sentence(node: str, reasons: Sequence[Reason], index: int, count: int, together: Sequence[str]) -> str:
    if any(r.kind == "input" for r in reasons):
        return f"`{show_name(node)}` runs first: it writes the run's input into the state."
    if index:
        sender = next((r.source for r in reasons if r.kind == "send"), "")
        why = f"it is Send {index} of {count} from `{sender}`, with its own input instead of the state"
    else:
        why = " and ".join(r.text for r in reasons) or "it was planned"
    others = sorted(set(together) - {node})
    with_ = f"; it runs in the same superstep as {', '.join(others)}, on the same snapshot" if others else ""
    return f"`{node}` runs next because {why}{with_}."


def explain_waiting(barriers: Mapping[str, Sequence[str]], graph: Any = None) -> tuple[JoinWait, ...]:
    """The joins that have some, not all, of their sources (from a checkpoint's barriers)."""
    joins = getattr(graph, "joins", None) or {}
    out: list[JoinWait] = []
    for name, arrived in barriers.items():
        if not name.startswith(JOIN):
            continue
        if name in joins:
            sources, target = joins[name]
        else:  # "join:a+b:target" read back without the graph's code
            body, _, target = name[len(JOIN):].rpartition(":")
            sources = tuple(body.split("+"))
        arrived = tuple(arrived)
        missing = tuple(s for s in sources if s not in arrived)
        if not missing:  # complete: its target is planned (the join is used up when it runs)
            continue
        out.append(JoinWait(target=target, sources=tuple(sources), arrived=arrived, missing=missing, sentence=(
            f"`{target}` waits for {', '.join(missing)}: {len(arrived)} of {len(sources)} sources finished "
            f"({', '.join(arrived)}); it runs in the superstep after the last one finishes.")))
    return tuple(out)


def explain_plan(*, step: int, snapshot_id: str, tasks: Sequence[Any],
                 barriers: Mapping[str, Sequence[str]] | None = None, graph: Any = None) -> Superstep:
    """A superstep before it runs: its tasks and why, the joins waiting, the Sends."""
    barriers = barriers or {}
    reasons = explain_tasks(tasks, graph)
    sends: dict[str, list[str]] = {}
    for r in reasons:
        if r.send_count:
            sends.setdefault(r.node, []).extend(x.source for x in r.reasons if x.kind == "send")
    return Superstep(
        step=step, snapshot_id=snapshot_id, tasks=reasons, waiting=explain_waiting(barriers, graph),
        deferred=tuple(k[len(DEFER):] for k in barriers if k.startswith(DEFER)),
        sends=tuple(SendBatch(node=n, count=len(s), senders=tuple(dict.fromkeys(s))) for n, s in sends.items()),
    )


def _incoming(graph: Any, node: str) -> list[str]:
    """What could trigger `node`, from the graph's structure, in words."""
    builder = getattr(graph, "builder", None)
    if builder is None:
        return []
    ways = [f"the edge from {show_name(src)}" for src, dst in getattr(builder, "edges", ()) if dst == node]
    for source, branches in getattr(builder, "branches", {}).items():
        for branch in branches.values():
            targets = set((branch.path_map or {}).values()) if branch.path_map else set(
                literal_targets(branch.router) or ())
            if node in targets or not targets:
                ways.append(f"{show_name(source)}'s router")
    for sources, target in getattr(builder, "waiting_edges", ()):
        if target == node:
            ways.append(f"the join of {', '.join(sources)}")
    return list(dict.fromkeys(ways))


def why_not(node: str, step: Superstep | None, graph: Any = None) -> str:
    """One sentence: why `node` runs next, or why not yet."""
    if step is not None:
        task = step.task_for(node)
        if task is not None and task.send_count > 1:
            senders = ", ".join(dict.fromkeys(r.source for t in step.tasks if t.node == node
                                              for r in t.reasons if r.kind == "send"))
            return (f"`{node}` runs next as {task.send_count} tasks: {senders} sent Send({node!r}, ...) "
                    f"×{task.send_count}, and each task gets its own input instead of the state; they run "
                    "in the same superstep.")
        if task is not None:
            return task.sentence
        for wait in step.waiting:
            if wait.target == node:
                return wait.sentence
        if node in step.deferred:
            return f"`{node}` is deferred (defer=True): it was triggered and runs once nothing else is left to run."
    if node == START:
        return "START is where the input enters: a new run writes its input from here."
    if node == END:
        return "END: a route to END ends that branch; the run finishes when no task is left."
    if step is None or not step.tasks:
        return f"`{node}` does not run: the run has no next superstep (it finished, or has not started)."
    ways = _incoming(graph, node)
    how = f" It runs after {' or '.join(ways)}." if ways else ""
    ran = ", ".join(step.nodes())
    return f"`{node}` does not run next: nothing that finished in the last superstep triggered it (next: {ran}).{how}"
