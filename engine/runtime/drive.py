"""The one loop that drives a Run to its end: invoke/stream, subgraphs, the studio's
continue and `Run.drive` all go through `drive()`.

A driver only strings the Run's own moves together (start, run the pending tasks,
commit, again). What a caller adds around those moves comes as `DriveHooks`: a subgraph
stepped into from a debugger waits at a gate before each move, the studio stops at its
breakpoints and conditions, a stream wants its chunks as soon as they exist. Without
hooks the loop tests one `is None` per move: hooks cost nothing unless given.
"""
from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, NamedTuple

from ..checkpoint.routing import RoutedSaver
from .lone_step import lone_superstep, plain_lone_superstep, takes_lone_superstep
from .protocols import DriveHooks

if TYPE_CHECKING:
    from .protocols import RunHandle
    from .stream import StreamCollector

__all__ = ["DriveHooks", "Opened", "drive", "drive_opened", "Waker"]


async def _nothing_after(_run: RunHandle) -> None:
    """A drive's `finish` when its caller adds none."""


def _nothing_then(_exc: BaseException) -> None:
    """A drive's `failed` when its caller adds none."""


class Opened(NamedTuple):
    """What the `open()` of `drive_opened` makes: the run to drive, its hooks and its
    collector; `finish(run)`, awaited after the last chunk of a drive that ended or was
    stopped by a hook (it may raise); `failed(exc)`, called with what ends the drive
    instead (an error, the caller giving up), before it propagates."""

    run: RunHandle
    hooks: DriveHooks | None
    collector: StreamCollector | None
    finish: Callable[[RunHandle], Awaitable[None]] = _nothing_after
    failed: Callable[[BaseException], None] = _nothing_then


def drive(run: RunHandle, hooks: DriveHooks | None = None, collector: StreamCollector | None = None,
          ) -> AsyncGenerator[Any, None]:
    """Drive `run` (starting it when new) until it ends, pauses at an interrupt or a
    breakpoint, or a hook stops it; yields the `collector`'s chunks as they come (nothing
    without one). A run that fails is left failed (its `error` set), never raised here:
    each caller decides what a failure means to it. The graph's `step_timeout` bounds each
    superstep. When the caller gives up (cancelled, or the generator closed), the run is
    cancelled: nothing more runs, what was saved stays.

    The loop: start when new, then run the pending tasks and commit, again, until the run
    ends or pauses (then the async save overrides are awaited and the last chunks go out)
    or a hook stops it. (One generator: a chunk passes through no other layer here.)"""
    return _drive(functools.partial(Opened, run, hooks, collector))


def drive_opened(open: Callable[[], Opened]) -> AsyncGenerator[Any, None]:
    """`drive()` of the run `open()` makes, then its `finish`. `open()` is called when the
    first chunk is asked for, as the body of an async generator function would run (a
    stream's setup raises, and finds its event loop, where the stream is iterated): so an
    `astream()` can hand out this very generator, and its chunks pass through no layer of
    its own (tests/test_astream_chunks_pass_through_one_generator.py)."""
    return _drive(open)


