"""A superstep's many plain sync tasks (a Send fan-out) on a few worker threads that pull
them from one queue, instead of one asyncio task and one executor job per task."""
from __future__ import annotations

import asyncio
import contextvars
import time
import traceback as tb
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .context import TaskContext, current_task
from .execute import QUICK_S, may_run_on_loop, conclude, execute, node_exit, prepare
from .sync_code import as_sync_code
from .task import NodeRunner, TaskResult
from .workers import NODE_EXITS, WORKERS, Mailbox

if TYPE_CHECKING:
    from ..checkpoint.base import PlannedTask
    from .protocols import RunHandle

__all__ = ["run_sync_batch"]

_BATCH_WORKERS = 4  # threads that share a superstep's sync tasks; sync nodes mostly wait on I/O


async def run_sync_batch(run: RunHandle, tasks: Sequence[PlannedTask]) -> list[TaskResult]:
    """Many plain sync tasks (a Send fan-out): a few worker threads pull them from one
    queue, instead of one asyncio task and one executor job per task. Each result is
    recorded (and its writes saved) as soon as it comes back."""
    loop = asyncio.get_running_loop()
    runners = run.graph.runners
    jobs = _prepared(run, tasks)
    back = Mailbox(loop)
    slow: set[str] = set()  # the nodes of the batch seen to take QUICK_S or more

    def worker() -> None:
        while True:
            try:
                job = jobs.popleft()
            except IndexError:
                return
            back.post(_outcome(job, slow))

    count = min(len(tasks), _BATCH_WORKERS, max(1, int(run.config.get("max_concurrency") or _BATCH_WORKERS)))
    own: list[tuple[Any, ...]] = []  # the outcomes of the tasks run on the loop's thread
    if all(runners[t.name].quick for t in tasks) and may_run_on_loop(run, runners[tasks[0].name], tasks[0]):
        own = _on_loop(jobs, slow)  # quick nodes: on the loop while they stay quick, no thread hand-off
    workers = [WORKERS.submit(worker) for _ in range(min(count, len(jobs)))]
    results: list[TaskResult] = []
    taken = 0  # the batch's own outcomes taken so far (results also holds the handlers')
    save_error: Exception | None = None
    handlers: list[asyncio.Future[TaskResult]] = []  # error handlers, started beside the batch
    try:
        while taken < len(tasks):
            if own:
                outcomes, own = own, []
            else:
                outcomes = await back.take()
            taken += len(outcomes)
            for outcome in outcomes:
                result = conclude(run, *outcome)
                results.append(result)
                try:
                    run.keep_result(result, durable=True)
                except Exception as exc:  # the saver failed: siblings are still reported
                    save_error = save_error or exc
                if result.handled and (handler := run.handler_task(result)) is not None:
                    handlers.append(asyncio.ensure_future(execute(run, handler)))
        for future in handlers:
            result = await future
            results.append(result)
            try:
                run.keep_result(result, durable=True)
            except Exception as exc:
                save_error = save_error or exc
    except asyncio.CancelledError:
        jobs.clear()  # tasks not started yet never start; running ones are abandoned
        for future in handlers:
            future.cancel()
        raise
    except Exception as exc:
        save_error = save_error or exc
    finally:
        jobs.clear()
    for name in {t.name for t in tasks}:  # (learnt here for the next batch, and for call_node)
        runners[name].quick = name not in slow
    if taken < len(tasks):  # left early: wait for the tasks still running (each worker then ends)
        await asyncio.gather(*(asyncio.wrap_future(w) for w in workers), return_exceptions=True)
    if save_error is not None:
        run.fail(save_error)
        raise save_error
    return results


Job = tuple["PlannedTask", NodeRunner, TaskContext, Any, contextvars.Context]


def _prepared(run: RunHandle, tasks: Sequence[PlannedTask]) -> deque[Job]:
    """Each task prepared (execute.prepare), with a context of its own to run in."""
    jobs: deque[Job] = deque()
    tracer = run.tracer
    for task in tasks:
        runner, ctx, state = prepare(run, task)
        context = contextvars.copy_context()
        context.run(current_task.set, ctx)
        if tracer is not None:
            context.run(tracer.context_var.set, ctx.config)
        jobs.append((task, runner, ctx, state, context))
    return jobs


def _outcome(job: Job, slow: set[str]) -> tuple[Any, ...]:
    """Call one task's node (in its own context) and what `conclude` needs of the call;
    a node that took QUICK_S or more is noted in `slow`."""
    task, runner, ctx, state, context = job
    started = time.perf_counter()
    try:
        output = context.run(runner.call_sync, state, ctx)
    except Exception as exc:
        return task, runner, ctx, None, exc, tb.format_exc(), started
    except NODE_EXITS as exc:  # a node's sys.exit() must not end the worker silently
        return task, runner, ctx, None, node_exit(task.name, exc), tb.format_exc(), started
    finally:
        if time.perf_counter() - started >= QUICK_S:
            slow.add(task.name)
    return task, runner, ctx, output, None, "", started


def _on_loop(jobs: deque[Job], slow: set[str]) -> list[tuple[Any, ...]]:
    """Tasks of nodes seen to be quick (`NodeRunner.quick`: each call under QUICK_S on
    the workers) run on the loop's thread, as a quick lone node does (execute.call_node),
    until one is slow or QUICK_S x 5 have passed: the workers take the rest. Returns
    their outcomes."""
    budget = time.perf_counter() + QUICK_S * 5
    done = []
    with as_sync_code():  # (no running loop visible to the nodes, as on a worker)
        while jobs and not slow and time.perf_counter() < budget:
            done.append(_outcome(jobs.popleft(), slow))
    return done
