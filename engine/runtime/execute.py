"""Executing tasks: one node's call against the superstep's snapshot, and a superstep's
tasks run together (concurrently, or a fan-out of plain sync nodes on a few workers).

`execute()` prepares a task (its input view, its context for interrupt() and the stream
writer), answers it from a recorded replay or the cache when it can, calls the node (its
retry policy and timeout), and turns what it returned or raised into a `TaskResult`
(`conclude`, `route_output`: writes, routes and sends). Nothing is applied here: the
Run records the result and commits the superstep (commit.py).
"""
from __future__ import annotations

import asyncio
import contextvars
import time
import traceback as tb
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..constants import END, START
from ..errors import GraphInterrupt, InvalidRouteError, InvalidUpdateError, NodeCancelledError, NodeExitError
from ..types import Command, Interrupt, Send
from .caching import cache_key
from .channel_access import with_channel_access
from .context import TaskContext, current_task
from .events import TaskStarted
from .task_metadata import user_metadata
from .nested import ParentCommand, run_subgraph, task_namespace
from .progress import unwatch_callbacks, watch_callbacks
from .task import NodeRunner, TaskResult, apply_own_writes, call_router, normalize_update
from .sync_code import as_sync_code, call_as_sync
from .timeouts import run_timed
from .tracing import concluded
from .workers import NODE_EXITS, WORKERS, Exited, carried

if TYPE_CHECKING:
    from ..checkpoint.base import PlannedTask
    from .protocols import RunHandle

__all__ = ["execute", "execute_inline", "call_inline", "raised_cancel", "conclude", "node_exit", "runs_inline", "runs_on_loop", "may_run_on_loop", "QUICK_S", "run_concurrently",
           "route_output", "NOT_ANSWERED", "HANDLER_TRIGGER"]

NOT_ANSWERED: Any = object()
"""What `RunOptions.answers` returns for a task the records do not answer (the node runs)."""
HANDLER_TRIGGER = "error_handler:"
"""Trigger of an error handler's task: `error_handler:<the node that failed>`."""


def node_exit(node: str, exc: BaseException) -> BaseException:
    """A node's SystemExit or KeyboardInterrupt is kept as it is (invoke() raises it as the
    node did; the run and the studio show it as the node's failure); a GeneratorExit, which
    would tear down the generators it passes through, becomes a NodeExitError."""
    if isinstance(exc, GeneratorExit):
        error = NodeExitError(node, exc)
        error.__cause__ = exc
        return error
    return exc


async def gated(run: RunHandle, gate: asyncio.Semaphore, task: PlannedTask) -> TaskResult:
    async with gate:
        return await execute(run, task)


def prepare(run: RunHandle, task: PlannedTask) -> tuple[NodeRunner, TaskContext, Any]:
    """A task's runner, its context (for interrupt() and the stream writer) and input."""
    graph = run.graph
    runner: NodeRunner = graph.runners[task.name]
    schema = graph.schema
    if task.is_send:
        state = task.arg
    elif runner.input_view is not None:
        state = runner.input_view(schema.with_managed(run.values, run.step + 1, run.stop_step))
    elif schema.managed:
        state = schema.node_input(schema.with_managed(run.values, run.step + 1, run.stop_step))
    else:
        state = schema.node_input(run.values)
    config = run.config if run.tracer is None else \
        run.tracer.task_config(task, run.step + 1, state, run.thread_id, push_index(run, task))
    resumes = run.resumes
    resume_for, resume_map = resumes.by_task, resumes.by_interrupt  # empty unless resuming
    ctx = TaskContext(task.id, task.name, config, None,
                      list(resume_for.get(task.id, ())) if resume_for else None, current_task.get(), run,
                      resume_map.get(task.id) if resume_map else None)
    if runner.dressed or task.timeout is not None:
        _dress(run, runner, task, ctx)
    if run.task_events:
        run.emit(TaskStarted(**run.event_fields(), task_id=task.id, name=task.name, trigger=task.trigger,
                             input=state, metadata=user_metadata(run.config)))
    return runner, ctx, state


