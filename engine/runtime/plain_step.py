"""A plain one-task superstep in one function: call, route, fold, plan, commit.

Most supersteps of a loop or a chain are one plain sync node (it takes the state alone)
returning a dict of state keys, followed by its edges or one router. `plain_superstep`
makes such a superstep with the moves `lone_superstep` (lone_step.py) makes through
`execute_inline`, `conclude`, `route_output`, `Run.keep_result` and `Run.commit`, spelt
out in one place for this one shape: the same TaskContext for interrupt() and the stream
writer, the same TaskResult kept on the run, the same Checkpoint saved, the same
StepCommitted for a listener, `after_commit` itself. Whatever is not that shape goes the
general way from the point where it shows:

- before the call (`plain_way`): a Send's task, a node that wants more than the state,
  a graph with managed or transient keys, joins, deferred nodes, delta or run-only keys,
  a run with a tracer, a recording or recorded replay, metadata, resume values, task
  events or diffs to report: `lone_superstep` runs the task as before;
- after the call: an error, an interrupt, or an output that is not a plain dict (None, a
  Command, a list of updates, writes pushed while it ran): the output is concluded by
  `conclude` (which routes it the general way) and `lone_superstep` goes on with it;
- a router's answer that is not one known node name: resolved by `resolve_targets`.

Proven equal to the general path by tests/test_plain_superstep_same_as_the_general_one.py
(`PLAIN` on and off: every chunk, output and checkpoint of many graphs compared).
"""
from __future__ import annotations

import asyncio
import inspect
import traceback as tb
from dataclasses import fields
from time import perf_counter
from typing import TYPE_CHECKING, Any

from ..channels import Applied, LastValue
from ..checkpoint.base import Checkpoint, PlannedTask, now_iso
from ..constants import END
from ..types import Overwrite
from .commit import after_commit
from .context import TaskContext, current_task
from .events import StepCommitted
from .folding import fold_writes
from .execute import call_inline, raised_cancel, conclude, node_exit
from .head import save_checkpoint
from .planning import next_plan
from .task import TaskResult, apply_own_writes, await_router, resolve_targets
from .task_outcome import derivable, task_writes
from .workers import NODE_EXITS

if TYPE_CHECKING:
    from ..checkpoint.base import PlannedTask as _Task
    from .protocols import RunHandle
    from .task import NodeRunner

__all__ = ["PLAIN", "INLINE", "ON_LOOP", "plain_way", "plain_superstep", "plain_graph"]

_get_running_loop = asyncio._get_running_loop  # (as sync_code.call_as_sync hides the running loop)
_set_running_loop = asyncio._set_running_loop

PLAIN = True
"""Whether `lone_superstep` makes a plain superstep with `plain_superstep` (False: always
the general moves; the tests that compare both ways set it)."""


def plain_graph(graph: Any) -> bool:
    """Whether the graph's shape allows plain supersteps at all (read once per graph):
    no root channel, managed, transient, delta or run-only keys, joins or deferred nodes."""
    known = graph.__dict__.get("_plain_steps")
    if known is None:
        schema = graph.schema
        known = not (schema.root or schema.managed or schema.transient_keys or schema.delta_keys
                     or schema.unsaved_keys or graph.joins or graph.deferred)
        graph.__dict__["_plain_steps"] = known
    return bool(known)


INLINE, ON_LOOP = 1, 2
"""How `plain_way` says the lone task is called: on invoke's own thread, or on the loop's
(the async API's quick sync node, execute.call_inline)."""


def plain_way(run: RunHandle, runner: NodeRunner, task: _Task) -> int:
    """How the lone task of a runner with `NodeRunner.plain_step` can be made by
    `plain_superstep` (see the module's text): INLINE (what `runs_inline` allows), ON_LOOP
    (what `runs_on_loop` allows), or 0: the general way. What the run's graph, config and
    options allow is read once per options object (`Run.set_options` makes a new one)."""
    options = run.options
    cached = run.__dict__.get("plain_for")
    if cached is None or cached[0] is not options:
        graph = run.graph
        plain = (PLAIN and plain_graph(graph) and run.tracer is None and options.answers is None
                 and not options.record and not options.parents and not run.config.get("metadata"))
        on_loop = (plain and not options.keep_loop_free and graph.step_timeout is None
                   and not hasattr(graph, "input_node"))  # (runs_on_loop's own tests)
        cached = run.__dict__["plain_for"] = (options, plain, on_loop)
    if not cached[1] or task.is_send or task.timeout is not None or run.task_events or run.wants_diffs:
        return 0
    resumes = run.resumes
    if resumes.by_task or resumes.by_interrupt:
        return 0
    if run.inline_sync:
        return INLINE
    return ON_LOOP if runner.quick and cached[2] else 0


