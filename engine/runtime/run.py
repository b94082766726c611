"""The Run: one execution of a compiled graph, advanced one move at a time.

Three moves, and nothing else executes a graph:

1. plan    -- the tasks of the next superstep are known after `start()` and after each
              `commit()` (`run.pending`), each with the trigger that caused it;
2. run     -- `run_task()` executes one task against the superstep's snapshot and keeps
              its writes aside; `run_pending()` runs the rest concurrently;
3. commit  -- `commit()` applies every write through the channels' reducers, records a
              ChannelDiff per key, saves the checkpoint and plans the next superstep.

`invoke`/`stream` drive a Run to the end; the studio drives it move by move.
"""
from __future__ import annotations

import asyncio
import contextvars
import os
import threading
import time
import traceback as tb
import uuid
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..checkpoint.base import (
    DONE,
    ERROR,
    HANDLED,
    INTERRUPT,
    RESUME,
    ROUTE,
    SEND,
    Checkpoint,
    PendingWrite,
    PlannedTask,
    new_checkpoint_id,
    ns_thread_key,
)
from ..checkpoint.routing import routed
from ..constants import END, NODE_FINISHED_KEY, RUNTIME_KEY, START
from ..errors import (
    GraphInterrupt,
    NodeCancelledError,
    NodeError,
    InvalidRouteError,
    InvalidUpdateError,
)
from ..types import Command, Interrupt, Send
from .commit import RunCommit
from .context import TaskContext, current_task
from .caching import cache_key
from .channel_access import with_channel_access
from .drive import DriveHooks, drive
from .durability import BackgroundSaves, HeldSaves, saves_for
from .injected import coerce_context
from .progress import unwatch_callbacks, watch_callbacks
from .timeouts import run_timed
from .events import (
    CustomData,
    RunEvent,
    RunFinished,
    RunInterrupted,
    RunStatus,
    StepCommitted,
    TaskFailed,
    TaskFinished,
    TaskInterrupted,
    TaskStarted,
)
from .nested import Gate, ParentCommand, run_subgraph, task_namespace
from .start import RunStart
from .workers import WORKERS
from .task import (
    NodeRunner,
    TaskResult,
    apply_own_writes,
    call_router,
    normalize_update,
)

if TYPE_CHECKING:
    from ..graph.compiled import CompiledStateGraph
    from .replay import Replay
    from .tracing import GraphTrace

__all__ = ["Run", "DEFAULT_RECURSION_LIMIT", "NOT_ANSWERED", "FROM_GRAPH"]

DEFAULT_RECURSION_LIMIT = 10007
_BATCH_WORKERS = 4  # threads that share a superstep's sync tasks; sync nodes mostly wait on I/O
FROM_GRAPH: Any = object()
"""`checkpointer=` default of a new Run: the graph's own checkpointer."""
NOT_ANSWERED: Any = object()
"""What `Run.answers` returns for a task the records do not answer (the node runs)."""
HANDLER_TRIGGER = "error_handler:"
"""Trigger of an error handler's task: `error_handler:<the node that failed>`."""


