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
import os
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..checkpoint.base import (
    Checkpoint,
    PendingWrite,
    PlannedTask,
    new_checkpoint_id,
    ns_thread_key,
)
from ..checkpoint.routing import routed
from ..constants import NODE_FINISHED_KEY, RUNTIME_KEY
from ..errors import (
    NodeError,
)
from ..types import Interrupt
from .commit import after_commit, apply_updates, commit_checked
from .context import current_task
from .drive import DriveHooks, drive
from .durability import saves_for
from .injected import run_context
from .langsmith_context import tracing_requested
from .events import (
    RunEvent,
    RunFinished,
    RunInterrupted,
    RunStarted,
    RunStatus,
    StepCommitted,
    TaskFinished,
)
from .execute import HANDLER_TRIGGER, NOT_ANSWERED, execute, run_concurrently
from .options import RunOptions, run_options
from .head import stored_writes
from .resume_values import ResumeValues
from .start import start_run
from .sync_batch import run_sync_batch
from .task_outcome import record_result, save_unsaved
from .task import (
    TaskResult,
    apply_own_writes,
)

if TYPE_CHECKING:
    from .protocols import CompiledGraph, HeldWrites
    from .tracing import GraphTrace

__all__ = ["Run", "DEFAULT_RECURSION_LIMIT", "NOT_ANSWERED", "FROM_GRAPH"]

DEFAULT_RECURSION_LIMIT = 10007
FROM_GRAPH: Any = object()
"""`checkpointer=` default of a new Run: the graph's own checkpointer."""


