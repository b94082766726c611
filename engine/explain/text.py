"""A Superstep as text: what `retrograph run --explain` prints, superstep by superstep."""
from __future__ import annotations

import reprlib
from typing import Any

from .plan import show_name
from .reasons import Superstep

__all__ = ["format_step", "short"]

class _Repr(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 10_000:  # repr() refuses past 4,300 digits; nobody reads that many
            return f"<int of ~{int(x.bit_length() * 0.30103) + 1:,} digits>"
        return super().repr_int(x, level)


_repr = _Repr()
_repr.maxstring, _repr.maxother, _repr.maxlist, _repr.maxdict, _repr.maxlevel = 200, 80, 6, 6, 3


def short(value: Any, width: int = 90) -> str:
    """A value in one line, cut to `width` characters (never raises)."""
    try:
        text = _repr.repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr raises still gets a line
        text = f"<{type(value).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def format_step(step: Superstep, *, status: str = "") -> str:
    """The superstep in lines: its tasks and why, the writes each made (kept aside), how
    each key's reducer merged them, and the joins still waiting afterwards. `status` says
    why a superstep did not commit ("interrupted", "failed")."""
    nodes = [show_name(t.node) for t in step.tasks]
    n = len(step.tasks)
    together = (f"{n} tasks run together, all reading the same snapshot (the state after step {step.step - 1})"
                if n > 1 else "1 task")
    lines = [f"superstep {step.step}: {together}"]
    width = max((len(x) for x in nodes), default=0)
    for task, name in zip(step.tasks, nodes):
        why = "; ".join(r.text for r in task.reasons) or "planned"
        if task.send_count:
            why = f"Send {task.send_index} of {task.send_count} from {task.reasons[0].source}, input {short(task.arg, 50)}"
        lines.append(f"  runs {name:<{width}}  because {why}")
    for wait in step.waiting:
        lines.append(f"  waiting: {wait.sentence.replace('`', '')}")
    for name in step.deferred:
        lines.append(f"  waiting: {name} is deferred; it runs once nothing else is left")
    for batch in step.sends:
        lines.append(f"  Send ×{batch.count} to {batch.node} (from {', '.join(batch.senders)}): "
                     f"{batch.count} tasks of one node, each with its own input")
    if step.pending:
        lines.append("  writes (kept aside, not applied until the commit):")
        wn = max(len(show_name(w.node)) for w in step.pending)
        wk = max(len(w.key) for w in step.pending)
        for w in step.pending:
            lines.append(f"    {show_name(w.node):<{wn}} → {w.key:<{wk}} = {short(w.value)}")
    elif step.tasks:
        lines.append("  writes: none")
    for conflict in step.conflicts:
        lines.append(f"  {conflict.text}")
    if step.merges:
        lines.append("  commit: each key's reducer merges its writes")
        for m in step.merges:
            counts: dict[str, int] = {}
            for node in m.writers:
                counts[node] = counts.get(node, 0) + 1
            writers = ", ".join(show_name(n) + (f" ×{c}" if c > 1 else "") for n, c in counts.items())
            before = "(unset)" if m.before is None else short(m.before, 40)
            lines.append(f"    {m.key} ← {writers}, by {m.how}")
            lines.append(f"      {before} → {short(m.after, 80)}")
    elif status:
        lines.append(f"  not committed: the run {status} in this superstep")
    return "\n".join(lines)