def _dress(run: RunHandle, runner: NodeRunner, task: PlannedTask, ctx: TaskContext) -> None:
    """What a task's context gets beyond the plain one (`NodeRunner.dressed`, or a Send's
    own timeout): its namespace and channels in its config, the error it handles, a
    heartbeat on its stream writer."""
    if runner.wants_config:  # the node sees its own task's namespace, as in LangGraph
        config = ctx.config
        ctx.config = {**config, "configurable": {**config["configurable"], "checkpoint_ns": task_namespace(
            run.checkpoint_ns, task.name, task.id)}}
    if runner.handles_errors and task.trigger.startswith(HANDLER_TRIGGER):
        ctx.node_error = task.arg
    if runner.is_runnable or runner.wants_config:  # it is given its config: with read/send of its channels
        ctx.config = with_channel_access(ctx, run)
    timeout = runner.timeout if task.timeout is None else task.timeout
    if timeout is not None and timeout.refresh_on == "auto":
        ctx.writer = with_heartbeat(ctx.writer, ctx)


def push_index(run: RunHandle, task: PlannedTask) -> int:
    """A Send task's position among the superstep's Sends (LangGraph's push path index);
    only asked for when the run reports to callbacks."""
    if not task.is_send:
        return 0
    sends = (t for t in run.plan if t.is_send)
    return next((i for i, t in enumerate(sends) if t is task), 0)


def conclude(run: RunHandle, task: PlannedTask, runner: NodeRunner, ctx: TaskContext, output: Any,
              error: BaseException | None, trace: str, started: float) -> TaskResult:
    """Turn what a node returned (or raised) into a TaskResult: writes and routes."""
    result = TaskResult(task)
    if error is not None and isinstance(error, ParentCommand):  # a graph invoked inside the node sent a Command to it
        output, error = error.command, None
    if error is None:
        try:
            route_output(run, runner, task, output, result, ctx.pushed)
        except Exception as exc:  # a router's or an update's error, reported as the node's
            error, trace = exc, tb.format_exc()
    if error is None:
        pass
    elif isinstance(error, GraphInterrupt):
        result.interrupts = tuple(i for i in error.interrupts if isinstance(i, Interrupt))
        result.paused = not result.interrupts  # a subgraph stopped at one of its breakpoints
        result.writes, result.routes, result.sends = [], [], []
    else:
        result.error, result.traceback = error, trace
        result.writes, result.routes, result.sends = [], [], []
    result.resume = ctx.resume
    result.duration_s = time.perf_counter() - started
    if run.tracer is not None:
        unwrap = getattr(run.graph.schema, "unwrap_update", None)  # an entrypoint shows its return value
        run.tracer.task_end(task, output if unwrap is None or error is not None else unwrap(output), error)
    return result


def runs_inline(run: RunHandle, runner: NodeRunner, task: PlannedTask) -> bool:
    """Whether the task is plain sync code that invoke's own loop calls on its thread (the
    superstep's only task, no retry, timeout, cache or recorded answer): `execute_inline`."""
    return (runner.inline and run.inline_sync and task.timeout is None and len(run.plan) == 1
            and run.options.answers is None)


def runs_on_loop(run: RunHandle, runner: NodeRunner, task: PlannedTask) -> bool:
    """Whether the task is plain sync code seen to be quick (`NodeRunner.quick`) that the
    async API calls on the loop (`call_node`'s `call_inline`), the superstep's only task
    with no timeout or recorded answer: `execute_inline(on_loop=True)`."""
    graph = run.graph  # (and may_run_on_loop, spelt out)
    options = run.options
    return (runner.quick and runner.inline and task.timeout is None and len(run.plan) == 1
            and options.answers is None and not options.keep_loop_free
            and graph.step_timeout is None and not hasattr(graph, "input_node"))