async def _drive(open: Callable[[], Opened]) -> AsyncGenerator[Any, None]:
    """The loop of `drive()` and `drive_opened()` (see them)."""
    run, hooks, collector, finish, failed = open()
    overrides = _bound_overrides(run)
    chunks = collector.chunks if collector is not None else None
    step_timeout = run.graph.step_timeout
    began: int | None = None  # the step whose superstep `before_superstep` was told of
    stopped = False  # by a hook: the run stays as it is (nothing settled, no last chunks)
    out = False  # a chunk is out with the caller: what it throws in then means it gave up (as closing)
    try:
        if run.status == "new":
            await run.start()
        while True:
            while chunks:
                out = True
                yield chunks.popleft()
                out = False
            if run.status != "ready":
                break
            if hooks is not None:
                began, verdict = await _before_move(run, hooks, began)
                if verdict is _AGAIN:
                    continue
                if verdict is not _GO:  # stopped by the hook, or the run ended while its gate was awaited
                    stopped = verdict is _STOP
                    break
            if run.pending:
                if hooks is None and takes_lone_superstep(run, collector):
                    if not plain_lone_superstep(run, chunks):  # (a plain one: no coroutine)
                        await lone_superstep(run, chunks)  # run, kept and committed in one go
                    continue
                if _streams_tasks(run, hooks, collector, step_timeout):
                    async with aclosing(_streamed_tasks(run, collector, step_timeout)) as live:
                        async for chunk in live:
                            out = True
                            yield chunk
                            out = False
                else:
                    await _run_tasks(run, hooks, chunks)
                if hooks is not None and run.status == "ready" and await hooks.after_tasks(run):
                    stopped = True
                    break
                continue
            if not run.ready_to_commit:
                break
            if hooks is None:
                run.commit(report=False)
            elif await hooks.after_commit(run, run.commit()):
                stopped = True
                break
        if not stopped:
            await _settle(run, overrides)
            while chunks:
                out = True
                yield chunks.popleft()
                out = False
    except BaseException as exc:
        if _gave_up(exc, out):  # nothing more runs, what was saved stays (and "exit" saves)
            run.cancel()
            await _settle(run, overrides)
        failed(exc)
        raise
    await finish(run)


def _gave_up(exc: BaseException, out: bool) -> bool:
    """Whether what ends a drive means its caller gave up: cancelled, the generator closed,
    or anything thrown into it while a chunk was `out` with the caller."""
    return out or isinstance(exc, (asyncio.CancelledError, GeneratorExit))


def _bound_overrides(run: RunHandle) -> RoutedSaver | None:
    """The run's saver when it routes to a subclass's async save overrides (to await), bound
    to the running loop; else None."""
    overrides = run.saver if type(run.saver) is RoutedSaver else None
    if overrides is not None:
        overrides.bind(asyncio.get_running_loop())
    return overrides


async def _run_tasks(run: RunHandle, hooks: DriveHooks | None, chunks: Any) -> None:
    """The superstep's tasks run: one move of a stepwise drive, else all of them, with the
    commit to follow at once: a lone task's writes are saved now only when control leaves
    the run first (chunks go out to the consumer, or hooks are awaited), else its commit
    stores them."""
    if hooks is not None and hooks.stepwise:
        await run.run_task()
        return
    await run.run_pending(commit_follows=True)
    if run.unsaved_result is not None and (chunks or hooks is not None):
        run.save_unsaved()


def _streams_tasks(run: RunHandle, hooks: DriveHooks | None, collector: StreamCollector | None,
                   step_timeout: float | None) -> bool:
    """Whether the superstep's chunks go out while its tasks run (`_streamed_tasks`; never
    for a stepwise drive's move)."""
    if hooks is not None and hooks.stepwise:
        return False
    return step_timeout is not None or (
        collector is not None and (collector.wake is not None or len(run.pending) > 1))


_GO, _STOP, _AGAIN, _ENDED = "go", "stop", "again", "ended"
"""What the hooks before a move decided: make it, end the drive, look at the (new)
superstep afresh, or stop because the run ended meanwhile."""


async def _before_move(run: RunHandle, hooks: DriveHooks, began: int | None) -> tuple[int | None, str]:
    """The hooks asked before a move: `before_superstep` once per superstep (`began`: the
    step it was last told of), then a stepwise gate."""
    if began != run.step:
        began = run.step
        if await hooks.before_superstep(run):
            return began, _STOP
        if began != run.step:  # the hook made the superstep itself (a replayed edit): the
            return began, _AGAIN  # next one is looked at afresh
    if hooks.stepwise:
        await hooks.before_move(run)
        if run.status != "ready":
            return began, _ENDED
    return began, _GO