class Run:
    """One execution of a compiled graph on one thread.

    Status goes new -> ready -> (interrupted | done | failed | cancelled); a `ready`
    run has `pending` tasks to run and then a superstep to commit.
    """

    # Slots for what __init__ sets: read on every superstep, they stay fast however many
    # there are (past 30 instance attributes CPython 3.11 stops sharing a class's dict keys
    # and every `self.x` becomes a plain dict probe). Anything else set later (a caller's
    # flags: sync_api, inline_call) goes to the instance dict.
    __slots__ = (
        "graph", "config", "input", "interrupt_before", "interrupt_after", "recursion_limit", "inline_sync",
        "saver", "namespace", "checkpoint_ns", "options", "run_id", "thread_id",
        "store_key", "status", "error", "checkpoint", "values", "plan", "results", "preview", "_listeners",
        "listening", "task_events", "wants_diffs", "wants_ids", "first_step", "loop_thread", "loop", "resumes", "durable_ids", "_id_prefix",
        "_id_count", "durability", "held", "context", "tracer", "store", "node_finished", "_forward_lock",
        "unsaved_result", "values_sink", "__dict__",
    )

    def __init__(
        self,
        graph: CompiledGraph,
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
        options: RunOptions | None = None,
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
        self.listening = False
        """Whether anyone subscribed (events are built only then)."""
        self.task_events = False
        """Whether a listener wants each task's TaskStarted and TaskFinished (a listener
        says it does not with `task_events = False`: a stream of "values" only)."""
        self.wants_diffs = False
        """Whether a listener wants each StepCommitted's ChannelDiffs (a listener says it
        does not with `wants_diffs = False`: a stream that shows no diffs)."""
        self.wants_ids = False
        """Whether a listener shows checkpoint and task ids, so that they must be real ones
        (a listener says it does not with `wants_ids = False`: a stream of "values")."""
        self.values_sink: Callable[[tuple[str, ...], Any, tuple[str, ...]], bool] | None = None
        """The only listener's `values_sink` (stream.StreamCollector.step_values): a plain
        superstep hands it the new state instead of building a StepCommitted."""
        self.first_step = 0
        """The step of the first superstep this run executes (set by `start()`)."""
        self.loop_thread: int | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        """The event loop `start()` ran on, and its thread: where events are delivered."""
        self.resumes = ResumeValues()
        """The resume values this run hands its tasks (engine/runtime/resume_values.py)."""
        self.durable_ids = self.saver is not None
        """Checkpoint ids and times that outlive the run; without a store, a cheap counter."""
        self._id_prefix = new_checkpoint_id() + "."
        self._id_count = 0
        self.durability = durability
        """"sync"/"async" (None: the same) save every superstep; "exit" only the last checkpoint."""
        self.held: HeldWrites | None = saves_for(durability, self.saver)
        """Where saves go under durability "exit" (held to the end) or "async" (a writer thread)."""
        enclosing = current_task.get()
        outer = enclosing.run if enclosing is not None else None
        """A graph run inside a node (a subgraph) shares the run's context and store."""
        seeded = self.config["configurable"].get(RUNTIME_KEY)
        """A runtime object a caller put in the config (a server's graph factory does): its
        context applies when the run is given none, its store when it carries one."""
        self.context = run_context(graph.builder.context_schema, context, seeded, outer)
        self.tracer: GraphTrace | None = None
        """LangChain callbacks of this run (tracing, `messages` stream): only with config
        callbacks, or LangSmith tracing turned on (langsmith_context.py)."""
        if self.config.get("callbacks") or tracing_requested():
            from .tracing import GraphTrace

            self.tracer = GraphTrace(self.config, graph.name, (), {
                name: spec.trace_policy for name, spec in graph.builder.nodes.items() if spec.trace_policy})
        self.store = graph.store if graph.store is not None or outer is None else outer.store
        if seeded is not None and getattr(seeded, "store", None) is not None:
            self.store = seeded.store
        self.node_finished: Callable[[str], Any] | None = self.config["configurable"].get(NODE_FINISHED_KEY)
        """LangGraph's node-finished hook from the config, told each node that finishes well."""
        # config["record"] is taken out of the config, so nodes (and LangChain callbacks) never see it
        self.options: RunOptions = run_options(options, control, bool(self.config.pop("record", False)),
                                               outer.options if outer is not None else None)
        """How this run differs from a plain invoke (resume, subgraph, time travel, recording):
        see `engine.runtime.options`."""
        self._forward_lock: threading.Lock | None = None
        self.unsaved_result: TaskResult | None = None
        """A finished task of the async API whose writes' save was left to the commit that
        follows at once (task_outcome.save_unsaved saves them if control leaves first)."""

    # -- 0. start (start.py) ------------------------------------------------------------
    async def start(self) -> RunStarted:
        """Load the thread, save the input (or fork an old checkpoint) and plan the first superstep."""
        return await start_run(self)

    # -- 3. commit (commit.py) -----------------------------------------------------------
    @property
    def ready_to_commit(self) -> bool:
        plan = self.plan  # (results hold only planned tasks: as many results as tasks is none pending)
        return self.status == "ready" and bool(plan) and (len(self.results) >= len(plan) or not self.pending)

    def commit(self, *, report: bool = True) -> StepCommitted | None:
        """Apply the superstep's writes in LangGraph's order, save the checkpoint, plan the next.

        Returns the StepCommitted event with a ChannelDiff per key; `report=False` (used
        by invoke() when nobody listens) skips building the diffs and returns None."""
        return commit_checked(self, report=report)

    def apply_update(self, base: Checkpoint | None, values: Any, as_node: str | None) -> Checkpoint:
        """update_state(): apply `values` as if `as_node` had written them, on a new
        checkpoint (source "update") whose next tasks follow `as_node`'s edges."""
        return apply_updates(self, base, [(values, as_node)])

    def apply_updates(self, base: Checkpoint | None, updates: Sequence[tuple[Any, str | None]], *,
                      keep_writes: bool = False) -> Checkpoint:
        """One superstep of update_state/bulk_update_state: each `(values, as_node)` is
        applied as if that node had returned it, all in one new checkpoint (commit.py)."""
        return apply_updates(self, base, updates, keep_writes=keep_writes)

    def after_commit(self, nodes_ran: tuple[str, ...]) -> None:
        """What follows a commit: the recursion limit, the end, a drain, a breakpoint."""
        after_commit(self, nodes_ran)

    def preset_resume(self, task_id: str, values: Sequence[Any]) -> None:
        """Hand resume values to a pending task before it runs: its n-th interrupt() returns
        the n-th value (a recorded replay gives the values the recorded run was resumed with)."""
        self.resumes.hand(task_id, values)

    def set_options(self, **changes: Any) -> RunOptions:
        """Replace some of the run's options (a debugger's gate for "step into", a recorded
        replay's answers once the run has started); returns the new options."""
        self.options = replace(self.options, **changes)
        return self.options

    def gave_resume(self, task_id: str) -> bool:
        """Whether this run handed `task_id` a resume value (not only the answers it took
        before): a subgraph inside it continues with the newest value."""
        return self.resumes.gave(task_id)

    # -- observing ------------------------------------------------------------------
    def subscribe(self, listener: Callable[[RunEvent], None]) -> Callable[[], None]:
        """Call `listener(event)` for every event; returns a function that unsubscribes."""
        self._listeners.append(listener)
        self.listening = True
        self.task_events = self.task_events or getattr(listener, "task_events", True)
        self.wants_diffs = self.wants_diffs or getattr(listener, "wants_diffs", True)
        self.wants_ids = self.wants_ids or getattr(listener, "wants_ids", True)
        self.values_sink = getattr(listener, "values_sink", None) if len(self._listeners) == 1 else None

        def unsubscribe() -> None:
            self._listeners.remove(listener)
            self.listening = bool(self._listeners)
            self.task_events = any(getattr(other, "task_events", True) for other in self._listeners)
            self.wants_diffs = any(getattr(other, "wants_diffs", True) for other in self._listeners)
            self.wants_ids = any(getattr(other, "wants_ids", True) for other in self._listeners)
            listeners = self._listeners
            self.values_sink = getattr(listeners[0], "values_sink", None) if len(listeners) == 1 else None

        return unsubscribe

    def next_checkpoint_id(self) -> str:
        """The id of the checkpoint a commit makes: a real one when it is stored or a
        listener shows ids, else a cheap counter (unique in the run, as a real one)."""
        if self.durable_ids or self.wants_ids:
            return new_checkpoint_id()
        self._id_count += 1
        return f"{self._id_prefix}{self._id_count}"

    @property
    def listeners(self) -> tuple[Callable[[RunEvent], None], ...]:
        return tuple(self._listeners)

    def emit(self, event: RunEvent) -> None:
        """Hand `event` to every listener, on the calling thread."""
        for listener in tuple(self._listeners):
            listener(event)

    @property
    def stop_step(self) -> int:
        """The superstep the recursion limit lets this run reach (for managed values)."""
        return self.first_step + self.recursion_limit

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

    def event_fields(self, **fields: Any) -> dict[str, Any]:
        """The fields every event of this run carries (run, thread, step, namespace), plus `fields`."""
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
        result = await execute(self, task)
        try:
            self.keep_result(result, durable=len(self.plan) > 1 or not self.inline_sync)
        except Exception as exc:  # the saver failed: the run ends, RunFinished last
            self.fail(exc)
            raise
        self.check_after_tasks()
        return result

    async def run_pending(self, *, commit_follows: bool = False) -> list[TaskResult]:
        """Run every pending task of the superstep concurrently, recording each as it ends.

        `commit_follows`: the caller commits at once when they end (drive()'s loop): a
        lone task's writes are then saved only if control leaves the run first
        (`save_unsaved`), as invoke's are.

        As in LangGraph, a task's unhandled error cancels the siblings still running and
        fails the run; what finished before stays saved, so a retry re-runs only the rest.
        An interrupt cancels nothing: the siblings finish and their writes are kept."""
        if self.status != "ready":
            raise RuntimeError(f"cannot run tasks: the run is {self.status}")
        pending = self.pending
        if not pending:
            return []
        if len(pending) == 1:
            result = await execute(self, pending[0])
            try:
                self.keep_result(result, durable=len(self.plan) > 1 or not (self.inline_sync or commit_follows))
            except Exception as exc:  # the saver failed: the run ends, RunFinished last
                self.fail(exc)
                raise
            self.check_after_tasks()
            return [result]
        runners = self.graph.runners
        done_results: list[TaskResult] = []
        if self.options.answers is None and all(runners[t.name].inline and t.timeout is None for t in pending):
            # (every task plain sync code, a NodeRunner.inline: a fan-out of plain sync nodes)
            done_results = await run_sync_batch(self, pending)
            self.check_after_tasks()
            return done_results
        done_results = await run_concurrently(self, pending)
        if self.status == "ready":
            self.check_after_tasks()
        return done_results

    def save_unsaved(self) -> None:
        """Control leaves the run before the commit that was to follow its lone task at
        once: that task's writes are saved now (task_outcome.save_unsaved)."""
        try:
            save_unsaved(self)
        except Exception as exc:  # the saver failed: the run ends, RunFinished last
            self.fail(exc)
            raise

    def keep_result(self, result: TaskResult, *, durable: bool) -> None:
        """Keep a finished task's result; save it as pending writes so it never runs twice
        (task_outcome.py)."""
        record_result(self, result, durable=durable)

    def put_child_writes(self, writes: list[PendingWrite]) -> None:
        """Save writes of a task's child work (an @entrypoint's task calls) beside the
        current checkpoint, as the run's own writes are (durability respected)."""
        if self.saver is not None and self.checkpoint is not None:
            self.save_writes(writes)

    def forward(self, event: RunEvent) -> None:
        """Hand an event of a child run (a subgraph, a graph invoked in a node) to this run's
        listeners: at once on the run's loop thread, else on its loop, in order; when the
        loop is blocked in the node that runs the child (a sync invoke's one task), at once."""
        if not self._listeners:
            return
        self.in_order(self.emit, event)

    def in_order(self, deliver: Callable[[Any], None], item: Any) -> None:
        """`deliver(item)` as `forward` delivers a child run's event: so a node's callback
        chunks (tokens, tool events) from a worker thread keep their order with the events
        of the runs that thread makes."""
        loop = self.loop
        if loop is None or threading.get_ident() == self.loop_thread or loop.is_closed():
            deliver(item)
        elif (self.inline_sync or self.__dict__.get("inline_call")) and len(self.plan) == 1:
            if self._forward_lock is None:
                self._forward_lock = threading.Lock()
            with self._forward_lock:  # the parent's loop is blocked in this node: deliver now, in order
                deliver(item)
        else:
            loop.call_soon_threadsafe(deliver, item)

    def emit_threadsafe(self, event: RunEvent) -> None:
        """Emit an event from any thread (a node's worker thread included)."""
        if not self._listeners:
            return
        loop = self.loop
        if loop is None or threading.get_ident() == self.loop_thread:
            self.emit(event)
        else:
            loop.call_soon_threadsafe(self.emit, event)

    def handler_task(self, failed: TaskResult) -> PlannedTask | None:
        """The error-handler task planned for a failed task, while it has not run."""
        handler_id = f"{failed.task.id}!handler"
        if handler_id in self.results:
            return None
        return next((t for t in self.plan if t.id == handler_id), None)

    def plan_error_handler(self, failed: TaskResult, handler: str) -> None:
        """A failed node with an error handler: the handler joins this superstep as a task
        of its own (told the NodeError), and the run goes on with what it returns."""
        failed.handled = True
        task = failed.task
        planned = PlannedTask(id=f"{task.id}!handler", name=handler, trigger=f"{HANDLER_TRIGGER}{task.name}",
                              arg=NodeError(node=task.name, error=failed.error))  # type: ignore[arg-type]
        at = self.plan.index(task) + 1  # its writes apply where the failed node's would have
        self.plan = (*self.plan[:at], planned, *self.plan[at:])

    def save_writes(self, writes: list[PendingWrite]) -> None:
        """Store `writes` beside the current checkpoint (run-only keys left out), through
        what durability holds back when it does."""
        assert self.saver is not None and self.checkpoint is not None
        unsaved = self.graph.schema.unsaved_keys
        if unsaved:  # run-only keys never reach the store
            writes = stored_writes(writes, unsaved)
        if self.held is not None:
            self.held.put_writes(self, writes)
            return
        self.saver.save_writes(self.store_key, self.checkpoint.id, writes)

    def emit_finished(self, result: TaskResult) -> None:
        """Tell the listeners a task finished (TaskFinished), when one of them wants it."""
        if not self.task_events:
            return
        task = result.task
        self.emit(TaskFinished(
            **self.event_fields(), task_id=task.id, name=task.name, trigger=task.trigger, update=result.update,
            writes=tuple(result.writes), routes=tuple(n for n, _ in result.routes), sends=tuple(result.sends),
            dropped_keys=result.dropped, duration_s=result.duration_s, replayed=result.replayed,
            cached=result.cached, recorded=result.recorded,
        ))

    def check_after_tasks(self) -> None:
        """Once every task of the superstep has run: fail, pause on interrupts, or wait for commit."""
        if self.status != "ready" or (len(self.results) < len(self.plan) and self.pending):
            return
        stopped = False  # one pass over the results (a fan-out has hundreds)
        for r in self.results.values():
            if r.error is not None and not r.handled:
                self.fail(r.error)
                return
            if r.interrupts or r.paused:
                stopped = True
        if stopped:
            nodes = tuple(r.task.name for r in self.results.values() if r.interrupts or r.paused)
            self.status = "interrupted"
            self.preview = self._preview()
            self.emit(RunInterrupted(**self.event_fields(), checkpoint_id=self.checkpoint.id if self.checkpoint else "",
                                      reason="interrupt", nodes=nodes, interrupts=self.interrupts,
                                      values=self.preview))
            self.finish("interrupted")

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
    def fail(self, error: BaseException | None) -> None:
        """End the run as failed with `error` (a task's, a saver's, or its driver's: a step
        timeout, say); a run that has ended already stays as it is."""
        if self.status in ("failed", "done", "cancelled"):
            return
        self.error = error
        self.status = "failed"
        self.finish("failed")

    def finish(self, status: RunStatus) -> None:
        """The run ends with `status`: flush held saves, end the trace, emit RunFinished."""
        if status in ("done",):
            self.status = "done"
        if self.held is not None:
            # a stateless subgraph that ended well keeps nothing held (its parent's task has its
            # output); a stateful one keeps its state for its next call, however its run began
            stateless = getattr(self.graph, "persistence", None) is not True
            self._flush_saves(drop_held=status == "done" and bool(self.namespace) and stateless)
            status = "failed" if self.status == "failed" else status
        if self.tracer is not None and not self.tracer.ended_by_driver:
            self.tracer.end(self.graph.schema.output(self.preview or self.values), self.error)
        self.emit(RunFinished(**self.event_fields(step=self.step), status=status, values=self.values,
                               checkpoint_id=self.checkpoint.id if self.checkpoint else None, error=self.error))

    def _flush_saves(self, *, drop_held: bool = False) -> None:
        """The run ends: what durability held back or has in flight is stored now (or, with
        `drop_held`, only what is in flight). A save that fails fails the run (or, when it
        failed already, is noted on its error)."""
        assert self.held is not None
        try:
            if drop_held:
                self.held.settle()
            else:
                self.held.flush(self)
        except Exception as exc:
            if self.error is None:
                self.error, self.status = exc, "failed"
            elif exc is not self.error and hasattr(self.error, "add_note"):
                self.error.add_note(f"Also, saving the run's checkpoints failed: {type(exc).__name__}: {exc}")

    def cancel(self) -> None:
        """Stop the run: nothing more runs; what was committed stays."""
        if self.status in ("ready", "new"):
            self.status = "cancelled"
            self.finish("cancelled")

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
