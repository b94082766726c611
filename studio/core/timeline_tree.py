"""The timeline's checkpoint tree, built without Qt so that it can be built off the UI thread.

Building the tree of a 100,000-checkpoint thread (indices, parent links, chains, branches,
the visible rows) is pure Python work of several hundred milliseconds: done in the
timeline model on the UI thread, it froze the window while a long history loaded. The
session builds it on a worker thread instead (`plan_rows`) and hands the rows over with
their tree attached (`PlannedRows`, still a tuple of rows for every other listener); the
timeline model then only swaps it in.

The tree: a linear chain of checkpoints is one `Chain`; where a checkpoint has more than
one child the oldest child continues the line and each newer one opens a branch (a chain
owned by that checkpoint, one level deeper). Subgraph rows (with a namespace) hang under
the parent checkpoint whose superstep ran them. Visible rows are ints: a checkpoint's
index (>= 0) or a branch header, -(chain + 1).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .records import TimelineRow

__all__ = ["Chain", "TimelineTree", "PlannedRows", "build_tree", "plan_rows", "flatten_run", "tree_of"]


@dataclass
class Chain:
    """A linear chain of checkpoints (indices into the rows); mutable: a live run extends it."""

    owner: int | None
    """The checkpoint this branch starts from; None for a root chain."""
    depth: int
    items: list[int] = field(default_factory=list)


@dataclass
class TimelineTree:
    """Everything the timeline model keeps about a thread's rows (nothing collapsed yet)."""

    rows: list[TimelineRow]
    index: dict[str, int]
    chain_of: list[int]
    chains: list[Chain]
    branches: dict[int, list[int]]
    subs: dict[int, list[int]]
    """Parent checkpoint → its subgraphs' checkpoints (oldest first)."""
    waiting: dict[str, list[int]]
    """Subgraph checkpoints whose parent checkpoint is not listed (yet)."""
    visible: list[int]


class PlannedRows(tuple[TimelineRow, ...]):
    """A tuple of rows (what the signal always carried) with their tree already built off
    the UI thread; the first model to show them takes the tree (a model then extends it),
    any later one builds its own."""

    tree: TimelineTree | None


def plan_rows(rows: Sequence[TimelineRow]) -> PlannedRows:
    """`rows` with their tree attached: call it on a worker thread."""
    planned = PlannedRows(rows)
    planned.tree = build_tree(planned)
    return planned


def tree_of(rows: Iterable[TimelineRow]) -> TimelineTree:
    """The tree of `rows`: the one built beforehand for planned rows, else built now."""
    tree = getattr(rows, "tree", None)
    if isinstance(rows, PlannedRows) and isinstance(tree, TimelineTree):
        rows.tree = None  # taken: the model extends these lists as a live run goes on
        return tree
    return build_tree(list(rows))


Order = Callable[[int], tuple[str, str]]


def _order_key(rows: Sequence[TimelineRow]) -> Order:
    return lambda i: (rows[i].created_at, rows[i].id)


def build_tree(rows_in: Iterable[TimelineRow]) -> TimelineTree:
    """The tree of a thread's rows (any order); O(rows log rows)."""
    rows = list(rows_in)
    index = {r.id: i for i, r in enumerate(rows)}
    if _linear(rows, index):
        return _one_chain(rows, index)
    chain_of = [0] * len(rows)
    children, roots, subs, forward = _links(rows, index)
    order = _order_key(rows)
    if not forward:
        roots += cycle_breakers(len(rows), roots, children, order, subs)
    for kids in children.values():
        if len(kids) > 1:
            kids.sort(key=order)
    roots.sort(key=order)
    chains: list[Chain] = []
    branches: dict[int, list[int]] = {}
    todo: list[tuple[int, int | None, int]] = [(root, None, 0) for root in reversed(roots)]
    while todo:
        start, owner, depth = todo.pop()
        chain_id = len(chains)
        chain = Chain(owner=owner, depth=depth)
        chains.append(chain)
        if owner is not None:
            branches.setdefault(owner, []).append(chain_id)
        items = chain.items
        cur: int | None = start
        while cur is not None:
            items.append(cur)
            chain_of[cur] = chain_id
            below = children.get(cur)
            if not below:
                break
            if len(below) > 1:
                for other in reversed(below[1:]):
                    todo.append((other, cur, depth + 1))
            cur = below[0]
    for owned in branches.values():
        owned.sort(key=lambda b: order(chains[b].items[0]))
    sub_of: dict[int, list[int]] = {}
    waiting: dict[str, list[int]] = {}
    for i in sorted(subs, key=lambda i: rows[i].id):  # ids sort in creation order
        owner_i = index.get(rows[i].owner_id or "")
        if owner_i is None or rows[owner_i].namespace:
            waiting.setdefault(rows[i].owner_id or "", []).append(i)
        else:
            sub_of.setdefault(owner_i, []).append(i)
            chain_of[i] = chain_of[owner_i]
    tree = TimelineTree(rows=rows, index=index, chain_of=chain_of, chains=chains, branches=branches,
                        subs=sub_of, waiting=waiting, visible=[])
    tree.visible = flatten_roots(chains, branches, sub_of, set())
    return tree