def execute_inline(run: RunHandle, task: PlannedTask, on_loop: bool = False) -> TaskResult:
    """`execute()` of a task that `runs_inline` (or, `on_loop`, that `runs_on_loop`): the
    node called on this thread, as plain sync code (on the loop, in a context of its own),
    and what it returned turned into a TaskResult (no coroutine on the way)."""
    runner, ctx, state = prepare(run, task)
    started = time.perf_counter()
    token = current_task.set(ctx)
    tracer = run.tracer
    lc_token = None if tracer is None else tracer.context_var.set(ctx.config)
    output: Any = None
    error: BaseException | None = None
    trace = ""
    try:
        if on_loop:
            output = call_inline(run, runner, state, ctx)
        elif runner.bare_call:  # (NodeRunner.call_sync's first case, without its call)
            output = call_as_sync(runner.fn, state)
        else:
            output = call_as_sync(runner.call_sync, state, ctx)
    except asyncio.CancelledError as exc:
        error, trace = raised_cancel(task, exc)
    except Exception as exc:  # the node's own error: kept and reported unchanged
        error, trace = exc, tb.format_exc()
    except NODE_EXITS as exc:  # sys.exit(), KeyboardInterrupt, GeneratorExit raised by the node
        error, trace = node_exit(task.name, exc), tb.format_exc()
    finally:
        current_task.reset(token)
        if lc_token is not None:
            tracer.context_var.reset(lc_token)  # type: ignore[union-attr]
    return conclude(run, task, runner, ctx, output, error, trace, started)


def raised_cancel(task: PlannedTask, exc: asyncio.CancelledError) -> tuple[BaseException, str]:
    """A CancelledError out of a node: re-raised when the task running it is being
    cancelled from outside (torn down); raised by the node itself, a failure of the node
    like any other, as in LangGraph."""
    running = asyncio.current_task()
    if running is None or running.cancelling():
        raise exc
    error = NodeCancelledError(task.name)
    error.__cause__ = exc
    return error, tb.format_exc()


async def execute(run: RunHandle, task: PlannedTask) -> TaskResult:
    """Run one task: its recorded answer or cached result when it has one, else the node
    (with its retry policy and timeout), and what it returned turned into a TaskResult."""
    if run.inline_sync and runs_inline(run, run.graph.runners[task.name], task):
        return execute_inline(run, task)
    runner, ctx, state = prepare(run, task)
    started = time.perf_counter()
    key = None
    if run.options.answers is not None or runner.cache_policy is not None:
        done, key = _answered_or_cached(run, task, runner, ctx, state, started)
        if done is not None:
            return done
    token = current_task.set(ctx)
    lc_token = None if run.tracer is None else run.tracer.context_var.set(ctx.config)
    timeout = runner.timeout if task.timeout is None else task.timeout  # a Send's own wins
    watched = watch_callbacks(ctx) if timeout is not None and timeout.refresh_on == "auto" else None
    output: Any = None
    error: BaseException | None = None
    trace = ""
    try:
        if timeout is None and runner.retry is None:
            if run.inline_sync and len(run.plan) == 1 and runner.plain_sync and task.name != START:
                # invoke's own loop waits for it: the node is plain sync code, as in LangGraph
                output = call_as_sync(runner.call_sync, state, ctx)
            else:
                output = await call_node(run, runner, task, state, ctx)
        else:
            output = await _call_with_retries(run, runner, task, state, ctx, timeout, started)
    except asyncio.CancelledError as exc:
        error, trace = raised_cancel(task, exc)
    except Exception as exc:  # the node's own error: kept and reported unchanged
        error, trace = exc, tb.format_exc()
    except NODE_EXITS as exc:  # sys.exit(), KeyboardInterrupt, GeneratorExit raised by the node:
        error, trace = node_exit(task.name, exc), tb.format_exc()  # a failed node, not a dead loop
    finally:
        current_task.reset(token)
        if watched is not None:
            unwatch_callbacks(watched)
        if lc_token is not None:
            run.tracer.context_var.reset(lc_token)  # type: ignore[union-attr]
    if key is not None and error is None:
        run.graph.cache.set({key: (output, runner.cache_policy.ttl)})
    if runner.async_router and error is None:  # an async router is awaited off the loop
        return await asyncio.get_running_loop().run_in_executor(
            None, contextvars.copy_context().run, conclude, run, task, runner, ctx, output, error, trace, started)
    # traced: the node's run ends a loop turn after its output streamed (tracing.py)
    return await concluded(run.tracer, task, conclude, run, task, runner, ctx, output, error, trace, started)


