"""The "why" of a run as the studio's panels show it (Qt-free).

Built from `engine.explain`'s Superstep (the Run's own events, or a checkpoint read back)
into one plain record, `WhyMarks` (studio/core/records.py): the triggers to draw on the graph, the badges (a join
waiting, `Send ×3`, a Command goto), a sentence per node for its tooltip (why it runs
next, or why not yet), the pending writes with their reducers, the conflicts, and the
reducers' one-line explanations for the diff panel.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.explain import Superstep, reducer_line, why_not
from engine.explain.plan import show_name
from engine.explain.reducers import key_reducer

from .records import NOTHING_NEXT, MergeRow, PendingRow, WhyMarks

__all__ = ["why_marks", "reducer_notes", "reducer_note", "pending_groups"]


_NAMED = 8  # task names a summary lists before "and N more"


def _summary(step: int | None, together: tuple[str, ...]) -> str:
    if step is None or not together:
        return NOTHING_NEXT
    distinct = [show_name(n) for n in dict.fromkeys(together)]
    names = ", ".join(distinct[:_NAMED])  # a 300-wide superstep's caption covered the whole graph
    if len(distinct) > _NAMED:
        names += f" and {len(distinct) - _NAMED} more"
    n = len(together)
    head = f"{n} task{'s' if n != 1 else ''} ({names})"
    if n > 1:
        head += f" run together, all reading the same snapshot: the state after step {step - 1}"
    else:
        head += f" runs on the state after step {step - 1}"
    return head


def reducer_note(reducer: str) -> str:
    """A reducer's line from its display name alone (no code: a database opened post-mortem)."""
    return reducer_line(reducer)


def reducer_notes(graph: Any) -> dict[str, str]:
    """Every state key of a compiled graph -> its reducer's line (a custom one's docstring)."""
    channels = getattr(getattr(graph, "schema", None), "channels", None) or {}
    out = {}
    for key in channels:
        name, fn = key_reducer(graph, key)
        out[key] = reducer_line(name, fn)
    return out


def _badges(step: Superstep) -> dict[str, tuple[str, ...]]:
    badges: dict[str, list[str]] = {}
    for batch in step.sends:
        badges.setdefault(batch.node, []).append(f"Send ×{batch.count}")
    for task in step.tasks:
        if any(r.kind == "command" for r in task.reasons):
            badges.setdefault(task.node, []).append("goto")
    for wait in step.waiting:
        badges.setdefault(wait.target, []).append(
            f"waits for {', '.join(wait.missing)} ({len(wait.arrived)}/{len(wait.sources)})")
    for name in step.deferred:
        badges.setdefault(name, []).append("deferred")
    for conflict in step.conflicts:
        if conflict.text.startswith("conflict"):
            for node in conflict.nodes:
                badges.setdefault(node, []).append(f"✗ conflict: {conflict.key}")
    return {k: tuple(dict.fromkeys(v)) for k, v in badges.items()}


def _triggers(step: Superstep) -> tuple[tuple[str, str, str], ...]:
    out: list[tuple[str, str, str]] = []
    for task in step.tasks:
        for r in task.reasons:
            if r.kind in ("edge", "branch", "command", "send") and r.source:
                label = r.label if r.kind == "branch" else ("goto" if r.kind == "command" else "")
                if r.kind == "send":
                    label = f"Send ×{task.send_count}" if task.send_count > 1 else "Send"
                out.append((r.source, task.node, label))
            elif r.kind == "join":
                out.extend((s, task.node, "join") for s in r.sources)
    return tuple(dict.fromkeys(out))


def why_marks(step: Superstep | None, graph: Any, nodes: Iterable[str], *,
             last: Superstep | None = None, viewing: bool = False,
             notes: Mapping[str, str] | None = None) -> WhyMarks:
    """The WhyMarks of `step` (None: nothing runs next), with a hover sentence for each of
    `nodes` (the graph's drawn nodes), and `last` (the superstep that just committed)
    for the merges."""
    hover = {n: why_not(n, step, graph) for n in nodes}
    merged = tuple(MergeRow(key=m.key, writers=m.writers, how=m.how, before=m.before, after=m.after)
                   for m in (last.merges if last is not None else ()))
    notes = dict(notes) if notes is not None else reducer_notes(graph)
    common: dict[str, Any] = dict(hover=hover, merged=merged, merged_step=last.step if last is not None else None,
                                  reducers=notes, viewing=viewing)
    if step is None:
        return WhyMarks(**common)
    finished_ids = set(step.finished)
    together = tuple(t.node for t in step.tasks)
    return WhyMarks(
        step=step.step, snapshot_step=step.step - 1, together=together, summary=_summary(step.step, together),
        triggers=_triggers(step), badges=_badges(step),
        waiting={w.target: w.sentence for w in step.waiting},
        finished=frozenset(t.node for t in step.tasks if t.task_id in finished_ids),
        pending=tuple(PendingRow(node=w.node, key=w.key, value=w.value, reducer=w.reducer, how=w.how)
                      for w in step.pending),
        conflicts=tuple(c.text for c in step.conflicts), **common,
    )


def pending_groups(rows: Sequence[PendingRow]) -> dict[str, list[PendingRow]]:
    """Pending rows by key (what the commit will merge together)."""
    out: dict[str, list[PendingRow]] = {}
    for row in rows:
        out.setdefault(row.key, []).append(row)
    return out
