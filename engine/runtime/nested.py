"""Running a compiled graph inside a task of another graph, as a child Run.

Two ways in, one child: a compiled graph added as a node (`run_subgraph`), and a graph
invoked from inside a node function (`nested_run`, called by invoke/stream when a task is
running). The child saves its checkpoints in the parent's store under its own namespace
(LangGraph's "node:task_id" form), so a resume continues inside it: its finished nodes
never run again. A graph compiled with `checkpointer=True` keeps one namespace per node
(no task id), so its state lives on across calls; `checkpointer=False` saves nothing.

The child's events flow to the parent's listeners with a `namespace` naming the node
path, so a debugger can show the inner steps; a `gate` (a coroutine the debugger
supplies) is awaited before each inner move, which is how "step into" works. Without a
gate the child runs at full speed, as invoke() would run it.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..checkpoint.base import ns_thread_key
from ..constants import READ_KEY, SEND_KEY
from ..errors import GraphInterrupt, ParentCommand
from ..types import Command
from .context import current_task
from .home_gate import GatedMoves, child_gate
from .options import Gate, RunOptions
from .time_travel import NO_RESUME, Replay, checkpoint_before

if TYPE_CHECKING:
    from ..checkpoint.base import PlannedTask
    from .context import TaskContext
    from .protocols import RunHandle

__all__ = ["run_subgraph", "nested_run", "Gate", "ParentCommand", "task_namespace", "stateful_namespace",
           "node_of_segment"]



_TASK_ID = re.compile(r":[^|]*")


def task_namespace(parent_ns: str, name: str, task_id: str) -> str:
    """The checkpoint namespace of a task: its parent's, then "name:task_id"."""
    own = f"{name}:{task_id}"
    return f"{parent_ns}|{own}" if parent_ns else own


def stateful_namespace(ns: str) -> str:
    """The namespace of a `checkpointer=True` graph: the task ids dropped, so that every
    call from the same node finds the same history."""
    return _TASK_ID.sub("", ns)


def node_of_segment(segment: str) -> str:
    """The node name of one "name:task_id" segment of a namespace."""
    return segment.split(":", 1)[0]


def _child_saver(parent: RunHandle, graph: Any) -> Any:
    mode = getattr(graph, "persistence", None)
    if mode is False or parent.thread_id is None:
        return None
    if graph.checkpointer is not None:
        return graph.checkpointer
    saver = parent.saver
    serde = getattr(saver, "serde", None)
    if serde is not None and hasattr(serde, "register"):
        done = graph.__dict__.setdefault("_types_registered_on", set())
        if id(serde) not in done:  # the child's state types, known to the parent's store
            serde.register(*graph.schema.registrable_types())
            done.add(id(serde))
    return saver


def open_child(parent: RunHandle, ctx: TaskContext, graph: Any, input: Any, *, inline_sync: bool,
               given: Mapping[str, Any] | None = None, gate: Gate | None = None) -> RunHandle:
    """The child Run of `graph` for the task `ctx` of `parent`: its namespace, its store,
    and whether it continues its own unfinished history (the parent is resuming).
    `given`: the config the node passed to invoke/stream, merged over the task's."""
    ns = task_namespace(parent.checkpoint_ns, ctx.name, ctx.task_id)
    if ctx.children:
        ns = f"{ns}|{ctx.children}"
    ctx.children += 1
    stateful = getattr(graph, "persistence", None) is True
    if stateful:
        ns = stateful_namespace(ns)
    saver = _child_saver(parent, graph)
    outer = ctx.config  # the task's config: it carries the task's callbacks
    configurable = {k: v for k, v in (outer.get("configurable") or {}).items()
                    if k not in ("checkpoint_id", "checkpoint_map", READ_KEY, SEND_KEY)}  # read/send: the outer task's
    configurable["checkpoint_ns"] = ns
    config = {k: v for k, v in outer.items() if k not in ("configurable", "recursion_limit")}
    for key, value in (given or {}).items():
        if key == "configurable":
            configurable.update({k: v for k, v in (value or {}).items()
                                 if k not in ("checkpoint_ns", "thread_id", "checkpoint_id", "checkpoint_map")})
        elif key == "metadata":  # merged over the task's, key by key, as LangGraph merges the ambient config's
            config["metadata"] = {**(config.get("metadata") or {}), **(value or {})}
        else:
            config[key] = value
    config["configurable"] = configurable
    options = parent.options
    replay = options.replay
    input, fresh = _where_child_starts(parent, ctx, saver, ns, input, configurable, fresh=not stateful)
    # a recording (or a recorded replay) records inside too
    record = options.record or options.answers is not None
    parents = None
    if saver is not None:
        assert parent.checkpoint is not None
        parents = {**(options.parents or {}), parent.checkpoint_ns: parent.checkpoint.id}
    child: RunHandle = graph.new_run(input, config, inline_sync=inline_sync, checkpointer=saver, checkpoint_ns=ns,
                               durability=parent.durability, options=RunOptions(
                                   fresh=fresh, record=record, replay=replay if saver is not None else None,
                                   parents=parents, gate=gate, control=options.control,
                                   keep_loop_free=options.keep_loop_free))
    child.namespace = parent.namespace + (ctx.name,)
    if parent.__dict__.get("sync_api"):  # a subgraph of an invoke()/stream() run is one too
        child.__dict__["sync_api"] = True
    for_child = getattr(options.answers, "for_child", None)
    if for_child is not None:  # a recorded replay answers the subgraph's nodes from its records
        child.set_options(answers=for_child(ctx, child))
    return child


