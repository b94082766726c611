"""What changed between two values, in terms a person reads (Qt-free).

Used by the reducer-diff panel (before → after of one key) and the compare view (two
whole states). Lists are compared by their common head and tail first, so appending to a
10,000-message list costs one pass of identity checks, not a quadratic alignment.
"""
from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .records import UNSET
from .valuefmt import ELLIPSIS, preview

__all__ = ["Change", "KeyChange", "same", "diff_values", "diff_mappings", "plural", "fold_count"]

_ALIGN_LIMIT = 2_000
"""Above this many differing middle items, a list diff reports a block replace instead of
aligning item by item (difflib is quadratic in the worst case)."""


@dataclass(frozen=True, kw_only=True)
class Change:
    """The difference from `before` to `after`.

    kind: "same", "new" (no value before), "gone" (no value after), "scalar" (old → new),
    "list", "dict" or "type" (a different kind of value). For lists, `added`/`removed`
    hold (index, item) pairs and `changed` (index, old, new); for dicts the index is the key.
    """

    kind: str
    before: Any
    after: Any
    added: tuple[tuple[Any, Any], ...] = ()
    removed: tuple[tuple[Any, Any], ...] = ()
    changed: tuple[tuple[Any, Any, Any], ...] = ()

    @property
    def summary(self) -> str:
        """"+3 items", "−1 key, 2 changed", "'a' → 'b'", "unchanged", …"""
        if self.kind == "same":
            return "unchanged"
        if self.kind == "new":
            return f"new: {preview(self.after, 60)}"
        if self.kind == "gone":
            return "removed"
        if self.kind in ("scalar", "type"):
            return f"{preview(self.before, 40)} → {preview(self.after, 40)}"
        noun = "item" if self.kind == "list" else "key"
        parts = []
        if self.added:
            parts.append(f"+{plural(len(self.added), noun)}")
        if self.removed:
            parts.append(f"−{plural(len(self.removed), noun)}")
        if self.changed:
            parts.append(f"{len(self.changed)} changed")
        return ", ".join(parts) or "reordered"


KeyStatus = Literal["added", "removed", "changed", "same"]


@dataclass(frozen=True, kw_only=True)
class KeyChange:
    """One key of a state comparison: "added", "removed", "changed" or "same"."""

    key: str
    status: KeyStatus
    change: Change


def plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def same(a: Any, b: Any) -> bool:
    """Identity or equality of the same type; never raises (numpy and friends)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b)
    except Exception:
        return False


def _key(item: Any) -> Any:
    """A hashable stand-in for aligning list items (messages align by their id)."""
    try:
        hash(item)
        return item
    except TypeError:
        pass
    ident = item.get("id") if isinstance(item, Mapping) else getattr(item, "id", None)
    if isinstance(ident, (str, int)) and ident != "":
        return (type(item).__name__, "id", ident)
    return (type(item).__name__, preview(item, 200))


def _diff_lists(before: Sequence[Any], after: Sequence[Any]) -> Change:
    nb, na = len(before), len(after)
    head, tail = _common_ends(before, after)
    old, new = before[head:nb - tail], after[head:na - tail]
    added: list[tuple[Any, Any]] = []
    removed: list[tuple[Any, Any]] = []
    changed: list[tuple[Any, Any, Any]] = []
    if len(old) == len(new) == 1 or len(old) + len(new) > _ALIGN_LIMIT and len(old) == len(new):
        changed = [(head + i, o, n) for i, (o, n) in enumerate(zip(old, new))]
    elif not old or not new or len(old) + len(new) > _ALIGN_LIMIT:
        removed = [(head + i, o) for i, o in enumerate(old)]
        added = [(head + i, n) for i, n in enumerate(new)]
    else:
        added, removed, changed = _aligned(old, new, head)
    return Change(kind="list", before=before, after=after, added=tuple(added), removed=tuple(removed),
                  changed=tuple(changed))


def _common_ends(before: Sequence[Any], after: Sequence[Any]) -> tuple[int, int]:
    """How many items the two lists share at their start, and then at their end."""
    nb, na = len(before), len(after)
    head = 0
    try:  # the common case, an append: one C-level comparison instead of a Python loop
        if na >= nb and list(after[:nb]) == list(before):
            head = nb
    except Exception:
        pass
    while head < nb and head < na and same(before[head], after[head]):
        head += 1
    tail = 0
    while tail < nb - head and tail < na - head and same(before[nb - 1 - tail], after[na - 1 - tail]):
        tail += 1
    return head, tail


def _aligned(old: Sequence[Any], new: Sequence[Any], head: int
             ) -> tuple[list[tuple[Any, Any]], list[tuple[Any, Any]], list[tuple[Any, Any, Any]]]:
    """(added, removed, changed) of two differing middles, aligned item by item (by id
    where the items have one), positions counted from `head`."""
    added: list[tuple[Any, Any]] = []
    removed: list[tuple[Any, Any]] = []
    changed: list[tuple[Any, Any, Any]] = []
    matcher = difflib.SequenceMatcher(a=[_key(x) for x in old], b=[_key(x) for x in new], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            changed += [(head + j1 + k, old[i1 + k], new[j1 + k]) for k in range(i2 - i1)
                        if not same(old[i1 + k], new[j1 + k])]
        elif op == "replace" and i2 - i1 == j2 - j1:
            changed += [(head + j1 + k, old[i1 + k], new[j1 + k]) for k in range(i2 - i1)]
        else:
            removed += [(head + i, old[i]) for i in range(i1, i2)]
            added += [(head + j, new[j]) for j in range(j1, j2)]
    return added, removed, changed


def _diff_dicts(before: Mapping[Any, Any], after: Mapping[Any, Any]) -> Change:
    added = tuple((k, v) for k, v in after.items() if k not in before)
    removed = tuple((k, v) for k, v in before.items() if k not in after)
    changed = tuple((k, v, after[k]) for k, v in before.items() if k in after and not same(v, after[k]))
    return Change(kind="dict", before=before, after=after, added=added, removed=removed, changed=changed)


def diff_values(before: Any, after: Any) -> Change:
    """The change from `before` to `after` (`UNSET` stands for "no value")."""
    if before is UNSET and after is UNSET or same(before, after):
        return Change(kind="same", before=before, after=after)
    if before is UNSET:
        return Change(kind="new", before=before, after=after)
    if after is UNSET:
        return Change(kind="gone", before=before, after=after)
    if isinstance(before, (list, tuple)) and isinstance(after, (list, tuple)):
        return _diff_lists(before, after)
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        return _diff_dicts(before, after)
    if type(before) is not type(after) and not (isinstance(before, (int, float)) and isinstance(after, (int, float))):
        return Change(kind="type", before=before, after=after)
    return Change(kind="scalar", before=before, after=after)


_KEY_STATUS: dict[str, KeyStatus] = {"same": "same", "new": "added", "gone": "removed"}


def diff_mappings(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[KeyChange]:
    """Every key of two states, in `a`'s order then `b`'s new keys."""
    out = []
    for key in list(a) + [k for k in b if k not in a]:
        change = diff_values(a.get(key, UNSET), b.get(key, UNSET))
        status = _KEY_STATUS.get(change.kind, "changed")
        out.append(KeyChange(key=str(key), status=status, change=change))
    return out


def fold_count(items: Sequence[Any], shown: int) -> str:
    """"… and 12 more" for the part of a long list a panel leaves out."""
    rest = len(items) - shown
    return f"{ELLIPSIS} and {rest:,} more" if rest > 0 else ""