async def _streamed_tasks(run: RunHandle, collector: StreamCollector | None,
                          step_timeout: float | None) -> AsyncGenerator[Any, None]:
    """The superstep's tasks run while their chunks go out as they come: under the graph's
    `step_timeout`, or because siblings run (each task's chunks go out as it ends)."""
    if step_timeout is not None:
        gen = _timed_step(run, collector, step_timeout)
    else:
        assert collector is not None
        if collector.wake is None:
            collector.wake = Waker()
            run.subscribe(collector.wake)
        gen = _live(run, collector)
    async with aclosing(gen) as live:
        async for chunk in live:
            yield chunk


async def _settle(run: RunHandle, overrides: RoutedSaver | None) -> None:
    """Await a saver subclass's async save overrides still running (None: none); one that
    failed fails the run."""
    if overrides is None:
        return
    try:
        await overrides.settle()
    except Exception as exc:
        if run.error is None:
            run.error, run.status = exc, "failed"


class Waker:
    """A thread-safe wake-up for a driver waiting on new chunks (see `_live`): called for
    each event (a run listener) and each message chunk; `future` completes at the first
    call after `reset()`. A plain future wakes the driver in one turn of the loop, so a
    chunk goes out before the code that awaited the task producing it goes on, as in LangGraph."""

    __slots__ = ("loop", "thread", "future")
    task_events = False
    """A task's events wake the driver only for the chunks they make (the collector's)."""
    wants_diffs = False
    wants_ids = False

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.thread = threading.get_ident()
        self.future: asyncio.Future[None] = self.loop.create_future()

    def __call__(self, _event: Any = None) -> None:
        if threading.get_ident() == self.thread:
            self.fire()
        else:
            self.loop.call_soon_threadsafe(self.fire)

    def fire(self, _done: Any = None) -> None:
        if not self.future.done():
            self.future.set_result(None)

    def reset(self) -> None:
        if self.future.done():
            self.future = self.loop.create_future()


async def _live(run: RunHandle, collector: StreamCollector | None, deadline: float | None = None) -> AsyncGenerator[Any, None]:
    """Run the superstep's tasks, yielding chunks as they arrive instead of at its end;
    past `deadline` (the loop's clock) the tasks are cancelled and TimeoutError raised."""
    loop = asyncio.get_running_loop()
    waker: Waker = collector.wake if collector is not None else Waker()
    tasks = asyncio.ensure_future(run.run_pending())
    tasks.add_done_callback(waker.fire)
    try:
        while not tasks.done():
            if deadline is None:
                await waker.future  # (cancelled with the driver: reset() makes a new one)
            else:
                await asyncio.wait((waker.future,), timeout=max(0.0, deadline - loop.time()))
            waker.reset()
            if collector is not None:
                while collector.chunks:
                    yield collector.chunks.popleft()
            if deadline is not None and not tasks.done() and loop.time() >= deadline:
                tasks.cancel()
                await asyncio.wait((tasks,))
                error = TimeoutError("Timed out: a superstep ran past the graph's step_timeout")
                run.fail(error)
                raise error
    finally:
        if not tasks.done():  # the consumer stopped (or was cancelled): the running nodes are
            tasks.cancel()    # cancelled, and have ended, before control goes back to it
            await asyncio.wait((tasks,))
    tasks.result()


async def _timed_step(run: RunHandle, collector: StreamCollector | None, seconds: float) -> AsyncGenerator[Any, None]:
    """One superstep under the graph's `step_timeout` (see `_live`); a sync node runs on a
    worker thread then, never on the loop's, so that the timeout can abandon it."""
    run.inline_sync = False
    if collector is not None and collector.wake is None:
        collector.wake = Waker()
        run.subscribe(collector.wake)
    async with aclosing(_live(run, collector, asyncio.get_running_loop().time() + seconds)) as live:
        async for chunk in live:
            yield chunk
