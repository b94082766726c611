"""A superstep of one task, made in one go: run the task, keep its result, commit.

Most supersteps of a real graph have one task (a loop, a chain, an agent's model and
tools turns). `drive()` (drive.py) hands such a superstep, when no hook waits between
the moves and no chunk must go out while the task runs, to `lone_superstep`, which makes
the same moves the loop makes (`execute`, `Run.keep_result`, `Run.commit`) without
the loop's bookkeeping between them: no `run_pending`, no pending-task lists, no second
turn of the loop to find the superstep ready to commit. It is the same Run, chosen per
superstep: the events, checkpoints, pending writes and state are those of the loop's
path (tests/test_lone_superstep_same_as_the_loop.py runs graphs both ways and compares
every checkpoint and chunk). When the task did not end well (an error, an interrupt, a
handler to run) or its chunks must go out before the commit, it stops after keeping the
result and the loop goes on from there as it would have.
"""
from __future__ import annotations

from collections.abc import Sized
from typing import TYPE_CHECKING

from .execute import execute, execute_inline, runs_inline, runs_on_loop
from .plain_step import ON_LOOP, plain_superstep, plain_way
from .task_outcome import record_result

if TYPE_CHECKING:
    from .protocols import RunHandle
    from .stream import StreamCollector
    from .task import TaskResult

__all__ = ["FUSED", "takes_lone_superstep", "lone_superstep", "plain_lone_superstep"]

FUSED = True
"""Whether `drive()` makes one-task supersteps with `lone_superstep` (False: always
through the loop's moves; the tests that compare both ways set it)."""


def takes_lone_superstep(run: RunHandle, collector: StreamCollector | None) -> bool:
    """Whether the run's superstep (with no hooks to ask) can be made by `lone_superstep`:
    one task, none of it run yet, and no chunk to send while it runs (no live stream
    waker, no step timeout)."""
    return (FUSED and len(run.plan) == 1 and not run.results and run.graph.step_timeout is None
            and (collector is None or collector.wake is None))


def plain_lone_superstep(run: RunHandle, chunks: Sized | None) -> bool:
    """The superstep `lone_superstep` would make, made without a coroutine when its task
    is plain (plain_step.py: `plain_way`); False, nothing done, when it is not. Then the
    next ones, for as long as each is plain too and `drive()` would hand it here again
    at once: no chunk to send, the run ready, one task planned (`takes_lone_superstep`'s
    other conditions, the graph's and the collector's, hold for the whole drive)."""
    made = False
    while True:
        task = run.plan[0]
        runner = run.graph.runners[task.name]
        way = plain_way(run, runner, task) if runner.plain_step else 0
        if not way:
            return made
        result = plain_superstep(run, task, runner, chunks, on_loop=way == ON_LOOP)
        if result is not None:  # not a plain output: kept, and committed, the general way
            _keep_and_commit(run, result, chunks)
            return True
        made = True
        if chunks or run.status != "ready" or len(run.plan) != 1 or run.results:
            return True


async def lone_superstep(run: RunHandle, chunks: Sized | None) -> None:
    """Run the superstep's only task and commit at once (see the module's text); returns
    early, its result kept, when the loop must take over (`chunks` to send first, a
    failure, an interrupt, an error handler's task)."""
    task = run.plan[0]
    runner = run.graph.runners[task.name]
    if runs_inline(run, runner, task):
        result = execute_inline(run, task)
    elif runner.quick and runs_on_loop(run, runner, task):  # the async API's quick sync node
        result = execute_inline(run, task, on_loop=True)
    else:
        result = await execute(run, task)
    _keep_and_commit(run, result, chunks)


def _keep_and_commit(run: RunHandle, result: TaskResult, chunks: Sized | None) -> None:
    """Keep the lone task's result, then commit unless the loop must take over."""
    try:
        record_result(run, result, durable=False)  # (Run.keep_result, as run_pending keeps it for a commit that follows)
    except Exception as exc:  # the saver failed: the run ends, RunFinished last
        run.fail(exc)
        raise
    if result.error is not None or result.interrupts or result.paused:
        run.check_after_tasks()  # fail, pause, or plan the error handler: the loop goes on
        return
    if chunks:  # they go out first: control leaves the run before the commit
        if run.unsaved_result is not None:
            run.save_unsaved()
        return
    if run.status != "ready":
        return
    run.commit(report=False)  # (the Run's own commit, as every driver's: events when listened to)