def _where_child_starts(parent: RunHandle, ctx: TaskContext, saver: Any, ns: str, input: Any,
                        configurable: dict[str, Any], *, fresh: bool) -> tuple[Any, bool]:
    """(the child's input, whether it starts a fresh history): the subgraph's checkpoint the
    caller named, its state as of a replayed parent checkpoint, or, when the parent
    resumes, its own unfinished history; `configurable` gets the checkpoint id it starts at."""
    if saver is None:
        return input, fresh
    options = parent.options
    replay = options.replay
    if replay is not None and ns in replay.targets:  # the caller named this subgraph's checkpoint
        configurable["checkpoint_id"] = replay.targets.pop(ns)
        input = _resume_input(ctx, replay)
    elif replay is not None and replay.bound is not None and replay.first_visit(ns):
        found = checkpoint_before(saver, ns_thread_key(parent.thread_id or "", ns), replay.bound)
        fresh = found is None  # its state as of the replayed parent checkpoint, else empty
        if found is not None:
            configurable["checkpoint_id"] = found.id
    elif options.resuming:
        latest = saver.load(ns_thread_key(parent.thread_id or "", ns))
        # unfinished: continue it, not the input. In the superstep the parent resumed,
        # a finished one continues too (as LangGraph): its nodes do not run again and
        # the task gets its state as it is (an update_state on it included)
        if latest is not None and latest.tasks:
            input = _resume_input(ctx, None)
        elif latest is not None and parent.step + 1 == parent.first_step:
            input = None  # nothing in it waits for the resume value: the node keeps it
    return input, fresh


def _resume_input(ctx: TaskContext, replay: Replay | None) -> Command[Any] | None:
    """What a subgraph that continues an unfinished checkpoint gets: the resume value meant
    for it (the newest one this run gave its task: earlier ones answered earlier interrupts
    inside it, and a task given none asks again), else the run's own resume value when the
    caller named the subgraph's checkpoint."""
    if ctx.resume_map:
        return Command(resume=dict(ctx.resume_map))
    if ctx.calls < len(ctx.resume):
        ctx.calls = len(ctx.resume)
        # only a value this run gave the task: the answers it took before are the
        # subgraph's own history already (its pending interrupt is asked again)
        fresh = ctx.run is not None and ctx.run.gave_resume(ctx.task_id)
        return Command(resume=ctx.resume[-1]) if fresh else None
    if replay is not None and replay.resume is not NO_RESUME:
        value, replay.resume = replay.resume, NO_RESUME
        return Command(resume=value)
    return None


def _outcome(child: RunHandle, name: str, graph: Any, keys: Any) -> Any:
    """What the task gets from its child: the output state, or the child's stop raised."""
    if child.status == "failed" and isinstance(child.error, ParentCommand):
        return child.error.command
    if child.status == "failed" and child.error is not None:
        raise child.error
    if child.status == "interrupted":
        # the pause belongs to the parent's task too; on resume the child continues
        raise GraphInterrupt(child.interrupts)
    if child.status == "cancelled":
        raise RuntimeError(f"the subgraph `{name}` was cancelled")
    out = graph.schema.output(child.values)
    if keys is not None:  # the node's update carries only the parent's keys
        out = {k: v for k, v in out.items() if k in keys}
    return out


async def run_subgraph(parent: RunHandle, subgraph: Any, task: PlannedTask, state: Any) -> Any:
    """Run `subgraph` on `state` as a child of `parent`'s task; returns its output state."""
    ctx = current_task.get()
    assert ctx is not None and ctx.run is parent
    # its sync nodes run on the caller's thread only when nothing runs beside it
    gate = child_gate(parent)
    child = open_child(parent, ctx, subgraph, state, inline_sync=parent.inline_sync and len(parent.plan) == 1,
                       gate=gate)
    if parent.listening:
        child.subscribe(parent.forward)
    await child.drive(None if gate is None else GatedMoves(gate))
    return _outcome(child, task.name, subgraph, parent.graph.schema.channels)


def nested_run(graph: Any, input: Any, config: Mapping[str, Any] | None, inline_sync: bool) -> RunHandle | None:
    """When called from inside a running task (graph.invoke inside a node): the child Run
    of that task, with the caller's config merged in; else None."""
    ctx = current_task.get()
    parent = ctx.run if ctx is not None else None
    if ctx is None or parent is None or parent.status != "ready" or graph.checkpointer is not None:
        return None  # not inside a node, or a graph with a store of its own: a run of its own
    # a debugger stepping into the task steps into the graph it invokes too (from any loop)
    child = open_child(parent, ctx, graph, input, inline_sync=inline_sync, given=config, gate=child_gate(parent))
    if parent.listening:
        child.subscribe(parent.forward)
    return child


def nested_outcome(child: RunHandle, graph: Any) -> Any:
    """How a nested invoke ends for the node that called it: an interrupt or a breakpoint
    pauses the parent's task, a Command for the parent goes up, an error propagates."""
    if child.status == "interrupted":
        raise GraphInterrupt(child.interrupts)
    if child.status == "failed" and child.error is not None:
        raise child.error
    return None
