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
import threading
import time
import traceback as tb
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..channels import MISSING
from ..checkpoint.base import (
    DONE,
    ERROR,
    INTERRUPT,
    RESUME,
    ROUTE,
    SEND,
    Checkpoint,
    PendingWrite,
    PlannedTask,
    new_checkpoint_id,
    new_task_id,
    now_iso,
)
from ..constants import END, START
from ..errors import (
    EmptyInputError,
    GraphInterrupt,
    GraphRecursionError,
    InvalidRouteError,
    InvalidUpdateError,
    MissingThreadIdError,
    ResumeError,
)
from ..types import Command, Interrupt, Send
from .context import TaskContext, current_task
from .diff import ChannelDiff, ChannelWrite
from .events import (
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
from .task import NodeRunner, TaskResult, apply_own_writes, call_router, normalize_update, resolve_targets

if TYPE_CHECKING:
    from ..graph.compiled import CompiledStateGraph

__all__ = ["Run", "DEFAULT_RECURSION_LIMIT"]

DEFAULT_RECURSION_LIMIT = 10007


class Run:
    """One execution of a compiled graph on one thread.

    Status goes new -> ready -> (interrupted | done | failed | cancelled); a `ready`
    run has `pending` tasks to run and then a superstep to commit.
    """

    def __init__(
        self,
        graph: CompiledStateGraph,
        input: Any = None,
        config: Mapping[str, Any] | None = None,
        *,
        interrupt_before: Sequence[str] | None = None,
        interrupt_after: Sequence[str] | None = None,
        inline_sync: bool = False,
    ) -> None:
        self.graph = graph
        self.config: dict[str, Any] = dict(config or {})
        self.config.setdefault("configurable", {})
        self.input = input
        self.interrupt_before = frozenset(graph.interrupt_before if interrupt_before is None else interrupt_before)
        self.interrupt_after = frozenset(graph.interrupt_after if interrupt_after is None else interrupt_after)
        self.recursion_limit = int(self.config.get("recursion_limit", DEFAULT_RECURSION_LIMIT))
        self.inline_sync = inline_sync
        self.saver = graph.checkpointer
        self.run_id = str(uuid.uuid4())
        self.thread_id: str | None = self.config["configurable"].get("thread_id")
        if self.thread_id is not None:
            self.thread_id = str(self.thread_id)
        self.status = "new"
        self.error: BaseException | None = None
        self.checkpoint: Checkpoint | None = None
        self.values: dict[str, Any] = {}
        self.plan: tuple[PlannedTask, ...] = ()
        self.results: dict[str, TaskResult] = {}
        self.last_commit: StepCommitted | None = None
        self.preview: dict[str, Any] | None = None
        self._listeners: list[Callable[[RunEvent], None]] = []
        self._first_step = 0
        self._loop_thread: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._resume_for: dict[str, list[Any]] = {}

    # -- observing ------------------------------------------------------------------
    def subscribe(self, listener: Callable[[RunEvent], None]) -> Callable[[], None]:
        """Call `listener(event)` for every event; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _emit(self, event: RunEvent) -> None:
        for listener in tuple(self._listeners):
            listener(event)

    @property
    def step(self) -> int:
        return self.checkpoint.step if self.checkpoint is not None else -1

    @property
    def pending(self) -> tuple[PlannedTask, ...]:
        """Tasks of the current superstep that have not run yet."""
        return tuple(t for t in self.plan if t.id not in self.results)

    @property
    def interrupts(self) -> tuple[Interrupt, ...]:
        return tuple(i for r in self.results.values() for i in r.interrupts)

    def _base(self, **fields: Any) -> dict[str, Any]:
        return {"run_id": self.run_id, "thread_id": self.thread_id, "step": fields.pop("step", self.step + 1), **fields}

    # -- 0. start -------------------------------------------------------------------
    async def start(self) -> RunStarted:
        """Load the thread, save the input (or fork an old checkpoint) and plan the first superstep."""
        if self.status != "new":
            raise RuntimeError(f"this run was already started (status: {self.status})")
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        cfg = self.config["configurable"]
        if self.saver is not None and self.thread_id is None:
            raise MissingThreadIdError(
                "This graph has a checkpointer, so each run needs a thread: pass "
                "config={'configurable': {'thread_id': 'some-id'}} to invoke/stream."
            )
        addressed = cfg.get("checkpoint_id")
        base = None
        if self.saver is not None:
            base = self.saver.get(self.thread_id, addressed)
            if addressed and base is None:
                raise ValueError(
                    f"thread {self.thread_id!r} has no checkpoint {addressed!r}; "
                    "pick one from get_state_history()"
                )
        is_command = isinstance(self.input, Command)
        resume = self.input.resume if is_command else None
        if self.input is None or (is_command and resume is not None):
            mode = self._start_resume(base, addressed, resume)
        else:
            mode = self._start_input(base)
        self.status = "ready"
        started = RunStarted(
            **self._base(step=self.step),
            checkpoint_id=self.checkpoint.id if self.checkpoint else "",
            mode=mode,
            next=self.plan,
            values=self.values,
        )
        self._emit(started)
        for result in list(self.results.values()):
            if result.replayed and result.ok:
                self._emit_finished(result)
        if not self.pending and not self.results and not self.plan:
            self._finish("done")
        else:
            self._after_tasks_check()
        return started

    def _start_input(self, base: Checkpoint | None) -> str:
        schema = self.graph.schema
        values = dict(base.values) if base is not None else schema.initial_values()
        cid = new_checkpoint_id()
        versions = dict(base.versions) if base is not None else {k: cid for k in values}
        command = self.input if isinstance(self.input, Command) else None
        start_task = PlannedTask(id=new_task_id(cid, 0, START), name=START, trigger="input",
                                 is_send=True, arg=self.input if command is None else None)
        if command is not None:
            self._start_command = command
        ckpt = Checkpoint(
            id=cid, thread_id=self.thread_id or "", parent_id=base.id if base else None,
            step=(base.step + 1) if base else -1, source="input", created_at=now_iso(),
            values=values, versions=versions, barriers=dict(base.barriers) if base else {},
            tasks=(start_task,), nodes_ran=(), metadata=self._metadata(),
        )
        self._save(ckpt, changed=() if base is not None else tuple(values))
        self._set_checkpoint(ckpt)
        self._first_step = ckpt.step + 1
        return "input"

    def _start_resume(self, base: Checkpoint | None, addressed: str | None, resume: Any) -> str:
        if base is None:
            if self.saver is None and resume is not None:
                raise RuntimeError("Cannot use Command(resume=...) without a checkpointer: compile(checkpointer=...)")
            raise EmptyInputError(
                "Received no input and there is no checkpoint to continue from: pass an input dict, "
                "or a config naming a thread (and checkpoint) that has one."
            )
        latest = self.saver.get(self.thread_id) if addressed else base
        superseded = latest is not None and latest.id != base.id
        time_travel = bool(addressed) and resume is None
        mode = "resume"
        if time_travel and (base.source not in ("update", "fork") or superseded):
            fork_id = new_checkpoint_id()
            fork = replace(
                base, id=fork_id, parent_id=base.id, step=base.step + 1, source="fork",
                created_at=now_iso(), metadata=self._metadata(),
                tasks=tuple(replace(t, id=new_task_id(fork_id, i, t.name)) for i, t in enumerate(base.tasks)),
            )
            self._save(fork, changed=())
            base, mode = fork, "fork"
            pending: list[PendingWrite] = []
        else:
            pending = self.saver.pending_writes(self.thread_id, base.id) if self.saver else []
        self._set_checkpoint(base)
        self._first_step = base.step + 1
        self._load_pending(pending, keep_resume=not time_travel)
        if resume is not None:
            self._apply_resume(resume)
        return mode

    def _metadata(self) -> dict[str, Any]:
        """Only what the user put under config['metadata']; configurable keys (API keys
        included) are never persisted."""
        meta = self.config.get("metadata")
        return dict(meta) if isinstance(meta, Mapping) else {}

    def _set_checkpoint(self, ckpt: Checkpoint) -> None:
        self.checkpoint = ckpt
        self.values = dict(ckpt.values)
        self.plan = ckpt.tasks
        self.results = {}
        self._resume_for = {}

    def _load_pending(self, pending: Sequence[PendingWrite], keep_resume: bool) -> None:
        """Give back the results of tasks that finished before a crash or an interrupt."""
        by_task: dict[str, list[PendingWrite]] = {}
        for w in pending:
            by_task.setdefault(w.task_id, []).append(w)
        tasks = {t.id: t for t in self.plan}
        for task_id, writes in by_task.items():
            task = tasks.get(task_id)
            if task is None:
                continue
            result = TaskResult(task=task, replayed=True)
            finished = False
            for w in writes:
                if w.channel == ROUTE:
                    result.routes.append((w.value[0], w.value[1]))
                    finished = True
                elif w.channel == SEND:
                    result.sends.append(w.value)
                    finished = True
                elif w.channel == RESUME:
                    if keep_resume:
                        self._resume_for[task_id] = list(w.value)
                elif w.channel == INTERRUPT:
                    result.interrupts = result.interrupts + (w.value,)
                elif w.channel == ERROR:
                    pass  # a failed task runs again
                elif w.channel == DONE:
                    finished = True
                else:
                    result.writes.append((w.channel, w.value))
                    finished = True
            if finished:  # a task resumed and finished after its interrupt: the result wins
                result.interrupts = ()
            if result.interrupts:
                self.results[task_id] = result
            elif finished:
                result.update = dict(result.writes) if result.writes else None
                self.results[task_id] = result

    def _apply_resume(self, resume: Any) -> None:
        """Hand a resume value to the interrupted task(s); they run again from the top."""
        waiting = [r for r in self.results.values() if r.interrupts]
        if not waiting:
            raise ResumeError(
                "Command(resume=...) was given but no interrupt is pending on this thread"
                f" (checkpoint {self.checkpoint.id if self.checkpoint else None}). Invoke with an input instead."
            )
        by_id = {i.id: r for r in waiting for i in r.interrupts}
        if isinstance(resume, Mapping) and resume and all(k in by_id for k in resume):
            targets = [(by_id[k], v) for k, v in resume.items()]
        elif isinstance(resume, Mapping) and resume and any(isinstance(k, str) and len(k) == 32 for k in resume) \
                and not any(k in by_id for k in resume):
            raise ResumeError(
                f"resume names interrupt ids {', '.join(map(repr, resume))} but the pending ones are "
                f"{', '.join(map(repr, by_id))}; the interrupt may have been resumed already"
            )
        else:
            if len(waiting) > 1:
                raise ResumeError(
                    f"{len(waiting)} interrupts are pending ({', '.join(repr(i) for i in by_id)}): "
                    "resume with a dict {interrupt_id: value} to say which value goes where"
                )
            targets = [(waiting[0], resume)]
        for result, value in targets:
            task_id = result.task.id
            self._resume_for[task_id] = [*self._resume_for.get(task_id, []), value]
            del self.results[task_id]

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
        self._check_recursion()
        result = await self._execute(task)
        self._record(result, durable=len(self.plan) > 1 or not self.inline_sync)
        self._after_tasks_check()
        return result

    async def run_pending(self) -> list[TaskResult]:
        """Run every pending task of the superstep concurrently; a failure cancels the rest."""
        if self.status != "ready":
            raise RuntimeError(f"cannot run tasks: the run is {self.status}")
        pending = self.pending
        if not pending:
            return []
        self._check_recursion()
        if len(pending) == 1:
            result = await self._execute(pending[0])
            self._record(result, durable=len(self.plan) > 1 or not self.inline_sync)
            self._after_tasks_check()
            return [result]
        futures = {asyncio.ensure_future(self._execute(t)): t for t in pending}
        done_results: list[TaskResult] = []
        try:
            remaining = set(futures)
            while remaining:
                finished, remaining = await asyncio.wait(remaining, return_when=asyncio.FIRST_COMPLETED)
                for fut in finished:
                    result = fut.result()
                    self._record(result, durable=True)
                    done_results.append(result)
                    if result.error is not None:
                        for other in remaining:
                            other.cancel()
                        if remaining:
                            await asyncio.wait(remaining)
                        remaining = set()
                        break
        except asyncio.CancelledError:
            for fut in futures:
                fut.cancel()
            raise
        self._after_tasks_check()
        return done_results

    def _check_recursion(self) -> None:
        if self.step + 1 - self._first_step >= self.recursion_limit:
            error = GraphRecursionError(
                f"Recursion limit of {self.recursion_limit} reached without hitting a stop condition. "
                "You can increase the limit by setting the `recursion_limit` config key."
            )
            self._fail(error)
            raise error

    def _writer_for(self, task: PlannedTask) -> Callable[[Any], None]:
        def write(payload: Any) -> None:
            event = CustomData(**self._base(), task_id=task.id, name=task.name, payload=payload)
            if threading.get_ident() == self._loop_thread or self._loop is None:
                self._emit(event)
            else:
                self._loop.call_soon_threadsafe(self._emit, event)

        return write

    async def _execute(self, task: PlannedTask) -> TaskResult:
        graph = self.graph
        runner: NodeRunner = graph.runners[task.name]
        result = TaskResult(task=task)
        ctx = TaskContext(task_id=task.id, name=task.name, config=self.config,
                          writer=self._writer_for(task), resume=list(self._resume_for.get(task.id, ())))
        state = task.arg if task.is_send else graph.schema.node_input(self.values)
        self._emit(TaskStarted(**self._base(), task_id=task.id, name=task.name, trigger=task.trigger, input=state))
        started = time.perf_counter()
        token = current_task.set(ctx)
        try:
            if task.name == START:
                output = self._start_output(task)
            elif runner.is_async or runner.is_subgraph:
                output = await runner.call_async(state, self.config, ctx.writer)
            elif self.inline_sync and len(self.plan) == 1:
                output = runner.call_sync(state, self.config, ctx.writer)
            else:
                context = contextvars.copy_context()
                output = await asyncio.get_running_loop().run_in_executor(
                    None, context.run, runner.call_sync, state, self.config, ctx.writer
                )
            self._route(runner, task, output, result)
        except GraphInterrupt as exc:
            result.interrupts = tuple(i for i in exc.interrupts if isinstance(i, Interrupt))
            result.writes, result.routes, result.sends = [], [], []
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the node's own error: kept and reported unchanged
            result.error = exc
            result.traceback = tb.format_exc()
        finally:
            current_task.reset(token)
        result.resume = ctx.resume
        result.duration_s = time.perf_counter() - started
        return result

    def _start_output(self, task: PlannedTask) -> Any:
        """The hidden __start__ task writes the input into the state."""
        command = getattr(self, "_start_command", None)
        if command is not None:
            return command
        value = task.arg
        items = _input_items(value)
        keys = self.graph.schema.input_keys
        return {k: v for k, v in items if k in keys}

    def _route(self, runner: NodeRunner, task: PlannedTask, output: Any, result: TaskResult) -> None:
        graph = self.graph
        writes, dropped, update, command = normalize_update(task.name, output, graph.schema.channels)
        result.writes, result.dropped, result.update = writes, dropped, update
        source = task.name
        for target in runner.edges:
            result.routes.append((target, f"edge:{source}"))
        if command is not None:
            if command.graph == Command.PARENT:
                raise InvalidUpdateError(
                    f"node `{source}` returned Command(graph=Command.PARENT) but this graph has no parent"
                )
            for goto in command.goto_targets():
                if isinstance(goto, Send):
                    result.sends.append(goto)
                elif goto not in graph.runners or goto == START:

                    if goto != END:
                        raise InvalidRouteError(
                            f"node `{source}` returned Command(goto={goto!r}), which is not a node of this graph "
                            f"(nodes: {', '.join(graph.node_names)})"
                        )
                else:
                    result.routes.append((goto, f"command:{source}"))
        if runner.branches:
            view = graph.schema.node_input(apply_own_writes(self.values, writes, graph.schema.channels))
            for branch in runner.branches:
                names, sends = call_router(branch, view, self.config, graph.node_names)
                result.routes.extend((n, f"branch:{source}") for n in names)
                result.sends.extend(sends)

    def _record(self, result: TaskResult, *, durable: bool) -> None:
        """Keep a finished task's result; save it as pending writes so it never runs twice."""
        task = result.task
        self.results[task.id] = result
        tid, ckpt = self.thread_id, self.checkpoint
        if result.error is not None:
            if self.saver is not None and ckpt is not None:
                self._put_writes([PendingWrite(task_id=task.id, task_name=task.name, channel=ERROR, value={
                    "type": type(result.error).__name__, "message": str(result.error),
                    "traceback": result.traceback})])
            self._emit(TaskFailed(**self._base(), task_id=task.id, name=task.name, error=result.error,
                                  traceback=result.traceback, duration_s=result.duration_s))
            return
        if result.interrupts:
            if self.saver is not None and ckpt is not None:
                writes = [PendingWrite(task_id=task.id, task_name=task.name, channel=INTERRUPT, value=i)
                          for i in result.interrupts]
                if result.resume:
                    writes.append(PendingWrite(task_id=task.id, task_name=task.name, channel=RESUME,
                                               value=list(result.resume)))
                self._put_writes(writes)
            self._emit(TaskInterrupted(**self._base(), task_id=task.id, name=task.name,
                                       interrupts=result.interrupts, duration_s=result.duration_s))
            return
        if durable and self.saver is not None and ckpt is not None and tid is not None:
            writes = [PendingWrite(task_id=task.id, task_name=task.name, channel=k, value=v) for k, v in result.writes]
            writes += [PendingWrite(task_id=task.id, task_name=task.name, channel=ROUTE, value=[n, why])
                       for n, why in result.routes]
            writes += [PendingWrite(task_id=task.id, task_name=task.name, channel=SEND, value=s)
                       for s in result.sends]
            if not writes:
                writes = [PendingWrite(task_id=task.id, task_name=task.name, channel=DONE, value=None)]
            self._put_writes(writes)
        self._emit_finished(result)

    def _put_writes(self, writes: list[PendingWrite]) -> None:
        assert self.saver is not None and self.checkpoint is not None
        self.saver.put_writes(self.thread_id or "", self.checkpoint.id, writes)

    def _emit_finished(self, result: TaskResult) -> None:
        task = result.task
        self._emit(TaskFinished(
            **self._base(), task_id=task.id, name=task.name, trigger=task.trigger, update=result.update,
            writes=tuple(result.writes), routes=tuple(n for n, _ in result.routes), sends=tuple(result.sends),
            dropped_keys=result.dropped, duration_s=result.duration_s, replayed=result.replayed,
        ))

    def _after_tasks_check(self) -> None:
        """Once every task of the superstep has run: fail, pause on interrupts, or wait for commit."""
        if self.pending or self.status != "ready":
            return
        failed = [r for r in self.results.values() if r.error is not None]
        if failed:
            self._fail(failed[0].error)
            return
        if any(r.interrupts for r in self.results.values()):
            nodes = tuple(r.task.name for r in self.results.values() if r.interrupts)
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
            return apply_own_writes(self.values, writes, self.graph.schema.channels)
        except Exception:  # e.g. two writes to a plain key: the commit will report it
            return self.values

    # -- 3. commit --------------------------------------------------------------------
    @property
    def ready_to_commit(self) -> bool:
        return self.status == "ready" and bool(self.plan) and not self.pending

    def commit(self) -> StepCommitted:
        """Apply the superstep's writes in LangGraph's order, save the checkpoint, plan the next."""
        if not self.ready_to_commit:
            raise RuntimeError(
                f"cannot commit: {len(self.pending)} task(s) still pending" if self.pending
                else f"cannot commit: the run is {self.status}"
            )
        try:
            return self._commit()
        except Exception as exc:
            self._fail(exc)
            raise

    def apply_update(self, base: Checkpoint | None, values: Any, as_node: str | None) -> Checkpoint:
        """update_state(): apply `values` as if `as_node` had written them, on a new
        checkpoint (source "update") whose next tasks follow `as_node`'s edges."""
        graph = self.graph
        if as_node is None:
            if base is None or not base.nodes_ran:
                as_node = START
            elif len(base.nodes_ran) == 1:
                as_node = base.nodes_ran[0]
            else:
                raise InvalidUpdateError(
                    f"Ambiguous update, specify as_node: {', '.join(base.nodes_ran)} all ran in the last "
                    "superstep, so pass as_node='<one of them>' to say whose update this is."
                )
        if as_node not in graph.runners:
            raise InvalidUpdateError(
                f"update_state(as_node={as_node!r}): no such node (nodes: {', '.join(graph.node_names)})"
            )
        if base is None:  # a fresh thread: the update is its first checkpoint (step 0)
            base = Checkpoint(id="", thread_id=self.thread_id or "", parent_id=None, step=-1, source="update",
                              created_at=now_iso(), values=graph.schema.initial_values(), versions={})
        self._set_checkpoint(base)
        self.status = "ready"
        task = PlannedTask(id=new_task_id(base.id, 0, as_node), name=as_node, trigger="update")
        result = TaskResult(task=task)
        self._route(graph.runners[as_node], task, values, result)
        self.plan = (task,)
        self.results = {task.id: result}
        self._commit(source="update")
        assert self.checkpoint is not None
        return self.checkpoint

    def _commit(self, source: str = "loop") -> StepCommitted:
        graph = self.graph
        channels = graph.schema.channels
        ordered = [self.results[t.id] for t in self.plan]
        grouped: dict[str, list[tuple[TaskResult, Any]]] = {}
        for result in ordered:
            for key, value in result.writes:
                grouped.setdefault(key, []).append((result, value))
        parent = self.checkpoint
        assert parent is not None
        cid = new_checkpoint_id()
        values = self.values
        new_values = dict(values)
        versions = dict(parent.versions)
        diffs: list[ChannelDiff] = []
        appended: dict[str, tuple[str, Sequence[Any]]] = {}
        for key, writes in grouped.items():
            old = values.get(key, MISSING)
            applied = channels[key].apply(old, [v for _, v in writes])
            new_values[key] = applied.value
            previous_version = versions.get(key)
            versions[key] = cid
            if applied.appended is not None and previous_version is not None:
                appended[key] = (previous_version, applied.appended)
            diffs.append(ChannelDiff(
                key=key, reducer=channels[key].reducer_name, before=old,
                writes=tuple(ChannelWrite(node=r.task.name, task_id=r.task.id, value=v) for r, v in writes),
                after=applied.value,
                appended=tuple(applied.appended) if applied.appended is not None else None,
            ))
        for key in new_values:
            if key not in versions:  # a reducer's empty value, never stored yet
                versions[key] = cid
        barriers = dict(parent.barriers)
        plan = self._next_plan(cid, ordered, barriers)
        nodes_ran = tuple(dict.fromkeys(r.task.name for r in ordered))
        ckpt = Checkpoint(
            id=cid, thread_id=self.thread_id or "", parent_id=parent.id or None, step=parent.step + 1,
            source=source, created_at=now_iso(), values=new_values, versions=versions,
            barriers=barriers, tasks=plan, nodes_ran=nodes_ran, metadata=self._metadata(),
        )
        self._save(ckpt, changed=tuple(grouped), appended=appended)
        self._set_checkpoint(ckpt)
        committed = StepCommitted(
            **self._base(step=ckpt.step), checkpoint_id=cid, parent_id=parent.id or None, source=source,
            diffs=tuple(diffs), next=plan, nodes_ran=nodes_ran, values=new_values,
        )
        self.last_commit = committed
        self._emit(committed)
        if source == "loop":
            self._after_commit(nodes_ran)
        return committed

    def _next_plan(self, cid: str, ordered: Sequence[TaskResult],
                   barriers: dict[str, tuple[str, ...]]) -> tuple[PlannedTask, ...]:
        """Nodes triggered by this superstep (sorted by name), then Sends in emission order."""
        graph = self.graph
        triggered: dict[str, list[str]] = {}
        sends: list[tuple[Send, str]] = []
        for result in ordered:
            name = result.task.name
            for target, why in result.routes:
                reasons = triggered.setdefault(target, [])
                if why not in reasons:
                    reasons.append(why)
            for send in result.sends:
                sends.append((send, f"send:{name}"))
            for join in graph.runners[name].joins if name in graph.runners else ():
                sources, target = graph.joins[join]
                seen = barriers.get(join, ())
                if name not in seen:
                    seen = seen + (name,)
                if set(seen) >= set(sources):
                    barriers.pop(join, None)
                    triggered.setdefault(target, []).append(f"join:{'+'.join(sources)}")
                else:
                    barriers[join] = seen
        tasks: list[PlannedTask] = []

        for i, name in enumerate(sorted(n for n in triggered if n != END)):
            tasks.append(PlannedTask(id=new_task_id(cid, i, name), name=name, trigger=",".join(triggered[name])))
        for send, why in sends:
            if send.node not in graph.runners or send.node == START:
                raise InvalidRouteError(
                    f"Send({send.node!r}, ...) names no node of this graph (nodes: {', '.join(graph.node_names)})"
                )
            i = len(tasks)
            tasks.append(PlannedTask(id=new_task_id(cid, i, send.node), name=send.node, trigger=why,
                                     is_send=True, arg=send.arg))
        return tuple(tasks)

    def _after_commit(self, nodes_ran: tuple[str, ...]) -> None:
        if not self.plan:
            self._finish("done")
            return
        after = tuple(n for n in nodes_ran if n in self.interrupt_after)
        before = tuple(t.name for t in self.plan if t.name in self.interrupt_before)
        if after or before:
            self.status = "interrupted"
            self._emit(RunInterrupted(**self._base(step=self.step), checkpoint_id=self.checkpoint.id,
                                      reason="after" if after else "before", nodes=after or before,
                                      values=self.values))
            self._finish("interrupted")

    def _save(self, ckpt: Checkpoint, changed: Sequence[str],
              appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None) -> None:
        if self.saver is None:
            return
        self.saver.put(ckpt, appended=appended or None)

    # -- ending ----------------------------------------------------------------------
    def _fail(self, error: BaseException | None) -> None:
        if self.status in ("failed", "done", "cancelled"):
            return
        self.error = error
        self.status = "failed"
        self._finish("failed")

    def _finish(self, status: str) -> None:
        if status in ("done",):
            self.status = "done"
        self._emit(RunFinished(**self._base(step=self.step), status=status, values=self.values,
                               checkpoint_id=self.checkpoint.id if self.checkpoint else None, error=self.error))

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
        if self.status == "failed" and self.error is not None:
            raise self.error
        if not self.ready_to_commit:
            return None
        return self.commit()

    async def run_to_end(self) -> str:
        """Drive the run until it is done, interrupted or failed (raising the node's error)."""
        while True:
            if await self.superstep() is None:
                break
        if self.status == "failed" and self.error is not None:
            raise self.error
        return self.status


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