def _answered_or_cached(run: RunHandle, task: PlannedTask, runner: NodeRunner, ctx: TaskContext, state: Any,
                        started: float) -> tuple[TaskResult | None, Any]:
    """(the task's result from a recorded replay's answer or the graph's cache, or None
    when the node runs; the cache key its output is stored under then, or None)."""
    if run.options.answers is not None:  # a recorded replay: the node's output from the records
        answered = _answered(run, task, runner, ctx, started)
        if answered is not None:
            return answered, None
    key = None
    if runner.cache_policy is not None and run.graph.cache is not None:
        key = cache_key(runner.cache_policy, task.name, state)
        found = run.graph.cache.get([key]) if key is not None else {}
        if key in found:
            result = conclude(run, task, runner, ctx, found[key], None, "", started)
            result.cached = result.ok
            return result, None
    return None, key


def _answered(run: RunHandle, task: PlannedTask, runner: NodeRunner, ctx: TaskContext, started: float,
              ) -> TaskResult | None:
    """A recorded replay's answer for the task (None: the node runs, with the recorded
    resume values the answers hook may have handed it)."""
    assert run.options.answers is not None
    answer = run.options.answers(task)
    if answer is not NOT_ANSWERED:
        result = conclude(run, task, runner, ctx, answer, None, "", started)
        result.recorded = result.ok
        return result
    if not ctx.resume and run.resumes.by_task.get(task.id):  # the hook handed it recorded resume values
        ctx.resume = list(run.resumes.by_task[task.id])
    return None


async def _call_with_retries(run: RunHandle, runner: NodeRunner, task: PlannedTask, state: Any, ctx: TaskContext,
                             timeout: Any, started: float) -> Any:
    """Call the node under its timeout, again after each error its retry policy retries."""
    attempt = 1
    while True:
        try:
            if timeout is None:
                return await call_node(run, runner, task, state, ctx)
            return await run_timed(call_node(run, runner, task, state, ctx), timeout, task.name, ctx)
        except (GraphInterrupt, ParentCommand):
            raise
        except Exception as exc:
            policies = runner.retry
            if policies is None:
                raise
            policy = next((p for p in policies if p.should_retry(exc)), None)
            if policy is None or attempt >= policy.max_attempts:
                raise
            delay = policy.delay(attempt)
            if run.inline_sync and len(run.plan) == 1 and not runner.is_async:
                with as_sync_code():  # a sync invoke waits on its own thread, as LangGraph's does
                    time.sleep(delay)
            else:
                await asyncio.sleep(delay)
            attempt += 1
            ctx.calls = 0
            ctx.attempt = attempt
            if ctx.first_attempt_time is None:
                ctx.first_attempt_time = time.time() - (time.perf_counter() - started)


async def run_concurrently(run: RunHandle, pending: Sequence[PlannedTask]) -> list[TaskResult]:
    """Run the superstep's tasks concurrently (at most config["max_concurrency"] at once),
    recording each as it ends; an error handler starts beside the siblings. As LangGraph:
    a task's unhandled error cancels the siblings still running and fails the run."""
    done_results: list[TaskResult] = []
    limit = run.config.get("max_concurrency")
    gate: asyncio.Semaphore | None = None
    if limit is not None and limit < len(pending):  # config["max_concurrency"]: a bounded superstep
        gate = asyncio.Semaphore(max(1, int(limit)))
        futures = [asyncio.ensure_future(gated(run, gate, t)) for t in pending]
    else:
        futures = [asyncio.ensure_future(execute(run, t)) for t in pending]
    save_error: Exception | None = None
    try:
        remaining = set(futures)
        while remaining:
            finished, remaining = await asyncio.wait(remaining, return_when=asyncio.FIRST_COMPLETED)
            failed: BaseException | None = None
            for fut in sorted(finished, key=futures.index):
                result = fut.result()
                done_results.append(result)
                try:
                    run.keep_result(result, durable=True)
                except Exception as exc:  # the saver failed: siblings are still reported
                    save_error = save_error or exc
                if result.error is not None:
                    if not result.handled:
                        failed = failed or result.error
                    elif (handler := run.handler_task(result)) is not None:
                        # as LangGraph: the error handler starts now, beside the siblings
                        started = asyncio.ensure_future(
                            execute(run, handler) if gate is None else gated(run, gate, handler))
                        futures.append(started)
                        remaining.add(started)
            if failed is not None and remaining:
                # as LangGraph: an unhandled error cancels the siblings still running (what
                # finished stays saved; a retry of the superstep runs only the rest)
                for fut in remaining:
                    fut.cancel()
                await asyncio.wait(remaining)
                run.fail(failed)
                return done_results
    except asyncio.CancelledError:
        for fut in futures:
            fut.cancel()
        await asyncio.wait(futures)  # each node has handled its cancellation when this returns
        raise
    except Exception as exc:  # an engine fault: the run ends with RunFinished all the same
        run.fail(exc)
        raise
    if save_error is not None:
        run.fail(save_error)
        raise save_error
    return done_results