def plain_superstep(run: RunHandle, task: PlannedTask, runner: NodeRunner, chunks: Any,
                    on_loop: bool = False) -> TaskResult | None:
    """Make the plain superstep of `task` (see the module's text). Returns None when it is
    made (committed, or kept for the chunks waiting to go out first, as `lone_superstep`
    keeps it); else the task's TaskResult, not kept yet, for `lone_superstep` to go on with."""
    graph = run.graph
    schema = graph.schema
    values = run.values
    state = dict(values) if schema.input_is_copy else schema.node_input(values)
    ctx = TaskContext(task.id, task.name, run.config, None, None, current_task.get(), run)
    started = perf_counter()
    token = current_task.set(ctx)
    output: Any = None
    try:
        if on_loop:
            output = call_inline(run, runner, state, ctx)
        elif (loop := _get_running_loop()) is None:
            output = runner.fn(state)
        else:  # (call_as_sync, without its call: no running loop visible while the node runs)
            _set_running_loop(None)
            try:
                output = runner.fn(state)
            finally:
                _set_running_loop(loop)
    except asyncio.CancelledError as exc:
        error, trace = raised_cancel(task, exc)
        return conclude(run, task, runner, ctx, None, error, trace, started)
    except Exception as exc:  # the node's own error: kept and reported unchanged
        return conclude(run, task, runner, ctx, None, exc, tb.format_exc(), started)
    except NODE_EXITS as exc:  # sys.exit(), KeyboardInterrupt, GeneratorExit raised by the node
        return conclude(run, task, runner, ctx, None, node_exit(task.name, exc), tb.format_exc(), started)
    finally:
        current_task.reset(token)
    channels = schema.channels
    plain = type(output) is dict and not ctx.pushed
    if plain:
        for key in output:  # (output.keys() <= channels.keys(), without two views)
            if key not in channels:
                plain = False
                break
    if not plain:
        return conclude(run, task, runner, ctx, output, None, "", started)  # routed the general way
    result = _routed(run, runner, task, output, values, channels)
    result.resume = ctx.resume
    result.duration_s = perf_counter() - started
    if result.error is not None:
        return result
    try:  # (record_result of a task that ended well, durable=False, no task events)
        run.results[task.id] = result
        if run.saver is not None and run.checkpoint is not None and run.thread_id is not None:
            if not derivable(result.writes, schema.plain_keys):
                run.save_writes(task_writes(result))
            elif not run.inline_sync:
                run.unsaved_result = result
        if run.node_finished is not None:
            run.node_finished(task.name)
    except Exception as exc:  # the saver failed: the run ends, RunFinished last
        run.fail(exc)
        raise
    if chunks:  # they go out first: control leaves the run before the commit (lone_superstep)
        if run.unsaved_result is not None:
            run.save_unsaved()
        return None
    if run.status != "ready":
        return None
    try:
        _commit(run, result, task.name)
    except Exception as exc:
        run.fail(exc)
        raise
    return None


def _routed(run: RunHandle, runner: NodeRunner, task: PlannedTask, output: dict[str, Any],
            values: dict[str, Any], channels: Any) -> TaskResult:
    """The TaskResult of a plain dict of known keys: `route_output`'s first case
    (`normalize_update`'s) and `_branch_routes` of at most one router taking the state
    alone. A router's or an update's error is the task's, as `conclude` reports it."""
    writes = list(output.items())
    result = TaskResult(task, writes)
    result.update = output
    if runner.edge_routes:
        result.routes += runner.edge_routes
    if not runner.branches:
        return result
    try:
        if len(writes) == 1 and type(channels[writes[0][0]]) is LastValue and type(writes[0][1]) is not Overwrite:
            key, value = writes[0]  # (apply_own_writes of one plain key's write: LastValue.apply keeps it)
            view = dict(values)
            view[key] = value
            result.applied = {key: Applied(value)}
        else:
            view, result.applied = apply_own_writes(values, writes, channels)
        result.folded, result.folded_on = view, values
        branch = runner.branches[0][0]
        schema = run.graph.schema
        raw = branch.router(dict(view) if schema.input_is_copy else schema.node_input(view))
        if type(raw) is str:  # (resolve_targets' first case: one known node or END)
            path_map = branch.path_map
            target = raw if path_map is None else path_map.get(raw)
            if type(target) is str and (target == END or target in run.graph.node_set):
                result.routes.append((target, runner.branch_why))
                return result
        elif inspect.isawaitable(raw):
            raw = await_router(branch, raw)
        names, sends = resolve_targets(branch, raw, run.graph.node_set)
        why = runner.branch_why
        result.routes += [(n, why) for n in names]
        if sends:
            result.sends += sends
    except Exception as exc:  # reported as the node's (as conclude does)
        result.error, result.traceback = exc, tb.format_exc()
        result.writes, result.routes, result.sends = [], [], []
    return result