class Run(RunStart, RunCommit):
    """One execution of a compiled graph on one thread.

    Status goes new -> ready -> (interrupted | done | failed | cancelled); a `ready`
    run has `pending` tasks to run and then a superstep to commit.
    """

    # Slots for what __init__ sets: read on every superstep, they stay fast however many
    # there are (past 30 instance attributes CPython 3.11 stops sharing a class's dict keys
    # and every `self.x` becomes a plain dict probe). Anything else set later goes to the
    # instance dict the mixins give.
    __slots__ = (
        "graph", "config", "input", "interrupt_before", "interrupt_after", "recursion_limit", "inline_sync",
        "saver", "namespace", "checkpoint_ns", "resuming", "fresh", "gate", "child", "run_id", "thread_id",
        "store_key", "status", "error", "checkpoint", "values", "plan", "results", "preview", "_listeners",
        "_first_step", "_loop_thread", "_loop", "_resume_for", "_resume_map", "_resume_new", "_durable_ids", "_id_prefix",
        "_id_count", "durability", "_held", "context", "tracer", "store", "control", "fork_same_step", "replay",
        "parents", "null_resume", "record", "answers", "_node_finished",
    )

    def __init__(
        self,
        graph: CompiledStateGraph,
        input: Any = None,
        config: Mapping[str, Any] | None = None,
        *,
        interrupt_before: Sequence[str] | None = None,
        interrupt_after: Sequence[str] | None = None,
        inline_sync: bool = False,
        checkpointer: Any = FROM_GRAPH,
        durability: str | None = None,
        context: Any = None,
        control: Any = None,
        checkpoint_ns: str = "",
    ) -> None:
        self.graph = graph
        self.config: dict[str, Any] = dict(config or {})
        self.config.setdefault("configurable", {})
        self.input = input
        self.interrupt_before = frozenset(graph.interrupt_before if interrupt_before is None else interrupt_before)
        self.interrupt_after = frozenset(graph.interrupt_after if interrupt_after is None else interrupt_after)
        self.recursion_limit = int(self.config.get("recursion_limit", DEFAULT_RECURSION_LIMIT))
        self.inline_sync = inline_sync
        # a saver subclass overriding LangGraph-form methods is called through them (the
        # async ones by runs of the async API: inline_sync is False there)
        self.saver = routed(graph.checkpointer if checkpointer is FROM_GRAPH else checkpointer, not inline_sync)
        self.namespace: tuple[str, ...] = ()
        """The node path of a subgraph's run inside its parents (empty for the top run)."""
        self.checkpoint_ns = checkpoint_ns
        """A subgraph run's checkpoint namespace, LangGraph's "node:task_id|node:task_id" form."""
        self.resuming = False
        """Started by continuing a saved checkpoint (resume, breakpoint, crash): a subgraph
        task of this run then continues its own unfinished history instead of starting anew."""
        self.fresh = False
        """A stateless subgraph's run: an input starts a new history even where its namespace has one."""
        self.fork_same_step = False
        """Starting at an older checkpoint N saves a copy of it (source "fork") that owns the
        new branch's writes; LangGraph numbers the copy N+1, so the branch's first commit is
        N+2. A debugger sets True: the copy keeps step N and the branch goes on at N+1."""
        self.gate: Gate | None = None
        """Awaited before each move of a child (subgraph) run: a debugger's "step into"."""
        self.child: Run | None = None
        """The subgraph run in progress inside the current task, if any."""
        self.replay: Replay | None = None
        """Set when this run (or the one it is a subgraph of) time-travels: where subgraphs start."""
        self.null_resume: tuple[str, Any] | None = None
        """(checkpoint id, value): a resume value no paused task took; the first interrupt()
        of that checkpoint's superstep with no resume value of its own returns it (LangGraph's)."""
        self.parents: dict[str, str] | None = None
        """A subgraph run's ancestors' checkpoints by namespace, kept in its checkpoints'
        metadata["parents"] (LangGraph's), so its checkpoints lead back to theirs."""
        # a random id made without uuid.uuid4(): code that patches uuid4 for deterministic
        # message ids (LangGraph's tests do) gets the same ids as under LangGraph
        self.run_id = str(uuid.UUID(bytes=os.urandom(16), version=4))
        self.thread_id: str | None = self.config["configurable"].get("thread_id")
        if self.thread_id is not None:
            self.thread_id = str(self.thread_id)
        self.store_key = ns_thread_key(self.thread_id or "", checkpoint_ns)
        """What the saver keys this run's checkpoints by: the thread, and the namespace of a subgraph."""
        self.status: RunStatus = "new"
        self.error: BaseException | None = None
        self.checkpoint: Checkpoint | None = None
        self.values: dict[str, Any] = {}
        self.plan: tuple[PlannedTask, ...] = ()
        self.results: dict[str, TaskResult] = {}
        self.preview: dict[str, Any] | None = None
        self._listeners: list[Callable[[RunEvent], None]] = []
        self._first_step = 0
        self._loop_thread: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._resume_for: dict[str, list[Any]] = {}
        self._resume_map: dict[str, dict[str, Any]] = {}
        self._resume_new: set[str] | None = None
        """Tasks handed a resume value by this run (not only the answers they already took):
        a subgraph inside one continues with the newest value; inside another it re-asks."""
        self._durable_ids = self.saver is not None
        """Checkpoint ids and times that outlive the run; without a store, a cheap counter."""
        self._id_prefix = new_checkpoint_id() + "."
        self._id_count = 0
        self.durability = durability
        """"sync"/"async" (None: the same) save every superstep; "exit" only the last checkpoint."""
        self._held: HeldSaves | BackgroundSaves | None = saves_for(durability, self.saver)
        """Where saves go under durability "exit" (held to the end) or "async" (a writer thread)."""
        enclosing = current_task.get()
        outer = enclosing.run if enclosing is not None else None
        """A graph run inside a node (a subgraph) shares the run's context and store."""
        seeded = self.config["configurable"].get(RUNTIME_KEY)
        """A runtime object a caller put in the config (a server's graph factory does): its
        context applies when the run is given none, its store when it carries one."""
        if context is not None and graph.builder.context_schema is not None:
            context = coerce_context(graph.builder.context_schema, context)
        elif context is None and seeded is not None and getattr(seeded, "context", None) is not None:
            context = seeded.context  # as it is, as LangGraph takes it
        elif context is None and outer is not None:
            context = outer.context
        self.context = context
        self.tracer: GraphTrace | None = None
        """LangChain callbacks of this run (tracing, `messages` stream): only with config callbacks."""
        if self.config.get("callbacks"):
            from .tracing import GraphTrace

            self.tracer = GraphTrace(self.config, graph.name, ())
        self.store = graph.store if graph.store is not None or outer is None else outer.store
        if seeded is not None and getattr(seeded, "store", None) is not None:
            self.store = seeded.store
        self._node_finished: Callable[[str], Any] | None = self.config["configurable"].get(NODE_FINISHED_KEY)
        """LangGraph's node-finished hook from the config, told each node that finishes well."""
        self.control = control if control is not None else (outer.control if outer is not None else None)
        self.record = bool(self.config.pop("record", False))
        """config["record"]: each committed checkpoint keeps its tasks' writes (and resume
        values) in its metadata, so a replay can answer nodes from them (engine/replay).
        Taken out of the config, so nodes (and LangChain callbacks) never see it."""
        self.answers: Callable[[PlannedTask], Any] | None = None
        """Set by a recorded replay: a task's recorded output (NOT_ANSWERED to run the node).
        Its `for_child(ctx, child_run)`, when it has one, gives each subgraph run a hook of its
        own (runtime/nested.py); it may `preset_resume` the task it is asked about."""

    def preset_resume(self, task_id: str, values: Sequence[Any]) -> None:
        """Hand resume values to a pending task before it runs: its n-th interrupt() returns
        the n-th value (a recorded replay gives the values the recorded run was resumed with)."""
        self._resume_for[task_id] = list(values)
        self._resume_new = {*(self._resume_new or ()), task_id}

    # -- observing ------------------------------------------------------------------
    def subscribe(self, listener: Callable[[RunEvent], None]) -> Callable[[], None]:
        """Call `listener(event)` for every event; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _new_id(self) -> str:
        if self._durable_ids or self._listeners:
            return new_checkpoint_id()
        self._id_count += 1
        return f"{self._id_prefix}{self._id_count}"

    @property
    def listeners(self) -> tuple[Callable[[RunEvent], None], ...]:
        return tuple(self._listeners)

    def _emit(self, event: RunEvent) -> None:
        for listener in tuple(self._listeners):
            listener(event)

    @property
    def _stop(self) -> int:
        """The superstep the recursion limit lets this run reach (for managed values)."""
        return self._first_step + self.recursion_limit

    @property
    def step(self) -> int:
        return self.checkpoint.step if self.checkpoint is not None else -1

    @property
    def pending(self) -> tuple[PlannedTask, ...]:
        """Tasks of the current superstep that have not run yet."""
        results = self.results
        if not results:
            return self.plan
        if len(results) >= len(self.plan):
            return ()
        return tuple(t for t in self.plan if t.id not in results)

    @property
    def interrupts(self) -> tuple[Interrupt, ...]:
        return tuple(i for r in self.results.values() for i in r.interrupts)

    def _base(self, **fields: Any) -> dict[str, Any]:
        return {"run_id": self.run_id, "thread_id": self.thread_id, "step": fields.pop("step", self.step + 1),
                "namespace": self.namespace, "checkpoint_ns": self.checkpoint_ns, **fields}

    # -- 2. run tasks ----------------------------------------------------------------
    async def run_task(self, task_id: str | None = None) -> TaskResult:
        """Run one pending task (the first, or the one named) and keep its writes aside."""
        if self.status != "ready":
            raise RuntimeError(f"cannot run a task: the run is {self.status}")
        pending = self.pending
        if not pending:
            raise RuntimeError("no task is pending: commit() the superstep first")
        task = pending[0] if task_id is None else next((t for t in pending if t.id == task_id), None)
        if task is None:
            raise ValueError(f"no pending task with id {task_id!r}")
        result = await self._execute(task)
        try:
            self._record(result, durable=len(self.plan) > 1 or not self.inline_sync)
        except Exception as exc:  # the saver failed: the run ends, RunFinished last
            self._fail(exc)
            raise
        self._after_tasks_check()
        return result

    async def run_pending(self) -> list[TaskResult]:
        """Run every pending task of the superstep concurrently, recording each as it ends.

        As in LangGraph, a task's unhandled error cancels the siblings still running and
        fails the run; what finished before stays saved, so a retry re-runs only the rest.
        An interrupt cancels nothing: the siblings finish and their writes are kept."""
        if self.status != "ready":
            raise RuntimeError(f"cannot run tasks: the run is {self.status}")
        pending = self.pending
        if not pending:
            return []
        if len(pending) == 1:
            result = await self._execute(pending[0])
            try:
                self._record(result, durable=len(self.plan) > 1 or not self.inline_sync)
            except Exception as exc:  # the saver failed: the run ends, RunFinished last
                self._fail(exc)
                raise
            self._after_tasks_check()
            return [result]
        batchable = [t for t in pending if self._plain_sync(t)]
        done_results: list[TaskResult] = []
        if len(batchable) == len(pending) and self.answers is None:
            done_results = await self._run_sync_batch(pending)
            self._after_tasks_check()
            return done_results
        limit = self.config.get("max_concurrency")
        gate: asyncio.Semaphore | None = None
        if limit is not None and limit < len(pending):  # config["max_concurrency"]: a bounded superstep
            gate = asyncio.Semaphore(max(1, int(limit)))
            futures = [asyncio.ensure_future(self._gated(gate, t)) for t in pending]
        else:
            futures = [asyncio.ensure_future(self._execute(t)) for t in pending]
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
                        self._record(result, durable=True)
                    except Exception as exc:  # the saver failed: siblings are still reported
                        save_error = save_error or exc
                    if result.error is not None:
                        if not result.handled:
                            failed = failed or result.error
                        elif (handler := self._handler_task(result)) is not None:
                            # as LangGraph: the error handler starts now, beside the siblings
                            started = asyncio.ensure_future(
                                self._execute(handler) if gate is None else self._gated(gate, handler))
                            futures.append(started)
                            remaining.add(started)
                if failed is not None and remaining:
                    # as LangGraph: an unhandled error cancels the siblings still running (what
                    # finished stays saved; a retry of the superstep runs only the rest)
                    for fut in remaining:
                        fut.cancel()
                    await asyncio.wait(remaining)
                    self._fail(failed)
                    return done_results
        except asyncio.CancelledError:
            for fut in futures:
                fut.cancel()
            await asyncio.wait(futures)  # each node has handled its cancellation when this returns
            raise
        except Exception as exc:  # an engine fault: the run ends with RunFinished all the same
            self._fail(exc)
            raise
        if save_error is not None:
            self._fail(save_error)
            raise save_error
        self._after_tasks_check()
        return done_results

    async def _gated(self, gate: asyncio.Semaphore, task: PlannedTask) -> TaskResult:
        async with gate:
            return await self._execute(task)

    def _writer_for(self, task: PlannedTask) -> Callable[[Any], None]:
        def write(payload: Any) -> None:
            event = CustomData(**self._base(), task_id=task.id, name=task.name, payload=payload)
            if threading.get_ident() == self._loop_thread or self._loop is None:
                self._emit(event)
            else:
                self._loop.call_soon_threadsafe(self._emit, event)

        return write

    def _prepare(self, task: PlannedTask) -> tuple[NodeRunner, TaskContext, Any]:
        """A task's runner, its context (for interrupt() and the stream writer) and input."""
        runner: NodeRunner = self.graph.runners[task.name]
        schema = self.graph.schema
        if task.is_send:
            state = task.arg
        elif runner.input_view is not None:
            state = runner.input_view(schema.with_managed(self.values, self.step + 1, self._stop))
        elif schema.managed:
            state = schema.node_input(schema.with_managed(self.values, self.step + 1, self._stop))
        else:
            state = schema.node_input(self.values)
        config = self.config if self.tracer is None else \
            self.tracer.task_config(task, self.step + 1, state, self.thread_id, self._push_index(task))
        if runner.wants_config:  # the node sees its own task's namespace, as in LangGraph
            config = {**config, "configurable": {**config["configurable"], "checkpoint_ns": task_namespace(
                self.checkpoint_ns, task.name, task.id)}}
        resume_for, resume_map = self._resume_for, self._resume_map  # empty unless resuming
        ctx = TaskContext(task_id=task.id, name=task.name, config=config, writer=self._writer_for(task),
                          resume=list(resume_for.get(task.id, ())) if resume_for else [],
                          parent=current_task.get(), run=self,
                          resume_map=resume_map.get(task.id) if resume_map else None)
        if runner.handles_errors and task.trigger.startswith(HANDLER_TRIGGER):
            ctx.node_error = task.arg
        if runner.is_runnable or runner.wants_config:  # it is given its config: with read/send of its channels
            ctx.config = with_channel_access(ctx, self)
        timeout = runner.timeout if task.timeout is None else task.timeout
        if timeout is not None and timeout.refresh_on == "auto":
            ctx.writer = _with_heartbeat(ctx.writer, ctx)
        if self._listeners:
            self._emit(TaskStarted(**self._base(), task_id=task.id, name=task.name, trigger=task.trigger,
                                   input=state))
        return runner, ctx, state

    def _push_index(self, task: PlannedTask) -> int:
        """A Send task's position among the superstep's Sends (LangGraph's push path index);
        only asked for when the run reports to callbacks."""
        if not task.is_send:
            return 0
        sends = (t for t in self.plan if t.is_send)
        return next((i for i, t in enumerate(sends) if t is task), 0)

    def _conclude(self, task: PlannedTask, runner: NodeRunner, ctx: TaskContext, output: Any,
                  error: BaseException | None, trace: str, started: float) -> TaskResult:
        """Turn what a node returned (or raised) into a TaskResult: writes and routes."""
        result = TaskResult(task=task)
        if error is not None and isinstance(error, ParentCommand):  # a graph invoked inside the node sent a Command to it
            output, error = error.command, None
        if error is None:
            try:
                self._route(runner, task, output, result, ctx.pushed)
            except Exception as exc:  # a router's or an update's error, reported as the node's
                error, trace = exc, tb.format_exc()
        if isinstance(error, GraphInterrupt):
            result.interrupts = tuple(i for i in error.interrupts if isinstance(i, Interrupt))
            result.paused = not result.interrupts  # a subgraph stopped at one of its breakpoints
            result.writes, result.routes, result.sends = [], [], []
        elif error is not None:
            result.error, result.traceback = error, trace
            result.writes, result.routes, result.sends = [], [], []
        result.resume = ctx.resume
        result.duration_s = time.perf_counter() - started
        if self.tracer is not None:
            unwrap = getattr(self.graph.schema, "unwrap_update", None)  # an entrypoint shows its return value
            self.tracer.task_end(task, output if unwrap is None or error is not None else unwrap(output), error)
        return result

    async def _execute(self, task: PlannedTask) -> TaskResult:
        runner, ctx, state = self._prepare(task)
        started = time.perf_counter()
        if self.answers is not None:  # a recorded replay: the node's output from the records
            answer = self.answers(task)
            if answer is not NOT_ANSWERED:
                result = self._conclude(task, runner, ctx, answer, None, "", started)
                result.recorded = result.ok
                return result
            if not ctx.resume and self._resume_for.get(task.id):  # the hook handed it recorded resume values
                ctx.resume = list(self._resume_for[task.id])
        key = None
        if runner.cache_policy is not None and self.graph.cache is not None:
            key = cache_key(runner.cache_policy, task.name, state)
            found = self.graph.cache.get([key]) if key is not None else {}
            if key in found:
                result = self._conclude(task, runner, ctx, found[key], None, "", started)
                result.cached = result.ok
                return result
        token = current_task.set(ctx)
        lc_token = None if self.tracer is None else self.tracer.context_var.set(ctx.config)
        timeout = runner.timeout if task.timeout is None else task.timeout  # a Send's own wins
        watched = watch_callbacks(ctx) if timeout is not None and timeout.refresh_on == "auto" else None
        output: Any = None
        error: BaseException | None = None
        trace = ""
        try:
            attempt = 1
            while True:
                try:
                    if timeout is None:
                        output = await self._call(runner, task, state, ctx)
                    else:
                        output = await run_timed(self._call(runner, task, state, ctx), timeout, task.name, ctx)
                    break
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
                    if self.inline_sync and len(self.plan) == 1 and not runner.is_async:
                        time.sleep(delay)  # a sync invoke waits on its own thread, as LangGraph's does
                    else:
                        await asyncio.sleep(delay)
                    attempt += 1
                    ctx.calls = 0
                    ctx.attempt = attempt
                    if ctx.first_attempt_time is None:
                        ctx.first_attempt_time = time.time() - (time.perf_counter() - started)
        except asyncio.CancelledError as exc:
            running = asyncio.current_task()
            if running is None or running.cancelling():  # cancelled from outside: torn down
                raise
            # the node raised it itself: a failure of the node like any other, as in LangGraph
            error, trace = NodeCancelledError(task.name), tb.format_exc()
            error.__cause__ = exc
        except Exception as exc:  # the node's own error: kept and reported unchanged
            error, trace = exc, tb.format_exc()
        finally:
            current_task.reset(token)
            if watched is not None:
                unwatch_callbacks(watched)
            if lc_token is not None:
                self.tracer.context_var.reset(lc_token)  # type: ignore[union-attr]
        if key is not None and error is None:
            self.graph.cache.set({key: (output, runner.cache_policy.ttl)})
        if runner.async_router and error is None:  # an async router is awaited off the loop
            return await asyncio.get_running_loop().run_in_executor(
                None, contextvars.copy_context().run, self._conclude, task, runner, ctx, output, error, trace, started)
        return self._conclude(task, runner, ctx, output, error, trace, started)

    async def _run_sync_batch(self, tasks: Sequence[PlannedTask]) -> list[TaskResult]:
        """Many plain sync tasks (a Send fan-out): a few worker threads pull them from one
        queue, instead of one asyncio task and one executor job per task. Each result is
        recorded (and its writes saved) as soon as it comes back."""
        loop = asyncio.get_running_loop()
        jobs: deque[tuple[PlannedTask, NodeRunner, TaskContext, Any, contextvars.Context]] = deque()
        for task in tasks:
            runner, ctx, state = self._prepare(task)
            context = contextvars.copy_context()
            context.run(current_task.set, ctx)
            if self.tracer is not None:
                context.run(self.tracer.context_var.set, ctx.config)
            jobs.append((task, runner, ctx, state, context))
        back: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()

        def worker() -> None:
            while True:
                try:
                    task, runner, ctx, state, context = jobs.popleft()
                except IndexError:
                    return
                started = time.perf_counter()
                outcome: tuple[PlannedTask, NodeRunner, TaskContext, Any, Exception | None, str, float]
                try:
                    outcome = (task, runner, ctx, context.run(runner.call_sync, state, ctx.config, ctx.writer),
                               None, "", started)
                except Exception as exc:
                    outcome = (task, runner, ctx, None, exc, tb.format_exc(), started)
                loop.call_soon_threadsafe(back.put_nowait, outcome)

        count = min(len(tasks), _BATCH_WORKERS, max(1, int(self.config.get("max_concurrency") or _BATCH_WORKERS)))
        workers = [asyncio.wrap_future(WORKERS.submit(worker)) for _ in range(count)]
        results: list[TaskResult] = []
        save_error: Exception | None = None
        handlers: list[asyncio.Future[TaskResult]] = []  # error handlers, started beside the batch
        try:
            for _ in range(len(tasks)):
                result = self._conclude(*await back.get())
                results.append(result)
                try:
                    self._record(result, durable=True)
                except Exception as exc:  # the saver failed: siblings are still reported
                    save_error = save_error or exc
                if result.handled and (handler := self._handler_task(result)) is not None:
                    handlers.append(asyncio.ensure_future(self._execute(handler)))
            for future in handlers:
                result = await future
                results.append(result)
                try:
                    self._record(result, durable=True)
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
        await asyncio.gather(*workers, return_exceptions=True)
        if save_error is not None:
            self._fail(save_error)
            raise save_error
        return results

    def _plain_sync(self, task: PlannedTask) -> bool:
        return task.name != START and self.graph.runners[task.name].plain_sync and task.timeout is None

    async def _call(self, runner: NodeRunner, task: PlannedTask, state: Any, ctx: TaskContext) -> Any:
        """Call the node: async on the loop, sync on a worker thread (or inline for invoke)."""
        if task.name == START:
            return self._start_output(task)
        if runner.is_subgraph:
            return await run_subgraph(self, runner.fn, task, state)
        if runner.is_async:
            return await runner.call_async(state, ctx.config, ctx.writer)
        if self.inline_sync and len(self.plan) == 1:
            return runner.call_sync(state, ctx.config, ctx.writer)
        context = contextvars.copy_context()
        # on a daemon worker, not the loop's executor: a stuck node is abandoned on cancel
        return await asyncio.wrap_future(WORKERS.submit(context.run, runner.call_sync, state, ctx.config, ctx.writer))

    def _start_output(self, task: PlannedTask) -> Any:
        """The hidden __start__ task writes the input into the state."""
        value = task.arg
        if isinstance(value, Command):  # Command(update=, goto=) as the input
            return value
        if self.graph.schema.root:  # the value itself; _route makes it the root channel's write
            return value
        items = _input_items(value)
        keys = self.graph.schema.input_keys
        return {k: v for k, v in items if k in keys}

    def _route(self, runner: NodeRunner, task: PlannedTask, output: Any, result: TaskResult,
               pushed: list[tuple[str, Any]] | None = None) -> None:
        graph = self.graph
        if graph.schema.root:
            output = graph.schema.wrap_update(output)
        writes, dropped, update, command = normalize_update(task.name, output, graph.schema.channels)
        if pushed:  # written while the node ran (push_message): first, as LangGraph applies them
            writes = [*pushed, *writes]
            parts = [{k: v} for k, v in pushed] + ([] if update is None else [update])
            update = parts[0] if len(parts) == 1 else parts  # LangGraph's updates: one entry per write
        result.writes, result.dropped, result.update = writes, dropped, update
        source = task.name
        for target in runner.edges:
            result.routes.append((target, f"edge:{source}"))
        if command is not None:
            if command.graph == Command.PARENT:
                if not self.namespace:  # as LangGraph: no parent graph, so it leaves invoke()
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
        if runner.branches:
            applied_values: Mapping[str, Any]
            applied_values, result.applied = apply_own_writes(self.values, writes, graph.schema.channels)
            if graph.schema.managed:
                applied_values = graph.schema.with_managed(applied_values, self.step + 1, self._stop)
            view = graph.schema.node_input(applied_values)
            wider = view
            if dropped and type(view) is dict and isinstance(update, dict):
                # as LangGraph: keys the node returned that the state has not reach its
                # routers, unless a router's parameter is hinted with a schema
                wider = {**{k: update[k] for k in dropped if k in update}, **view}
            for branch, wants_config, own_view, hinted in runner.branches:
                seen = own_view(applied_values) if own_view is not None else view if hinted else wider
                names, sends = call_router(branch, seen, self.config, graph.node_set, wants_config)
                result.routes.extend((n, f"branch:{source}") for n in names)
                result.sends.extend(sends)

    def _record(self, result: TaskResult, *, durable: bool) -> None:
        """Keep a finished task's result; save it as pending writes so it never runs twice."""
        task = result.task
        self.results[task.id] = result
        tid, ckpt = self.thread_id, self.checkpoint
        # The task's event is emitted even when saving its writes raises (in `finally`):
        # listeners always see every task that ended, then RunFinished.
        if result.error is not None:
            handler = self.graph.runners[task.name].error_handler if task.name in self.graph.runners else None
            if isinstance(result.error, ParentCommand):
                handler = None
            try:
                if self.saver is not None and ckpt is not None:
                    writes = [PendingWrite(task_id=task.id, task_name=task.name, channel=ERROR, value={
                        "type": type(result.error).__name__, "message": str(result.error),
                        "traceback": result.traceback})]
                    if handler is not None:  # a resume runs the handler again, not the node
                        writes.append(PendingWrite(task_id=task.id, task_name=task.name, channel=HANDLED,
                                                   value=handler))
                    self._put_writes(writes)
            finally:
                self._emit(TaskFailed(**self._base(), task_id=task.id, name=task.name, error=result.error,
                                      traceback=result.traceback, duration_s=result.duration_s))
            if handler is not None:
                self._plan_error_handler(result, handler)
            return
        if result.paused:  # nothing saved: the task runs again (and its subgraph continues) on resume
            self._emit(TaskInterrupted(**self._base(), task_id=task.id, name=task.name,
                                       interrupts=(), duration_s=result.duration_s))
            return
        if result.interrupts:
            try:
                if self.saver is not None and ckpt is not None:
                    # The answers first: an interrupt after them starts a new pause (task_status.py).
                    writes = [PendingWrite(task_id=task.id, task_name=task.name, channel=RESUME,
                                           value=list(result.resume))] if result.resume else []
                    writes += [PendingWrite(task_id=task.id, task_name=task.name, channel=INTERRUPT, value=i)
                               for i in result.interrupts]
                    self._put_writes(writes)
            finally:
                self._emit(TaskInterrupted(**self._base(), task_id=task.id, name=task.name,
                                           interrupts=result.interrupts, duration_s=result.duration_s))
            return
        try:
            # A one-task superstep of the sync invoke() commits right away: its writes are
            # saved only when the snapshot could not read them back from its checkpoint.
            if self.saver is not None and ckpt is not None and tid is not None and (
                    durable or not _derivable(result.writes, self.graph.schema.plain_keys)):
                writes = [PendingWrite(task_id=task.id, task_name=task.name, channel=k, value=v)
                          for k, v in result.writes]
                writes += [PendingWrite(task_id=task.id, task_name=task.name, channel=ROUTE, value=[n, why])
                           for n, why in result.routes]
                writes += [PendingWrite(task_id=task.id, task_name=task.name, channel=SEND, value=s)
                           for s in result.sends]
                if not writes:
                    writes = [PendingWrite(task_id=task.id, task_name=task.name, channel=DONE, value=None)]
                self._put_writes(writes)
        finally:
            self._emit_finished(result)
        if self._node_finished is not None and task.name != START:
            self._node_finished(task.name)

    def put_child_writes(self, writes: list[PendingWrite]) -> None:
        """Save writes of a task's child work (an @entrypoint's task calls) beside the
        current checkpoint, as the run's own writes are (durability respected)."""
        if self.saver is not None and self.checkpoint is not None:
            self._put_writes(writes)

    def emit_threadsafe(self, event: RunEvent) -> None:
        """Emit an event from any thread (a node's worker thread included)."""
        if not self._listeners:
            return
        loop = self._loop
        if loop is None or threading.get_ident() == self._loop_thread:
            self._emit(event)
        else:
            loop.call_soon_threadsafe(self._emit, event)

    def _handler_task(self, failed: TaskResult) -> PlannedTask | None:
        """The error-handler task planned for a failed task, while it has not run."""
        handler_id = f"{failed.task.id}!handler"
        if handler_id in self.results:
            return None
        return next((t for t in self.plan if t.id == handler_id), None)

    def _plan_error_handler(self, failed: TaskResult, handler: str) -> None:
        """A failed node with an error handler: the handler joins this superstep as a task
        of its own (told the NodeError), and the run goes on with what it returns."""
        failed.handled = True
        task = failed.task
        planned = PlannedTask(id=f"{task.id}!handler", name=handler, trigger=f"{HANDLER_TRIGGER}{task.name}",
                              arg=NodeError(node=task.name, error=failed.error))  # type: ignore[arg-type]
        at = self.plan.index(task) + 1  # its writes apply where the failed node's would have
        self.plan = (*self.plan[:at], planned, *self.plan[at:])

    def _put_writes(self, writes: list[PendingWrite]) -> None:
        assert self.saver is not None and self.checkpoint is not None
        if self._held is not None:
            self._held.put_writes(self, writes)
            return
        self.saver.put_writes(self.store_key, self.checkpoint.id, writes)

    def _emit_finished(self, result: TaskResult) -> None:
        if not self._listeners:
            return
        task = result.task
        self._emit(TaskFinished(
            **self._base(), task_id=task.id, name=task.name, trigger=task.trigger, update=result.update,
            writes=tuple(result.writes), routes=tuple(n for n, _ in result.routes), sends=tuple(result.sends),
            dropped_keys=result.dropped, duration_s=result.duration_s, replayed=result.replayed,
            cached=result.cached, recorded=result.recorded,
        ))

    def _after_tasks_check(self) -> None:
        """Once every task of the superstep has run: fail, pause on interrupts, or wait for commit."""
        if self.pending or self.status != "ready":
            return
        stopped = False  # one pass over the results (a fan-out has hundreds)
        for r in self.results.values():
            if r.error is not None and not r.handled:
                self._fail(r.error)
                return
            if r.interrupts or r.paused:
                stopped = True
        if stopped:
            nodes = tuple(r.task.name for r in self.results.values() if r.interrupts or r.paused)
            self.status = "interrupted"
            self.preview = self._preview()
            self._emit(RunInterrupted(**self._base(), checkpoint_id=self.checkpoint.id if self.checkpoint else "",
                                      reason="interrupt", nodes=nodes, interrupts=self.interrupts,
                                      values=self.preview))
            self._finish("interrupted")

    def _preview(self) -> dict[str, Any]:
        """The state as if the finished tasks' writes were applied (what invoke returns)."""
        writes = [w for t in self.plan if (r := self.results.get(t.id)) is not None and r.ok for w in r.writes]
        if not writes:
            return self.values
        try:
            return apply_own_writes(self.values, writes, self.graph.schema.channels)[0]
        except Exception:  # e.g. two writes to a plain key: the commit will report it
            return self.values

    # -- ending ----------------------------------------------------------------------
    def _fail(self, error: BaseException | None) -> None:
        if self.status in ("failed", "done", "cancelled"):
            return
        self.error = error
        self.status = "failed"
        self._finish("failed")

    def _finish(self, status: RunStatus) -> None:
        if status in ("done",):
            self.status = "done"
        if self._held is not None:
            # a stateless subgraph that ended well keeps nothing held (its parent's task has its
            # output); a stateful one keeps its state for its next call, however its run began
            stateless = getattr(self.graph, "persistence", None) is not True
            self._flush_saves(drop_held=status == "done" and bool(self.namespace) and stateless)
            status = "failed" if self.status == "failed" else status
        if self.tracer is not None and not self.tracer.ended_by_driver:
            self.tracer.end(self.graph.schema.output(self.preview or self.values), self.error)
        self._emit(RunFinished(**self._base(step=self.step), status=status, values=self.values,
                               checkpoint_id=self.checkpoint.id if self.checkpoint else None, error=self.error))

    def fail(self, error: BaseException) -> None:
        """End the run with `error`, raised by its driver (a step timeout, say)."""
        self._fail(error)

    def _flush_saves(self, *, drop_held: bool = False) -> None:
        """The run ends: what durability held back or has in flight is stored now (or, with
        `drop_held`, only what is in flight). A save that fails fails the run (or, when it
        failed already, is noted on its error)."""
        assert self._held is not None
        try:
            if drop_held:
                self._held.settle()
            else:
                self._held.flush(self)
        except Exception as exc:
            if self.error is None:
                self.error, self.status = exc, "failed"
            elif exc is not self.error and hasattr(self.error, "add_note"):
                self.error.add_note(f"Also, saving the run's checkpoints failed: {type(exc).__name__}: {exc}")

    def cancel(self) -> None:
        """Stop the run: nothing more runs; what was committed stays."""
        if self.status in ("ready", "new"):
            self.status = "cancelled"
            self._finish("cancelled")

    # -- drivers -------------------------------------------------------------------
    async def superstep(self) -> StepCommitted | None:
        """Run the rest of the superstep and commit it; None when the run paused or ended."""
        if self.status == "new":
            await self.start()
        if self.status != "ready":
            return None
        await self.run_pending()
        self._raise_failure()
        if not self.ready_to_commit:
            return None
        return self.commit()

    def _raise_failure(self) -> None:
        """A failed run's error raised (for the drivers that raise it)."""
        if self.status == "failed" and self.error is not None:
            raise self.error

    async def drive(self, hooks: DriveHooks | None = None) -> RunStatus:
        """Drive the run until it is done, interrupted or failed, or until a hook stops it
        (see `engine.runtime.drive`); returns its status. A failure is not raised: the
        run is left `failed` with its `error`."""
        async for _ in drive(self, hooks):
            pass
        return self.status

    async def run_to_end(self) -> RunStatus:
        """Drive the run until it is done, interrupted or failed (raising the node's error)."""
        status = await self.drive()
        if status == "failed" and self.error is not None:
            raise self.error
        return status