async def call_node(run: RunHandle, runner: NodeRunner, task: PlannedTask, state: Any, ctx: TaskContext) -> Any:
    """Call the node: async on the loop, sync on a worker thread (or inline for invoke)."""
    if task.name == START:
        return start_output(run, task)
    if runner.is_subgraph:
        return await run_subgraph(run, runner.fn, task, state)
    if runner.is_async and not (runner.is_runnable and run.__dict__.get("sync_api")):
        return await runner.call_async(state, ctx)
    # a Runnable node of a run of the sync API (invoke, stream) is called through its
    # `invoke`, as LangGraph does: a Runnable with a sync and an async twin runs the sync one
    if run.inline_sync and len(run.plan) == 1:
        # invoke's own loop waits for it: the node is plain sync code, as in LangGraph
        return call_as_sync(runner.call_sync, state, ctx)
    if runner.quick and len(run.plan) == 1 and may_run_on_loop(run, runner, task):
        return call_inline(run, runner, state, ctx)
    context = contextvars.copy_context()
    # on a daemon worker, not the loop's executor: a stuck node is abandoned on cancel
    output, took = await asyncio.wrap_future(
        WORKERS.submit(context.run, _timed, runner.call_sync, state, ctx))
    if type(output) is Exited:  # the node's sys.exit() & co, raised here as a plain raise
        raise output.exc
    if len(run.plan) == 1 and may_run_on_loop(run, runner, task):
        runner.quick = took < QUICK_S
    return output


def _timed(fn: Any, *args: Any) -> tuple[Any, float]:
    """`carried(fn, *args)` and the seconds the call itself took (not the thread hop)."""
    started = time.perf_counter()
    output = carried(fn, *args)
    return output, time.perf_counter() - started


QUICK_S = 0.002
"""A sync node of a one-task superstep of the async API that took less than this on a
worker thread runs on the loop next time (as invoke runs it), skipping two thread hops; one
that then takes over 5x this goes back to the workers. So the async API costs what invoke
does per superstep, and the loop is never held longer than the node was seen to take."""


def may_run_on_loop(run: RunHandle, runner: NodeRunner, task: PlannedTask) -> bool:
    # not an @entrypoint's body: it may wait (task().result()) on work the loop must run
    # nor a debugger's run whose loop is its UI thread (RunOptions.keep_loop_free)
    return (runner.plain_sync and task.timeout is None and run.graph.step_timeout is None
            and not hasattr(run.graph, "input_node") and not run.options.keep_loop_free)


def call_inline(run: RunHandle, runner: NodeRunner, state: Any, ctx: TaskContext) -> Any:
    """A quick sync node on the loop, in a context of its own as on a worker; events from
    threads it starts (a graph it invokes) are delivered at once, in order, as invoke's are."""
    started = time.perf_counter()
    run.__dict__["inline_call"] = True
    try:
        if runner.bare_call:  # (NodeRunner.call_sync's first case, without its call)
            output = contextvars.copy_context().run(carried, runner.fn, state)
        else:
            output = contextvars.copy_context().run(carried, runner.call_sync, state, ctx)
    finally:
        run.__dict__["inline_call"] = False
    runner.quick = time.perf_counter() - started < QUICK_S * 5
    if type(output) is Exited:
        raise output.exc
    return output