def _links(rows: Sequence[TimelineRow], index: Mapping[str, int]
           ) -> tuple[dict[int, list[int]], list[int], list[int], bool]:
    """Each row's children (indices), the roots, the subgraph rows, and whether every
    parent is listed before its child (then no parent cycle can be there)."""
    children: dict[int, list[int]] = {}
    roots: list[int] = []
    subs: list[int] = []
    get = index.get
    forward = True
    for i, r in enumerate(rows):
        if r.namespace:
            subs.append(i)
            continue
        p = get(r.parent_id) if r.parent_id is not None else None
        if p is None or p == i:
            roots.append(i)
            continue
        kids = children.get(p)
        if kids is None:
            children[p] = [i]
        else:
            kids.append(i)
        if p > i:
            forward = False
    return children, roots, subs, forward


def _linear(rows: Sequence[TimelineRow], index: Mapping[str, int]) -> bool:
    """Whether `rows` are one line: each row's parent the row before it (no fork, no
    subgraph row): a long history read back, whose tree needs no walk."""
    if not rows or len(index) != len(rows) or rows[0].namespace or index.get(rows[0].parent_id or "") is not None:
        return False
    ids = [r.id for r in rows]
    return all(r.parent_id == before and not r.namespace for r, before in zip(rows[1:], ids))


def _one_chain(rows: list[TimelineRow], index: dict[str, int]) -> TimelineTree:
    """The tree of a linear history: one root chain holding every row."""
    n = len(rows)
    return TimelineTree(rows=rows, index=index, chain_of=[0] * n, chains=[Chain(owner=None, depth=0, items=list(range(n)))],
                        branches={}, subs={}, waiting={}, visible=list(range(n)))


def flatten_roots(chains: Sequence[Chain], branches: Mapping[int, list[int]], subs: Mapping[int, list[int]],
                  collapsed: set[int]) -> list[int]:
    """The visible entries of every root chain: the first as it is, the others under a header."""
    out: list[int] = []
    roots = [i for i, chain in enumerate(chains) if chain.owner is None]
    for n, chain_id in enumerate(roots):
        if n == 0:
            out += flatten_run(chain_id, chains, branches, subs, collapsed)
        else:
            out.append(-(chain_id + 1))
            if chain_id not in collapsed:
                out += flatten_run(chain_id, chains, branches, subs, collapsed)
    return out


def flatten_run(chain_id: int, chains: Sequence[Chain], branches: Mapping[int, list[int]],
                subs: Mapping[int, list[int]], collapsed: set[int]) -> list[int]:
    """The visible entries of a chain: its checkpoints with their (expanded) branches."""
    out: list[int] = []
    stack: list[tuple[str, int, int]] = [("chain", chain_id, 0)]
    while stack:
        what, r, pos = stack.pop()
        if what == "hdr":
            out.append(-(r + 1))
            if r not in collapsed:
                stack.append(("chain", r, 0))
            continue
        items = chains[r].items
        if pos == 0 and subs.keys().isdisjoint(items) and branches.keys().isdisjoint(items):
            out += items  # a plain chain (a long linear history): all of it at once
            continue
        while pos < len(items):
            i = items[pos]
            pos += 1
            out.append(i)
            if i in subs:
                out += subs[i]
            owned = branches.get(i)
            if owned:
                stack.append(("chain", r, pos))
                stack += [("hdr", b, 0) for b in reversed(owned)]
                break
    return out


def _reach(start: Iterable[int], children: Mapping[int, list[int]], reached: list[bool]) -> None:
    todo = list(start)
    for i in todo:
        reached[i] = True
    while todo:
        for kid in children.get(todo.pop(), ()):
            if not reached[kid]:
                reached[kid] = True
                todo.append(kid)


def cycle_breakers(n: int, roots: list[int], children: dict[int, list[int]], order: Order,
                   apart: Iterable[int] = ()) -> list[int]:
    """Rows no root reaches: they sit on parent cycles (a damaged or crafted file). The
    oldest row of each cycle becomes a root, cut from its parent's children, so every
    row is shown once and no walk goes round forever. `apart` (subgraph rows) are not walked."""
    reached = [False] * n
    for i in apart:
        reached[i] = True
    _reach(roots, children, reached)
    if all(reached):
        return []
    extra: list[int] = []
    parent_of = {kid: p for p, kids in children.items() for kid in kids}
    for i in sorted((i for i in range(n) if not reached[i]), key=order):
        if reached[i]:
            continue
        p = parent_of.get(i)
        if p is not None:
            children[p].remove(i)
        extra.append(i)
        _reach([i], children, reached)
    return extra