def _with_heartbeat(writer: Callable[[Any], None], ctx: TaskContext) -> Callable[[Any], None]:
    """A stream writer whose every write also counts as progress (idle timeouts)."""
    def write(payload: Any) -> None:
        ctx.heartbeat()
        writer(payload)

    return write


def _input_items(value: Any) -> list[tuple[str, Any]]:
    if isinstance(value, Mapping):
        return list(value.items())
    from .task import _as_items

    items = _as_items(value)
    if items is None:
        raise InvalidUpdateError(
            f"the graph's input must be a dict of state keys (or an instance of the state schema), "
            f"got {type(value).__name__}: {value!r:.80}"
        )
    return items


def _derivable(writes: list[tuple[str, Any]], plain: dict[str, bool]) -> bool:
    """Whether history can read these writes of a one-task superstep back from the
    checkpoint it makes (graph/task_results.py): one write per key, each to a plain key
    or a list to append."""
    if len(writes) == 1:  # the usual one-task superstep: no set needed
        key, value = writes[0]
        appends = plain.get(key)
        return appends is not None and (not appends or type(value) is list)
    seen: set[str] = set()
    for key, value in writes:
        appends = plain.get(key)
        if appends is None or (appends and type(value) is not list) or key in seen:
            return False
        seen.add(key)
    return True
