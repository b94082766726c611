"""Conditional breakpoints: stop a continuing run when an expression becomes true, or when
a key (or a path in it) changes, optionally only when a given node writes it.

Checked by the RunDriver at three points of its continue loop (driver.py):
- before a superstep runs (`when="before"` expression breakpoints, on the state its tasks
  will read; with a node, only when that node is about to run);
- after its tasks ran, before their writes are committed (`when="before"` change
  breakpoints: the writes are still pending, shown in the diff once committed);
- after the superstep commits (`when="after"`, both kinds; with a node, only when that
  node ran, or for a change, only when it wrote the key).

"Becomes true" means false (or missing) at the previous check and true now, so a condition
that stays true stops once. Qt-free.
"""
from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .expressions import MISSING_VALUE, Expression, ExpressionError
from .valuediff import same

__all__ = ["BreakCondition", "Conditions", "path_root"]

When = Literal["before", "after"]


def path_root(path: str) -> str:
    """The state key a path starts with: `messages` for `messages[3].content`."""
    head = path.strip()
    for i, ch in enumerate(head):
        if ch in ".[":
            return head[:i].strip()
    return head


@dataclass(frozen=True, kw_only=True)
class BreakCondition:
    """One conditional breakpoint: `kind` "expression" (stop when `text` becomes true) or
    "change" (stop when the value at path `text` changes)."""

    kind: Literal["expression", "change"]
    text: str
    node: str | None = None
    when: When = "after"
    expression: Expression = field(compare=False, repr=False, default=None)  # type: ignore[assignment]

    @classmethod
    def make(cls, kind: str, text: str, *, node: str | None = None, when: str = "after",
             nodes: Sequence[str] | None = None) -> BreakCondition:
        """A checked condition, or ExpressionError / ValueError naming what is wrong."""
        if kind not in ("expression", "change"):
            raise ValueError(f"unknown breakpoint kind {kind!r}: use 'expression' or 'change'")
        if when not in ("before", "after"):
            raise ValueError(f"when={when!r}: a conditional breakpoint stops 'before' or 'after'")
        node = node or None
        if node is not None and nodes is not None and node not in nodes:
            raise ValueError(f"no node `{node}` in this graph (nodes: {', '.join(nodes)})")
        expression = Expression.parse(text)
        if kind == "change" and not path_root(text).isidentifier():
            raise ExpressionError(f"`{text}` is not a path into the state: write a key, as messages or "
                                  "messages[3].content or plan.steps")
        return cls(kind=kind, text=expression.text, node=node, when=when, expression=expression)  # type: ignore[arg-type]

    def describe(self) -> str:
        who = f" by `{self.node}`" if self.node and self.kind == "change" else (f" at `{self.node}`" if self.node else "")
        what = f"`{self.text}` changes" if self.kind == "change" else f"`{self.text}` becomes true"
        return f"{self.when} a step: {what}{who}"


class Conditions:
    """The conditional breakpoints of a session, and what each saw at its last check."""

    def __init__(self) -> None:
        self.items: list[BreakCondition] = []
        self._truth: dict[int, bool] = {}
        self.errors: dict[int, str] = {}
        """Conditions whose evaluation failed at the last check (shown, not fatal)."""
        self.hit: tuple[str, str] | None = None
        """The condition that stopped the run last, and its value then (as shown): the
        expression's value, or the change "old → new"."""

    def add(self, condition: BreakCondition) -> None:
        self.items.append(condition)

    def remove(self, index: int) -> None:
        del self.items[index]
        self._truth.clear()

    def prime(self, values: Mapping[str, Any]) -> None:
        """Remember what each expression gives now (a continue starts here)."""
        self._truth = {i: self._holds(i, c, values) for i, c in enumerate(self.items) if c.kind == "expression"}

    def _holds(self, i: int, c: BreakCondition, values: Mapping[str, Any]) -> bool:
        try:
            held = c.expression.truth(values)
        except ExpressionError as e:
            self.errors[i] = str(e)
            return False
        self.errors.pop(i, None)
        return held

    def _became_true(self, i: int, c: BreakCondition, values: Mapping[str, Any]) -> bool:
        now = self._holds(i, c, values)
        before = self._truth.get(i, False)
        self._truth[i] = now
        return now and not before

    def before_tasks(self, values: Mapping[str, Any], due: Sequence[str]) -> str | None:
        for i, c in enumerate(self.items):
            if c.kind == "expression" and c.when == "before" and (c.node is None or c.node in due):
                if self._became_true(i, c, values):
                    self.hit = (c.text, _value_of(c, values))
                    return f"Conditional breakpoint: `{c.text}` became true" + (
                        f", before `{c.node}` runs" if c.node else ", before the next step")
        return None

    def before_commit(self, writes: Sequence[tuple[str, str]]) -> str | None:
        """`writes`: (node, key) of the superstep's pending writes."""
        for c in self.items:
            if c.kind == "change" and c.when == "before":
                root = path_root(c.text)
                by = [n for n, k in writes if k == root and (c.node is None or n == c.node)]
                if by:
                    self.hit = (c.text, "about to be written")
                    return (f"Conditional breakpoint: `{', '.join(dict.fromkeys(by))}` is about to write "
                            f"`{root}` (its writes are not committed yet)")
        return None

    def after_commit(self, before: Mapping[str, Any], after: Mapping[str, Any], ran: Sequence[str],
                     wrote: Mapping[str, Sequence[str]]) -> str | None:
        """`wrote`: state key -> the nodes that wrote it in this superstep."""
        for i, c in enumerate(self.items):
            if c.when != "after":
                continue
            if c.kind == "expression":
                if c.node is not None and c.node not in ran:
                    self._became_true(i, c, after)  # keep track, but stop only after that node
                    continue
                if self._became_true(i, c, after):
                    self.hit = (c.text, _value_of(c, after))
                    return f"Conditional breakpoint: `{c.text}` became true" + (f" after `{c.node}`" if c.node else "")
                continue
            root = path_root(c.text)
            writers = wrote.get(root, ())
            if not writers or (c.node is not None and c.node not in writers):
                continue
            try:
                old, new = c.expression.evaluate(before), c.expression.evaluate(after)
            except ExpressionError as e:
                self.errors[i] = str(e)
                continue
            if not same(old, new):
                by = c.node or ", ".join(writers)
                self.hit = (c.text, f"{_short(old)} → {_short(new)}")
                return f"Conditional breakpoint: `{c.text}` changed ({_short(old)} → {_short(new)}), written by `{by}`"
        return None


def _value_of(c: BreakCondition, values: Mapping[str, Any]) -> str:
    """What the expression of `c` gives on `values`, as shown in the "stopped because" banner;
    for a comparison, its left side's value too (`True (len(messages) = 4)`)."""
    try:
        shown = _short(c.expression.evaluate(values))
        tree = c.expression.tree
        if isinstance(tree, ast.Compare):
            left = ast.unparse(tree.left)
            shown += f" ({left} = {_short(Expression.parse(left).evaluate(values))})"
        return shown
    except ExpressionError as e:
        return f"cannot be evaluated: {e}"


def _short(value: Any) -> str:
    if value is MISSING_VALUE:
        return "missing"
    try:
        text = repr(value)
    except Exception:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 60 else text[:57] + "..."