def start_output(run: RunHandle, task: PlannedTask) -> Any:
    """The hidden __start__ task writes the input into the state."""
    value = run.graph.schema.wrap_input(task.arg)
    if isinstance(value, Command):  # Command(update=, goto=) as the input
        return value
    if run.graph.schema.root:  # the value itself; _route makes it the root channel's write
        return value
    items = input_items(value)
    keys = run.graph.schema.input_keys
    return {k: v for k, v in items if k in keys}


def route_output(run: RunHandle, runner: NodeRunner, task: PlannedTask, output: Any, result: TaskResult,
           pushed: list[tuple[str, Any]] | None = None) -> None:
    graph = run.graph
    if graph.schema.root:
        output = graph.schema.wrap_update(output)
    writes, dropped, update, command = normalize_update(task.name, output, graph.schema.channels)
    if pushed:  # written while the node ran (push_message): first, as LangGraph applies them
        writes = [*pushed, *writes]
        parts = [{k: v} for k, v in pushed] + ([] if update is None else [update])
        update = parts[0] if len(parts) == 1 else parts  # LangGraph's updates: one entry per write
    result.writes, result.dropped, result.update = writes, dropped, update
    source = task.name
    if runner.edge_routes:
        result.routes += runner.edge_routes
    if command is not None:
        _command_routes(run, source, command, result)
    if runner.branches:
        _branch_routes(run, runner, source, writes, dropped, update, result)


def _command_routes(run: RunHandle, source: str, command: Command[Any], result: TaskResult) -> None:
    """A node's Command: its gotos as routes and Sends (one for the parent graph leaves
    this graph as a ParentCommand)."""
    graph = run.graph
    if command.graph == Command.PARENT:
        if not run.namespace:  # as LangGraph: no parent graph, so it leaves invoke()
            raise ParentCommand(command)
        raise ParentCommand(replace(command, graph=None))
    for goto in command.goto_targets():
        if isinstance(goto, Send):
            result.sends.append(goto)
            result.command_sends += 1
        elif goto not in graph.runners or goto == START:
            if goto != END:
                raise InvalidRouteError(
                    f"node `{source}` returned Command(goto={goto!r}), which is not a node of this graph "
                    f"(nodes: {', '.join(graph.node_names)})"
                )
        else:
            result.routes.append((goto, f"command:{source}"))


def _branch_routes(run: RunHandle, runner: NodeRunner, source: str, writes: list[tuple[str, Any]],
                   dropped: tuple[str, ...], update: Any, result: TaskResult) -> None:
    """The node's routers, each shown the state with this task's own writes applied (kept
    in `result.applied` for the commit): their answers as routes and Sends."""
    graph = run.graph
    applied_values: Mapping[str, Any]
    values = run.values
    applied_values, result.applied = apply_own_writes(values, writes, graph.schema.channels)
    result.folded, result.folded_on = applied_values, values  # (a dict of its own: the views below copy it)
    if graph.schema.managed:
        applied_values = graph.schema.with_managed(applied_values, run.step + 1, run.stop_step)
    view = graph.schema.node_input(applied_values)
    wider = view
    if dropped and type(view) is dict and isinstance(update, dict):
        # as LangGraph: keys the node returned that the state has not reach its
        # routers, unless a router's parameter is hinted with a schema
        wider = {**{k: update[k] for k in dropped if k in update}, **view}
    for branch, wants_config, own_view, hinted in runner.branches:
        seen = own_view(applied_values) if own_view is not None else view if hinted else wider
        names, sends = call_router(branch, seen, run.config, graph.node_set, wants_config)
        if len(names) == 1:  # the usual answer: one node
            result.routes.append((names[0], runner.branch_why))
        elif names:
            why = runner.branch_why
            result.routes += [(n, why) for n in names]
        if sends:
            result.sends += sends


def with_heartbeat(writer: Callable[[Any], None], ctx: TaskContext) -> Callable[[Any], None]:
    """A stream writer whose every write also counts as progress (idle timeouts)."""
    def write(payload: Any) -> None:
        ctx.heartbeat()
        writer(payload)

    return write


def input_items(value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, Mapping):
        return list(value.items())
    from .task import as_items

    items = as_items(value)
    if items is None:
        raise InvalidUpdateError(
            f"the graph's input must be a dict of state keys (or an instance of the state schema), "
            f"got {type(value).__name__}: {value!r:.80}"
        )
    return items


