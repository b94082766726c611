"""Engine objects -> the plain records of `studio.core.records`.

Qt-free: the session calls these and hands the results to the panels, which never see
engine types (a checkpoint's values pass through as plain Python data).
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, cast

from engine import (
    END,
    MISSING,
    START,
    CustomData,
    RunEvent,
    RunFinished,
    RunInterrupted,
    RunStarted,
    StepCommitted,
    TaskFailed,
    TaskFinished,
    TaskInterrupted,
    TaskStarted,
)
from engine.checkpoint.ids import split_thread_key
from engine.specs import is_subgraph, subgraph_in_closure

from .records import (
    UNSET,
    DiffRow,
    DiffWrite,
    EdgeKind,
    EdgeShape,
    EventRow,
    GraphShape,
    InterruptInfo,
    NodeDetails,
    NodeKind,
    NodeShape,
    StepDiff,
    TimelineRow,
)
from .funcview import ENTRY_CHANNELS, entry_source, shown_values
from .handoffs import handoff_to
from .safe import safe_int_text, total
from .valuediff import same
from .valuefmt import clock

__all__ = [
    "graph_view",
    "observed_graph",
    "with_taken_routes",
    "observed_details",
    "diff_from_commit",
    "diff_from_values",
    "timeline_row",
    "event_row",
    "history_events",
    "clock",
    "interrupt_views",
    "node_details",
    "plain",
    "short",
]


def plain(value: Any) -> Any:
    """The engine's MISSING becomes the records' UNSET; everything else passes."""
    return UNSET if value is MISSING else value


@total("<value that cannot be shown>")
def short(value: Any, limit: int = 80) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        text = safe_int_text(value, limit)
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _branch_labels(compiled: Any) -> dict[tuple[str, str], str]:
    """(router's node, target) -> the branch that leads there: the path_map key, else the
    target's name ("router: key"), so each conditional edge says which branch it is,
    not only which router."""
    out: dict[tuple[str, str], str] = {}
    builder = getattr(compiled, "builder", None)
    for source, branches in (getattr(builder, "branches", None) or {}).items():
        for branch in branches.values():
            router = str(getattr(branch, "name", "") or "route")
            path_map = getattr(branch, "path_map", None)
            if path_map:
                pairs = [(str(key), str(target)) for key, target in path_map.items()]
            else:
                from engine.specs import literal_targets

                pairs = [(str(t), str(t)) for t in literal_targets(branch.router) or ()]
            for key, target in pairs:
                key = "END" if key == END else "START" if key == START else key
                text = f"{router}: {key}"
                previous = out.get((str(source), target))
                out[(str(source), target)] = f"{previous}, {key}" if previous else text
    return out


def graph_view(compiled: Any, name: str | None = None) -> GraphShape:
    """The graph's structure from `compiled.get_graph().nx` (node and edge kinds, labels);
    `name` replaces LangGraph's default graph name ("LangGraph")."""
    nxg = compiled.get_graph(xray=True).nx  # subgraph nodes drawn as clusters of their inner nodes
    nodes = []
    for node_id, attrs in nxg.nodes(data=True):
        kind = attrs.get("kind") or ("start" if node_id == START else "end" if node_id == END else "node")
        nodes.append(NodeShape(
            id=str(node_id), label=str(attrs.get("label") or node_id), kind=cast(NodeKind, str(kind)),
            subgraph_nodes=tuple(str(n) for n in attrs.get("subgraph_nodes") or ()),
        ))
    branches = _branch_labels(compiled)
    edges = [
        EdgeShape(source=str(s), target=str(t), kind=cast(EdgeKind, str(a.get("kind") or "edge")),
                  label=branches.get((str(s), str(t)), str(a.get("label") or "")) if a.get("kind") == "conditional"
                  else str(a.get("label") or ""))
        for s, t, a in nxg.edges(data=True)
    ]
    own = str(getattr(compiled, "name", "") or "")
    shown = own if own and (own != "LangGraph" or name is None) else (name or "graph")
    return GraphShape(name=shown, nodes=tuple(nodes), edges=tuple(edges))


WIDE = 64
"""A superstep whose ran x due node pairs exceed this is drawn from its tasks' triggers
(read with `wide_rows`), never as a cross product: 300 parallel nodes would make 90,000
edges, which graphviz cannot lay out."""


def wide_rows(rows: Iterable[TimelineRow]) -> list[str]:
    """Checkpoints whose observed edges need their tasks' triggers (see `WIDE`)."""
    return [r.id for r in rows if len(set(r.nodes)) * len(set(r.next)) > WIDE]


def _trigger_sources(trigger: str) -> list[str]:
    """The nodes a trigger names: "edge:a", "branch:a", "join:a+b", "send:a", "command:a"."""
    out = []
    for part in trigger.split(","):
        kind, _, who = part.partition(":")
        if kind in ("edge", "branch", "command", "send", "join") and who:
            out += [n for n in who.split("+") if n]
    return out


def observed_graph(rows: Iterable[TimelineRow], name: str = "observed",
                   triggers: Mapping[str, Sequence[tuple[str, str]]] | None = None) -> GraphShape:
    """Without the graph's code (post-mortem), the graph the history shows: every node that
    ran or was due, and an edge wherever a checkpoint made by one node planned the next.
    A wide superstep's edges come from its tasks' `triggers` (checkpoint id -> (task,
    trigger) pairs); without them, only its nodes are drawn."""
    edges: dict[tuple[str, str], None] = {}
    names: dict[str, None] = {START: None}
    ended = False
    triggers = triggers or {}
    for row in rows:
        sources = list(dict.fromkeys(n for n in row.nodes if n))
        targets = list(dict.fromkeys(row.next))
        for node in (*sources, *targets):
            names.setdefault(node, None)
        planned = triggers.get(row.id)
        if planned is not None:
            for target, trigger in planned:
                for source in _trigger_sources(trigger):
                    names.setdefault(source, None)
                    edges.setdefault((source, target), None)
        elif len(sources) * len(targets) <= WIDE:
            for source in sources:
                for target in targets:
                    edges.setdefault((source, target), None)
        for source in sources:
            if not targets and row.source == "loop":
                edges.setdefault((source, END), None)
                ended = True
    if ended:
        names.setdefault(END, None)
    kinds: dict[str, NodeKind] = {START: "start", END: "end"}
    nodes = tuple(NodeShape(id=n, label="START" if n == START else "END" if n == END else n,
                           kind=kinds.get(n, "node")) for n in names)
    return GraphShape(name=f"{name} (from the history: no code loaded)", nodes=nodes,
                     edges=tuple(EdgeShape(source=a, target=b, kind="edge") for a, b in edges))


def with_taken_routes(view: GraphShape, taken: Iterable[tuple[str, str]]) -> GraphShape:
    """`view` plus the routes seen at run time (kind "taken"), and END when one ends the run."""
    nodes = list(view.nodes)
    ids = {n.id for n in nodes}
    edges = list(view.edges)
    have = {(e.source, e.target) for e in edges}
    for source, target in sorted(taken):
        if target not in ids:
            if target != END:
                continue
            nodes.append(NodeShape(id=END, label="END", kind="end"))
            ids.add(END)
        if (source, target) not in have and source in ids:
            edges.append(EdgeShape(source=source, target=target, kind="taken"))
            have.add((source, target))
    return GraphShape(name=view.name, nodes=tuple(nodes), edges=tuple(edges))


def observed_details(view: GraphShape, name: str, *, values: Mapping[str, Any], due: bool,
                     failed: bool) -> NodeDetails:
    """A node as a recorded history shows it (no code loaded): its edges in the observed
    graph and, for a node due next or one that failed, the state it read."""
    incoming = tuple(e.source for e in view.edges if e.target == name)
    outgoing = tuple(e.target for e in view.edges if e.source == name)
    where = "failed at this checkpoint" if failed else "due next" if due else ""
    return NodeDetails(
        name=name, incoming=incoming, outgoing=outgoing,
        source="# No code loaded (post-mortem).\n# To see it, fix it and retry:\n"
               "#   retrograph open DB \\\n#     --graph FILE.py",
        last_input=dict(values) if due or failed else UNSET,
        extra={"in this history": where} if where else {})


def diff_from_commit(event: StepCommitted, dropped: Mapping[str, Sequence[tuple[str, Any]]] = {}) -> StepDiff:
    """The exact diff of a committed superstep; `dropped` maps node -> [(key, value)]
    of keys it returned that the schema does not have."""
    edited = getattr(event, "source", "loop") == "update"
    if event.diffs and {d.key for d in event.diffs} <= ENTRY_CHANNELS:  # an @entrypoint: what it returned
        end = next((d for d in event.diffs if d.key == "__end__"), None)
        if end is not None:
            nodes = tuple(dict.fromkeys(w.node for w in end.writes))
            before = shown_values({"__end__": None if end.before is MISSING else end.before})
            after = shown_values({"__end__": None if end.after is MISSING else end.after})
            # what it returns replaces what it returned last (not a reducer unknown for want of code)
            kept = {key: end.reducer or "last value" for key in (*before, *after)}
            return diff_from_values(step=event.step, checkpoint_id=event.checkpoint_id, before=before, after=after,
                                    nodes=nodes, reducers=kept, source=getattr(event, "source", "loop"))
    rows = [
        DiffRow(key=d.key, reducer=d.reducer, before=plain(d.before),
                writes=tuple(DiffWrite(node=_edit_label(w.node) if edited else w.node, value=w.value)
                             for w in d.writes), after=plain(d.after))
        for d in event.diffs
    ]
    for node, items in dropped.items():
        for key, value in items:
            rows.append(DiffRow(key=key, reducer="(not in the schema)", before=UNSET,
                                writes=(DiffWrite(node=node, value=value),), after=UNSET, dropped=True))
    return StepDiff(step=event.step, checkpoint_id=event.checkpoint_id, rows=tuple(rows))


def _edit_label(as_node: str | None) -> str:
    """How an edit's write is named in a diff: an edit, never a node's own write."""
    return f"edited (update, as {as_node})" if as_node and as_node not in ("?", START) else "edited (update)"


def diff_from_values(
    *, step: int, checkpoint_id: str, before: Mapping[str, Any] | None, after: Mapping[str, Any],
    nodes: Sequence[str] = (), reducers: Mapping[str, str] | None = None, source: str = "loop",
) -> StepDiff:
    """A diff worked out from two checkpoints' values (the writes were not kept).

    A list that grew by appending shows its new items as one write by `nodes`; other
    changed keys show before -> after with no write detail.
    """
    before = before or {}
    reducers = reducers or {}
    writer = "+".join(nodes) if nodes else "?"
    if source == "update":
        writer = _edit_label("+".join(nodes) if nodes else None)
    rows = []
    for key in list(after) + [k for k in before if k not in after]:
        old, new = before.get(key, UNSET), after.get(key, UNSET)
        if same(old, new):
            continue
        writes: tuple[DiffWrite, ...] = ()
        if isinstance(old, list) and isinstance(new, list) and len(new) >= len(old) and same(new[: len(old)], old):
            writes = (DiffWrite(node=writer, value=new[len(old):]),)
        elif new is not UNSET:
            writes = (DiffWrite(node=writer, value=new),)
        rows.append(DiffRow(key=key, reducer=reducers.get(key, ""), before=old, writes=writes, after=new))
    return StepDiff(step=step, checkpoint_id=checkpoint_id, rows=tuple(rows))


def timeline_row(header: Any) -> TimelineRow:
    """A CheckpointHeader (or Checkpoint) as a timeline row. A fork is the engine's copy
    of an older checkpoint that starts a branch: no node ran to make it, so it lists none
    (its stored `nodes_ran` are the copied checkpoint's, which did not run again)."""
    return TimelineRow(
        id=header.id, parent_id=header.parent_id, step=header.step, source=header.source,
        nodes=() if header.source == "fork" else tuple(header.nodes_ran), next=tuple(header.next),
        created_at=str(header.created_at), namespace=split_thread_key(str(getattr(header, "thread_id", "") or ""))[1],
        owner=getattr(header, "owner_id", None),
    )


_SAVED = {
    "input": "input",
    "update": "state edited",
    "fork": "forked from an earlier checkpoint",
}


def history_events(rows: Sequence[TimelineRow], *, more_before: bool = False) -> list[EventRow]:
    """Events read back from a thread's history (a run recorded earlier): one per
    checkpoint, with the nodes that made it, its source and the time it was saved."""
    out: list[EventRow] = []
    if more_before:
        out.append(EventRow(kind="run", step=rows[0].step if rows else 0, node="",
                            text="older checkpoints are listed in the Timeline"))
    for row in rows:
        ran = [n for n in row.nodes if n]
        nxt = ", ".join(row.next)
        if row.source == "loop":
            what = f"{'+'.join(ran) or 'nothing'} ran"
        else:
            what = _SAVED.get(row.source, row.source)
            if row.source == "update" and ran:
                what += f" as {', '.join(ran)}"
        what += f" → next: {nxt}" if nxt else " → the run ended"
        if row.source == "input":
            what = what.removeprefix("input → ")  # the badge says "input"
        out.append(EventRow(kind=row.source, step=row.step, node="+".join(ran), text=what,
                            checkpoint_id=row.id, at=clock(row.created_at)))
    return out


def pending_events(step: int, pending: Iterable[Any], *, error_channel: str, interrupt_channel: str) -> list[EventRow]:
    """The errors and interrupts saved beside a checkpoint (its unfinished superstep)."""
    out: list[EventRow] = []
    for w in pending:
        if w.channel == error_channel:
            info = w.value if isinstance(w.value, Mapping) else {"message": str(w.value)}
            out.append(EventRow(kind="error", step=step, node=w.task_name,
                                text=f"{w.task_name} raised {info.get('type', 'an error')}: {info.get('message', '')}",
                                traceback=str(info.get("traceback", ""))))
        elif w.channel == interrupt_channel:
            value = getattr(w.value, "value", w.value)
            out.append(EventRow(kind="interrupt", step=step, node=w.task_name,
                                text=f"{w.task_name} asked: {short(value, 60)}"))
    return out


def event_row(event: RunEvent, at: str = "") -> EventRow | None:
    """One line of the events panel, or None for events the panel does not list."""
    row = _event_row(event)
    return replace(row, at=at) if row is not None and at else row


def _event_row(event: RunEvent) -> EventRow | None:
    step = event.step
    if isinstance(event, TaskStarted):
        return EventRow(kind="start", step=step, node=event.name, text=f"{event.name} started ({event.trigger})")
    if isinstance(event, TaskFinished):
        keys = ", ".join(k for k, _ in event.writes) or "nothing"
        extra = " (replayed from saved writes)" if event.replayed else \
            " (cached: the node was not called)" if getattr(event, "cached", False) else ""
        text = f"{event.name} wrote {keys}{extra}"
        if event.dropped_keys:
            text += f"; dropped {', '.join(event.dropped_keys)} (not in the schema)"
        return EventRow(kind="finish", step=step, node=event.name, text=text, duration_s=event.duration_s)
    if isinstance(event, TaskFailed):
        target = handoff_to(event.error)
        if target is not None:  # Command(graph=Command.PARENT): control flow, not an error
            return EventRow(kind="handoff", step=step, node=event.name, duration_s=event.duration_s,
                            text=f"{event.name} handed off to {target} (Command.PARENT)")
        return EventRow(kind="error", step=step, node=event.name, duration_s=event.duration_s,
                        text=f"{event.name} raised {type(event.error).__name__}: {event.error}",
                        traceback=event.traceback)
    if isinstance(event, TaskInterrupted):
        values = "; ".join(short(i.value, 60) for i in event.interrupts)
        return EventRow(kind="interrupt", step=step, node=event.name, duration_s=event.duration_s,
                        text=f"{event.name} asked: {values}")
    if isinstance(event, StepCommitted):
        keys = ", ".join(d.key for d in event.diffs) or "no keys"
        nxt = ", ".join(t.name for t in event.next) or "END"
        how = "" if event.source == "loop" else f" ({event.source})"
        waiting = getattr(event, "waiting", ())
        wait = f"; waiting: {', '.join(waiting)} (deferred)" if waiting else ""
        return EventRow(kind="commit", step=step, node="+".join(event.nodes_ran), checkpoint_id=event.checkpoint_id,
                        text=f"committed{how}: {keys} changed → next: {nxt}{wait}")
    if isinstance(event, RunInterrupted):
        why = {"interrupt": "interrupt()", "before": "interrupt_before", "after": "interrupt_after"}
        return EventRow(kind="interrupt", step=step, node="+".join(event.nodes), checkpoint_id=event.checkpoint_id,
                        text=f"paused by {why.get(event.reason, event.reason)} at {', '.join(event.nodes)}")
    if isinstance(event, RunStarted):
        return EventRow(kind="run", step=step, node="", checkpoint_id=event.checkpoint_id or None,
                        text=f"run started ({event.mode}) on thread {event.thread_id}")
    if isinstance(event, RunFinished):
        text = f"run {event.status}"
        if event.error is not None:
            text += f": {type(event.error).__name__}: {event.error}"
        return EventRow(kind="run", step=step, node="", checkpoint_id=event.checkpoint_id, text=text)
    if isinstance(event, CustomData):
        return EventRow(kind="custom", step=step, node=event.name, text=short(event.payload, 120))
    return None


def interrupt_views(interrupts: Iterable[tuple[str, Any]]) -> tuple[InterruptInfo, ...]:
    """(node, Interrupt) pairs -> views."""
    return tuple(InterruptInfo(interrupt_id=i.id, node=node, value=i.value) for node, i in interrupts)


def user_callable(fn: Any, depth: int = 6) -> Any:
    """The function a node's wrappers end at: a RunnableCallable's (or RunnableLambda's)
    `func`/`afunc` (an agent library's nodes, create_agent's middleware hooks), a partial's
    `func`; None when `fn` is no such wrapper (its own source is then shown)."""
    found = None
    for _ in range(depth):
        inner = None
        if isinstance(fn, functools.partial):
            inner = fn.func
        elif not (inspect.isfunction(fn) or inspect.ismethod(fn)):
            inner = getattr(fn, "func", None) or getattr(fn, "afunc", None)
        if inner is None or not callable(inner):
            return found
        found = fn = inner
    return found


def node_details(compiled: Any, nxg: Any, name: str, *, last_input: Any = UNSET, last_output: Any = UNSET,
                 extra: Mapping[str, Any] | None = None) -> NodeDetails:
    """A node's source code, edges, and what it last read and returned."""
    fn = getattr(compiled.nodes.get(name), "bound", None) if compiled is not None else None
    source, file, line = "", None, None
    if fn is not None:
        target = fn if inspect.isfunction(fn) or inspect.ismethod(fn) else getattr(fn, "__call__", fn)
        entry = entry_source(compiled, name)
        if entry is not None:  # an @entrypoint: the user's function and its tasks, not the engine's wrapper
            source, file, line = entry
        elif is_subgraph(fn):
            inner = getattr(fn, "node_names", ())
            source = f"# compiled subgraph `{getattr(fn, 'name', name)}` with nodes: {', '.join(inner)}"
        elif (agent := subgraph_in_closure(user_callable(fn))) is not None:  # a supervisor's expert: its agent
            inner = getattr(agent, "node_names", ())
            source = (f"# runs the compiled graph `{getattr(agent, 'name', name)}` with nodes: {', '.join(inner)}"
                      "\n# (F11 steps into it)")
        else:
            target = user_callable(fn) or target
            try:
                lines, line = inspect.getsourcelines(inspect.unwrap(target))
                source = "".join(lines)
                file = inspect.getsourcefile(inspect.unwrap(target))
            except (OSError, TypeError):
                source = f"# source not available for {short(fn)}"
    elif name in (START, END):
        source = "# the graph's virtual entry point" if name == START else "# the graph's virtual exit"
    incoming: tuple[str, ...] = ()
    outgoing: tuple[str, ...] = ()
    if nxg is not None and name in nxg:
        incoming = tuple(str(n) for n in nxg.predecessors(name))
        outgoing = tuple(str(n) for n in nxg.successors(name))
    return NodeDetails(name=name, source=source, file=file, line=line, incoming=incoming, outgoing=outgoing,
                       last_input=last_input, last_output=last_output, extra=dict(extra or {}))
