"""Planning an edit of a checkpoint's state as LangGraph's update_state applies it (Qt-free).

Each changed key is written one of three ways:
- "set": a key without a reducer takes the typed value;
- "reduce": the write goes through the key's reducer, as a node's return would (a list
  that only grew writes its new tail; `add_messages` gets the edited and new messages
  and a `RemoveMessage` for each removed one);
- "replace": the value is replaced whole (`Overwrite`), whatever the reducer.

By default a key goes through its reducer when that gives exactly the typed value, and
is replaced otherwise. The edit counts as one node's write (`as_node`): its edges say
what runs next. A dry run (a Run with no checkpointer, so nothing is saved) applies the
plan to the checkpoint to show each key's value after and the next nodes before the user
confirms; the fork itself goes through `update_state` with the same update.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine import START, Overwrite, add_messages
from engine import messages as engine_messages
from engine.channels import ReducerChannel
from engine.messages import is_add_messages

from .valuediff import same

__all__ = ["EditHow", "KeyEdit", "EditPlan", "EditPlanner", "plan_edit", "as_node_choices"]

EditHow = Literal["set", "reduce", "replace"]
_TRIED = 12
"""How many nodes the default `as_node` search dry-runs at most."""


@dataclass(frozen=True, kw_only=True)
class KeyEdit:
    key: str
    how: EditHow
    reducer: str
    """The reducer's name ("" for a plain key)."""
    update: Any
    """What update_state gets for this key (an Overwrite for "replace")."""
    typed: Any
    after: Any = None
    """The key's value after the edit (from the dry run)."""

    @property
    def exact(self) -> bool:
        """The key ends as typed."""
        return _matches(self.after, self.typed)


@dataclass(frozen=True, kw_only=True)
class EditPlan:
    edits: tuple[KeyEdit, ...]
    as_node: str
    next: tuple[str, ...]
    """What runs next from the new checkpoint (F10 runs the first)."""
    error: str = ""
    """Why the edit cannot be applied ("" when it can)."""

    def update(self) -> dict[str, Any]:
        return {e.key: e.update for e in self.edits}

    def next_text(self) -> str:
        if self.error:
            return self.error
        if not self.next:
            return (f"Next: nothing. As `{self.as_node}`'s write, the run ends here; "
                    "choose another node to go on.")
        return f"Next: {', '.join(self.next)} (F10 runs it)."


def _reducer(channel: Any) -> Any:
    return channel.fn if isinstance(channel, ReducerChannel) else None


def _msg_id(value: Any) -> str | None:
    mid = getattr(value, "id", None)
    return str(mid) if mid else None


def _matches(after: Any, typed: Any) -> bool:
    """`after` is what was typed (a typed message without an id matches any id)."""
    if same(after, typed):
        return True
    if isinstance(after, list) and isinstance(typed, list) and len(after) == len(typed):
        for a, t in zip(after, typed):
            if same(a, t):
                continue
            if _msg_id(t) is None and getattr(a, "type", None) == getattr(t, "type", 0) \
                    and same(getattr(a, "content", None), getattr(t, "content", 0)):
                continue
            return False
        return True
    return False


def _through_reducer(reducer: Any, before: Any, typed: Any) -> Any:
    """The write that, through `reducer`, turns `before` into `typed` where it can."""
    if is_add_messages(reducer) and isinstance(typed, list):
        old = [m for m in before if _msg_id(m)] if isinstance(before, list) else []
        by_id = {_msg_id(m): m for m in old}
        kept = {_msg_id(m) for m in typed}
        remove = engine_messages.RemoveMessage  # the active layer's: langchain-core loads on first use, not at start-up
        write: list[Any] = [remove(id=mid) for mid in by_id if mid not in kept]
        write += [m for m in typed if _msg_id(m) not in by_id or not same(by_id[_msg_id(m)], m)]
        return write
    if isinstance(typed, list) and isinstance(before, list) and len(typed) >= len(before) \
            and same(typed[: len(before)], before):
        return typed[len(before):]
    return typed


def _replacing(reducer: Any, typed: Any) -> Overwrite:
    if is_add_messages(reducer) and isinstance(typed, list):
        return Overwrite(add_messages([], typed))  # dicts and strings typed in become messages
    return Overwrite(typed)


def as_node_choices(graph: Any, base: Any) -> tuple[str, ...]:
    """Nodes the edit may count as: those that made the checkpoint first, then the rest."""
    ran = [n for n in getattr(base, "nodes_ran", ()) if n in graph.runners]
    first = ran or ([START] if START in graph.runners else [])
    return tuple(dict.fromkeys([*first, *graph.node_names]))


def _dry_run(graph: Any, base: Any, update: Mapping[str, Any], as_node: str,
             on_try: Callable[[str], None] | None = None) -> Any:
    if on_try is not None:
        on_try(_what_runs(graph, as_node))
    run = graph.new_run(None, {"configurable": {"thread_id": base.thread_id}}, checkpointer=None)
    return run.apply_updates(base, [(dict(update), as_node)])


