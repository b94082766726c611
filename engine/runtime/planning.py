"""Planning the next superstep: the pure core of what a commit decides to run next.

`next_plan` reads the finished tasks' routes and Sends, the graph's joins (a node that
waits for several sources) and deferred nodes (`defer=True`: run once nothing else
would), and returns the planned tasks; the waiting state lives in the checkpoint's
`barriers`, so it survives a restart. (The first superstep is planned by start.py: the
input's task, or the tasks a saved checkpoint plans.)
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ..checkpoint.base import PlannedTask, new_task_id
from ..constants import END, START
from ..errors import InvalidRouteError
from ..types import Send
from .task import TaskResult

__all__ = ["next_plan", "PlanningGraph", "DEFER"]


class PlanningGraph(Protocol):
    """What planning reads of a compiled graph."""

    @property
    def joins(self) -> Mapping[str, tuple[tuple[str, ...], str]]: ...
    @property
    def deferred(self) -> frozenset[str]: ...
    @property
    def runners(self) -> Mapping[str, Any]: ...
    @property
    def node_names(self) -> Sequence[str]: ...


def next_plan(graph: PlanningGraph, cid: str, ordered: Sequence[TaskResult],
              barriers: dict[str, tuple[str, ...]]) -> tuple[PlannedTask, ...]:
    """The next superstep's tasks (ids made from the new checkpoint's `cid`): the nodes
    this superstep triggered (sorted by name), then its Sends in emission order.
    `barriers` (the new checkpoint's) is updated: joins filled and used, deferred
    nodes held or released."""
    joins = graph.joins
    if len(ordered) == 1 and not joins and not graph.deferred:  # the common case: one task, one route, no Send
        only = ordered[0]
        routes = only.routes
        if len(routes) == 1 and not only.sends:
            target, why = routes[0]
            if target == END:
                return ()
            return (PlannedTask(id=new_task_id(cid, 0), name=target, trigger=why),)
    if joins:
        _consume_joins(joins, ordered, barriers)
    triggered: dict[str, list[str]] = {}
    sends: list[tuple[Send, str]] = []
    for result in ordered:
        name = result.task.name
        for target, why in result.routes:
            reasons = triggered.get(target)
            if reasons is None:
                triggered[target] = [why]
            elif why not in reasons:
                reasons.append(why)
        if result.sends:
            why = f"send:{name}"
            sends += [(send, why) for send in result.sends]
        if graph.joins:
            _fill_joins(graph, name, triggered, barriers)
    if graph.deferred:
        _hold_deferred(graph.deferred, triggered, barriers, bool(sends))
    tasks: list[PlannedTask] = []

    for i, name in enumerate(sorted(n for n in triggered if n != END)):
        tasks.append(PlannedTask(id=new_task_id(cid, i), name=name, trigger=",".join(triggered[name])))
    runners = graph.runners
    for i, (send, why) in enumerate(sends, len(tasks)):
        node = send.node
        if node not in runners or node == START:
            raise InvalidRouteError(
                f"Send({node!r}, ...) names no node of this graph (nodes: {', '.join(graph.node_names)})"
            )
        tasks.append(PlannedTask(id=new_task_id(cid, i), name=node, trigger=why,
                                 is_send=True, arg=send.arg, timeout=send.timeout))
    return tuple(tasks)


def _fill_joins(graph: PlanningGraph, name: str, triggered: dict[str, list[str]],
                barriers: dict[str, tuple[str, ...]]) -> None:
    """`name` ran: the joins it is a source of note it, and a join whose sources all ran
    triggers its target."""
    for join in graph.runners[name].joins if name in graph.runners else ():
        sources, target = graph.joins[join]
        seen = barriers.get(join, ())
        if name not in seen:
            seen = seen + (name,)
        barriers[join] = seen  # kept until `target` runs (_consume_joins)
        if set(seen) >= set(sources):
            triggered.setdefault(target, []).append(f"join:{'+'.join(sources)}")


DEFER = "defer:"
"""Barrier key of a deferred node that was triggered and waits for the run to drain."""


def _consume_joins(joins: Mapping[str, tuple[tuple[str, ...], str]], ordered: Sequence[TaskResult],
                   barriers: dict[str, tuple[str, ...]]) -> None:
    """A complete join is used up by its target's run, not when the target is planned (as
    LangGraph's barrier channel is): until then an update_state, or another write of a
    source, leaves the target due, and a fork before it still runs it."""
    ran = {r.task.name for r in ordered if not r.task.is_send}
    for join, (sources, target) in joins.items():
        if target in ran and join in barriers and set(barriers[join]) >= set(sources):
            del barriers[join]


def _hold_deferred(deferred: frozenset[str], triggered: dict[str, list[str]],
                   barriers: dict[str, tuple[str, ...]], has_sends: bool) -> None:
    """`defer=True` as a planning decision: a triggered deferred node waits (in the
    checkpoint's barriers, so it survives a restart) until nothing else would run, then
    runs once with every reason it was triggered for."""
    for name in [n for n in triggered if n in deferred]:
        waiting = barriers.get(DEFER + name, ())
        barriers[DEFER + name] = waiting + tuple(w for w in triggered.pop(name) if w not in waiting)
    if has_sends or any(n != END for n in triggered):
        return
    for key in [k for k in barriers if k.startswith(DEFER)]:
        triggered[key[len(DEFER):]] = list(barriers.pop(key))