_new = object.__new__
_set = object.__setattr__
_TASK_FIELDS = ("id", "name", "trigger", "is_send", "arg", "timeout")
_CHECKPOINT_FIELDS = ("id", "thread_id", "parent_id", "step", "source", "created_at", "values", "versions",
                      "barriers", "tasks", "nodes_ran", "metadata")
assert tuple(f.name for f in fields(PlannedTask)) == _TASK_FIELDS  # what `_commit` builds them with
assert tuple(f.name for f in fields(Checkpoint)) == _CHECKPOINT_FIELDS


def _folded(run: RunHandle, result: TaskResult, parent: Checkpoint, cid: str
            ) -> tuple[dict[str, Any], dict[str, str], Any, tuple[str, ...]]:
    """`fold_writes` of the one plain task's result: the new values, versions, appended
    lists and written keys (its router's folded state, when it has one, kept as it is)."""
    values = run.values
    applied = result.applied
    if not (applied and result.folded_on is values):  # no router folded the writes
        new_values, versions, _, parts, wrote = fold_writes(
            run.graph.schema.channels, values, parent.versions, cid, [result], False, ())
        return new_values, versions, parts, wrote
    folded = result.folded  # (fold_writes' _fold_folded: the router's state kept)
    assert folded is not None
    versions = dict(parent.versions)
    appended: Any = {}
    for key, one in applied.items():
        previous_version = versions.get(key)
        versions[key] = cid
        if one.appended is not None and previous_version is not None:
            appended[key] = (previous_version, one.appended)
    for key in folded:  # a reducer's empty value never stored yet gets a version
        if key not in versions:
            versions[key] = cid
    return folded, versions, appended, tuple(applied)


def _commit(run: RunHandle, result: TaskResult, name: str) -> None:
    """`commit_superstep` of the one plain task's result (its router's folded state, when
    it has one, becomes the new state as it is); then `set_checkpoint` and `after_commit`,
    spelt out for what they do after a plain superstep. Its PlannedTask and Checkpoint are
    made with the instance dict their `__init__` (fast_init.py) would set, every field in
    it, without the class call."""
    graph = run.graph
    parent = run.checkpoint
    assert parent is not None
    cid = run.next_checkpoint_id()
    new_values, versions, appended, wrote = _folded(run, result, parent, cid)
    barriers = dict(parent.barriers) if parent.barriers else {}
    routes = result.routes
    plan: tuple[PlannedTask, ...]
    if len(routes) == 1 and not result.sends:  # (next_plan's common case)
        target, why = routes[0]
        if target == END:
            plan = ()
        else:
            task = _new(PlannedTask)  # (PlannedTask(id=new_task_id(cid, 0), name=target, trigger=why))
            _set(task, "__dict__", {"id": f"{cid}/0", "name": target, "trigger": why, "is_send": False,
                                    "arg": None, "timeout": None})
            plan = (task,)
    else:
        plan = next_plan(graph, cid, [result], barriers)
    nodes_ran = (name,)
    ckpt = _new(Checkpoint)
    _set(ckpt, "__dict__", {
        "id": cid, "thread_id": run.store_key, "parent_id": parent.id or None, "step": parent.step + 1,
        "source": "loop", "created_at": now_iso() if run.durable_ids else "", "values": new_values,
        "versions": versions, "barriers": barriers, "tasks": plan, "nodes_ran": nodes_ran, "metadata": {},
    })
    saver = run.saver
    if saver is not None:
        if run.held is None:  # (save_checkpoint's last move: a plain graph has no delta nor run-only keys)
            saver.save(ckpt, appended=appended or None)
        else:
            ckpt = save_checkpoint(run, ckpt, appended=appended)
    run.checkpoint = ckpt  # (set_checkpoint(run, ckpt, owned=True))
    run.values = ckpt.values  # type: ignore[assignment]
    run.plan = ckpt.tasks
    run.results = {}
    run.unsaved_result = None
    resumes = run.resumes
    if resumes.by_task or resumes.by_interrupt:
        resumes.forget_answers()
    if run.listening and (run.values_sink is None or not run.values_sink(run.namespace, new_values, wrote)):
        run.emit(StepCommitted(
            run_id=run.run_id, thread_id=run.thread_id, step=ckpt.step, namespace=run.namespace,
            checkpoint_ns=run.checkpoint_ns, checkpoint_id=cid, parent_id=parent.id or None, source="loop",
            diffs=(), next=plan, nodes_ran=nodes_ran, values=new_values, waiting=(), barriers=barriers,
            wrote=wrote,
        ))
    if (plan and ckpt.step - run.first_step < run.recursion_limit and not run.interrupt_after
            and not run.interrupt_before and run.options.control is None):
        return  # (what after_commit finds: nothing to do)
    after_commit(run, nodes_ran)
