"""Field history ("who changed this?") and history search, Qt-free.

`field_history` walks a branch (oldest first) and lists every checkpoint where the value
at a path (`messages[3].content`, `plan.steps`, `route`) changed, with the node(s) that
wrote it and the value before and after. `search_history` finds the checkpoints of every
branch whose state contains a text or makes an expression true. Both read checkpoints
through `read(checkpoint_id)`, so the studio runs them on its reader thread.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .conditions import path_root
from .expressions import MISSING_VALUE, Expression, ExpressionError

__all__ = ["FieldChange", "field_history", "SearchHit", "search_history", "MAX_SCANNED"]

MAX_SCANNED = 20_000
"""At most this many checkpoints are read by one search (the rest are named as not searched)."""


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


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return a is b


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
        if not _same(previous, value):
            out.append(FieldChange(checkpoint_id=cid, step=ckpt.step, source=ckpt.source,
                                   nodes=_writers(ckpt, root), before=previous, after=value))
        previous = value
    return out


@dataclass(frozen=True, kw_only=True)
class SearchHit:
    checkpoint_id: str
    step: int
    source: str
    nodes: tuple[str, ...]
    excerpt: str


def _text_of(values: Mapping[str, Any]) -> str:
    from studio.cli.history import jsonable

    return json.dumps(jsonable(dict(values)), ensure_ascii=False, sort_keys=True)


def _excerpt(text: str, at: int, width: int = 70) -> str:
    start = max(at - width // 2, 0)
    piece = text[start:start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


def search_history(query: str, ids: Iterable[str], read: Callable[[str], Any], *,
                   mode: str = "text") -> tuple[list[SearchHit], int]:
    """(hits oldest first, how many checkpoints were left unsearched past MAX_SCANNED).
    `mode` "text" (case-insensitive, in the state as JSON) or "expression"."""
    if mode not in ("text", "expression"):
        raise ValueError(f"unknown search mode {mode!r}: use 'text' or 'expression'")
    if not query or not query.strip():
        raise ValueError("the search is empty: type a text, or an expression such as len(messages) > 4")
    expression = Expression.parse(query) if mode == "expression" else None
    needle = query.strip().lower()
    hits: list[SearchHit] = []
    scanned = skipped = 0
    for cid in ids:
        if scanned >= MAX_SCANNED:
            skipped += 1
            continue
        scanned += 1
        ckpt = read(cid)
        if ckpt is None:
            continue
        nodes = tuple(ckpt.nodes_ran) if ckpt.source != "fork" else ()
        if expression is not None:
            try:
                ok = expression.truth(ckpt.values)
            except ExpressionError:
                ok = False  # a state where it does not apply (a missing key's type) is no match
            if ok:
                value = expression.evaluate(ckpt.values)
                hits.append(SearchHit(checkpoint_id=cid, step=ckpt.step, source=ckpt.source, nodes=nodes,
                                      excerpt=f"{expression.text} → {value!r:.60}"))
            continue
        text = _text_of(ckpt.values)
        at = text.lower().find(needle)
        if at >= 0:
            hits.append(SearchHit(checkpoint_id=cid, step=ckpt.step, source=ckpt.source, nodes=nodes,
                                  excerpt=_excerpt(text, at)))
    return hits, skipped