def _what_runs(graph: Any, as_node: str) -> str:
    """What a dry run as `as_node` calls, as the UI names it if it hangs: the node's
    routers (user code that may call a model), else its reducers."""
    branches = getattr(graph.runners.get(as_node), "branches", ())
    names = [getattr(b[0] if isinstance(b, tuple) else b, "name", "") for b in branches]
    routers = ", ".join(f"`{n}`" for n in names if n)
    if routers:
        return f"router{'s' if len(names) > 1 else ''} {routers} (after `{as_node}`'s write)"
    return f"`{as_node}`'s write (its reducers)"


def plan_edit(graph: Any, base: Any, changed: Mapping[str, Any], *,
              how: Mapping[str, EditHow] | None = None, as_node: str | None = None,
              on_try: Callable[[str], None] | None = None) -> EditPlan:
    """The plan for writing `changed` ({key: typed value}) onto checkpoint `base`.

    `how` picks "reduce" or "replace" per key (others: the default); `as_node` None picks
    the first node (see as_node_choices) after whose write the run goes on. `on_try(what)`
    is told before each dry run what it runs (the editor says it if it hangs)."""
    channels = graph.schema.channels
    unknown = [k for k in changed if k not in channels]
    if unknown:
        raise ValueError(f"{', '.join(f'`{k}`' for k in unknown)} not in the state schema "
                         f"(keys: {', '.join(channels)})")
    how = dict(how or {})
    edits: list[KeyEdit] = []
    for key, typed in changed.items():
        reducer = _reducer(channels[key])
        name = getattr(channels[key], "reducer_name", "") if reducer is not None else ""
        before = base.values.get(key)
        if reducer is None:
            edits.append(KeyEdit(key=key, how="set", reducer="", update=typed, typed=typed))
        elif how.get(key) == "replace":
            edits.append(KeyEdit(key=key, how="replace", reducer=name, update=_replacing(reducer, typed), typed=typed))
        else:
            edits.append(KeyEdit(key=key, how="reduce", reducer=name,
                                 update=_through_reducer(reducer, before, typed), typed=typed))
    choices = as_node_choices(graph, base)
    if as_node is None:
        as_node = _continuing(graph, base, edits, choices, on_try)
    elif as_node not in graph.runners:
        return EditPlan(edits=tuple(edits), as_node=as_node, next=(),
                        error=f"`{as_node}` is not a node of this graph")
    try:
        result = _dry_run(graph, base, {e.key: e.update for e in edits}, as_node, on_try)
    except Exception as exc:  # noqa: BLE001 - a reducer or router of the user's refused it
        return EditPlan(edits=tuple(edits), as_node=as_node, next=(), error=f"{type(exc).__name__}: {exc}")
    final: list[KeyEdit] = []
    for e in edits:
        after = result.values.get(e.key)
        if e.how == "reduce" and how.get(e.key) != "reduce" and not _matches(after, e.typed):
            # the reducer would not give what was typed: by default, replace the value
            return plan_edit(graph, base, changed, how={**how, e.key: "replace"}, as_node=as_node, on_try=on_try)
        final.append(KeyEdit(key=e.key, how=e.how, reducer=e.reducer, update=e.update, typed=e.typed, after=after))
    return EditPlan(edits=tuple(final), as_node=as_node, next=tuple(t.name for t in result.tasks))


def _continuing(graph: Any, base: Any, edits: Sequence[KeyEdit], choices: Sequence[str],
                on_try: Callable[[str], None] | None = None) -> str:
    """The first choice after whose write something runs next (else the first choice)."""
    update = {e.key: e.update for e in edits}
    for name in choices[:_TRIED]:
        try:
            if _dry_run(graph, base, update, name, on_try).tasks:
                return name
        except Exception:  # noqa: BLE001, S112 - that node's routing refuses this state: try the next
            continue
    return choices[0] if choices else START


class EditPlanner:
    """Previews of edits of one checkpoint (`base`, an engine Checkpoint) for the editor:
    `choices` for as_node, and `plan(changed, how, as_node)`, dry runs of the graph's
    reducers and routers (user code: the editor calls it off the UI thread)."""

    def __init__(self, graph: Any, base: Any) -> None:
        self.graph = graph
        self.base = base
        self.choices = as_node_choices(graph, base)

    def plan(self, changed: Mapping[str, Any], how: Mapping[str, EditHow] | None = None,
             as_node: str | None = None, on_try: Callable[[str], None] | None = None) -> EditPlan:
        try:
            return plan_edit(self.graph, self.base, changed, how=how, as_node=as_node, on_try=on_try)
        except ValueError as exc:
            return EditPlan(edits=(), as_node=as_node or "", next=(), error=str(exc))
