"""Field history ("who changed this?"), Qt-free.

`field_history` walks a branch (oldest first) and lists every checkpoint where the value
at a path (`messages[3].content`, `plan.steps`, `route`) changed, with the node(s) that
wrote it and the value before and after. It reads checkpoints through
`read(checkpoint_id)`, so the studio runs it on its reader thread. History search is
studio/core/search.py.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .conditions import path_root
from .expressions import MISSING_VALUE, Expression, ExpressionError
from .valuediff import same

__all__ = ["FieldChange", "field_history"]


@dataclass(frozen=True, kw_only=True)
class FieldChange:
    checkpoint_id: str
    step: int
    source: str
    nodes: tuple[str, ...]
    """The nodes that wrote the path's key in that superstep (all that ran, when unknown)."""
    before: Any
    after: Any


def _writers(ckpt: Any, root: str) -> tuple[str, ...]:
    """Who wrote `root` in the superstep that made `ckpt`: from its task records when the run
    recorded them, else every node that ran."""
    records = ckpt.metadata.get("record") if isinstance(getattr(ckpt, "metadata", None), Mapping) else None
    if isinstance(records, list):
        named = [r.get("node") for r in records if isinstance(r, Mapping)
                 and any(isinstance(w, (list, tuple)) and w and w[0] == root for w in r.get("writes", ()))]
        if named:
            return tuple(dict.fromkeys(str(n) for n in named))
    if ckpt.source == "update":
        return ("(edit)",)
    return tuple(ckpt.nodes_ran) if ckpt.source != "fork" else ()


def field_history(path: str, branch: Sequence[str], read: Callable[[str], Any]) -> list[FieldChange]:
    """Every change of `path` along `branch` (checkpoint ids, oldest first). ExpressionError
    for a path that is not one, or whose evaluation fails (naming the checkpoint)."""
    expression = Expression.parse(path)
    root = path_root(path)
    if not root.isidentifier():
        raise ExpressionError(f"`{path}` is not a path into the state: write a key, as messages or "
                              "messages[3].content or plan.steps")
    out: list[FieldChange] = []
    previous: Any = MISSING_VALUE
    for cid in branch:
        ckpt = read(cid)
        if ckpt is None:
            continue
        try:
            value = expression.evaluate(ckpt.values)
        except ExpressionError as e:
            raise ExpressionError(f"{e} (at checkpoint {cid}, step {ckpt.step})") from None
        if not same(previous, value):
            out.append(FieldChange(checkpoint_id=cid, step=ckpt.step, source=ckpt.source,
                                   nodes=_writers(ckpt, root), before=previous, after=value))
        previous = value
    return out
