"""Starting a Run: save the input, or continue / resume / fork a thread's checkpoint.

Functions of the run they are given (a `RunHandle`, engine/runtime/protocols.py):
`Run.start()` (run.py) is `start_run(run)`. The head checkpoint moves through head.py.
"""
from __future__ import annotations

import asyncio
import builtins
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..checkpoint.base import (
    DONE,
    ROUTE,
    SEND,
    Checkpoint,
    PendingWrite,
    PlannedTask,
    new_checkpoint_id,
    new_task_id,
    now_iso,
)
from ..checkpoint.lg_form import is_lg_form
from ..checkpoint.task_status import task_statuses
from ..constants import START
from ..errors import EmptyInputError, MissingThreadIdError, ResumeError
from ..types import Command
from .command_input import apply_input_writes, command_writes, is_input_write
from .events import RunStarted, TaskInterrupted
from .head import checkpoint_metadata, save_checkpoint, set_checkpoint
from .lg_thread import as_planned, engine_form
from .time_travel import Replay, address_subgraph
from .task import TaskResult, apply_own_writes

if TYPE_CHECKING:
    from .protocols import RunHandle

__all__ = ["start_run", "saved_error"]


# -- 0. start -------------------------------------------------------------------
async def start_run(run: RunHandle) -> RunStarted:
    """Load the thread, save the input (or fork an old checkpoint) and plan the first superstep."""
    if run.status != "new":
        raise RuntimeError(f"this run was already started (status: {run.status})")
    run.loop = asyncio.get_running_loop()
    run.loop_thread = threading.get_ident()
    if run.tracer is not None:
        run.tracer.namespace = tuple(run.checkpoint_ns.split("|")) if run.checkpoint_ns else ()
        run.tracer.start(run.input)
    cfg = run.config["configurable"]
    if run.saver is not None and run.thread_id is None:
        raise MissingThreadIdError(
            "This graph has a checkpointer, so each run needs a thread: pass "
            "config={'configurable': {'thread_id': 'some-id'}} to invoke/stream."
        )
    prefetch = getattr(run.saver, "aprefetch", None)  # a RoutedSaver: an aget_tuple override reads first
    if prefetch is not None:
        await prefetch(run.store_key, cfg.get("checkpoint_id"))
    addressed, base = _load_base(run, cfg)
    is_command = isinstance(run.input, Command)
    resume = run.input.resume if is_command else None
    if run.input is None or (is_command and (resume is not None or base is not None)):
        mode = _start_resume(run, base, addressed, resume)
        if is_command and (run.input.update is not None or run.input.goto_targets()):
            _apply_command_input(run, run.input)
    else:
        mode = _start_input(run, base)
    run.status = "ready"
    return _report_start(run, mode)


def _load_base(run: RunHandle, cfg: Mapping[str, Any]) -> tuple[str | None, Checkpoint | None]:
    """(the checkpoint id the config names, the checkpoint the run starts from)."""
    addressed = cfg.get("checkpoint_id")
    if cfg.get("checkpoint_ns") and not run.namespace and run.saver is not None:
        # a subgraph's own checkpoint config, given to the top graph: replay the top graph
        # from that subgraph's parent checkpoint, and the subgraph from its own
        addressed, targets = address_subgraph(run.saver, run.thread_id or "", cfg)
        run.set_options(replay=Replay(targets=targets))
    base = None
    if run.saver is not None:
        base = run.saver.load(run.store_key, addressed)
        if base is not None and is_lg_form(base):  # put in LangGraph's form: planned as LangGraph plans it
            base = as_planned(run.graph, base)[0]
        if addressed and base is None:
            raise ValueError(
                f"thread {run.thread_id!r} has no checkpoint {addressed!r}; "
                "pick one from get_state_history()"
            )
    return addressed, base


def _report_start(run: RunHandle, mode: str) -> RunStarted:
    """RunStarted, then the results a continued run got back (each task's event again),
    then, with nothing to run, the run's end."""
    started = RunStarted(
        **run.event_fields(step=run.step),
        checkpoint_id=run.checkpoint.id if run.checkpoint else "",
        mode=mode,
        next=run.plan,
        values=run.values,
        parent_id=run.checkpoint.parent_id if run.checkpoint else None,
        source=run.checkpoint.source if run.checkpoint else "",
        parents=run.options.parents,
        barriers=run.checkpoint.barriers if run.checkpoint else {},
    )
    run.emit(started)
    asked = []
    for result in list(run.results.values()):
        if result.replayed and result.ok:
            run.emit_finished(result)
        elif result.replayed and result.interrupts:
            asked.append(result)
    for result in asked:  # continued without an answer: the task pauses again (LangGraph
        # re-runs it and it asks again), so its interrupt is reported again
        run.emit(TaskInterrupted(**run.event_fields(), task_id=result.task.id, name=result.task.name,
                                   interrupts=result.interrupts, duration_s=0.0))
    if not run.pending and not run.results and not run.plan:
        run.finish("done")
    else:
        run.check_after_tasks()
    return started


def _start_input(run: RunHandle, base: Checkpoint | None) -> str:
    schema = run.graph.schema
    if run.options.fresh:  # a stateless subgraph: each call starts a history of its own
        base = None
    values = dict(base.values) if base is not None else schema.initial_values()
    cid = new_checkpoint_id()
    versions = dict(base.versions) if base is not None else {k: cid for k in values}
    entry = getattr(run.graph, "input_node", START)  # an @entrypoint's node takes the input itself
    planned = schema.input_plan(run.input)
    if planned is None:
        tasks: tuple[PlannedTask, ...] = (PlannedTask(id=new_task_id(cid, 0), name=entry, trigger="input",
                                                      is_send=True, arg=run.input),)
    else:  # the input written straight into its channels, their subscribers planned
        writes, targets = planned
        if writes:
            values = apply_own_writes(values, writes, schema.channels)[0]
            versions.update({k: cid for k, _ in writes})
        tasks = tuple(PlannedTask(id=new_task_id(cid, i), name=t, trigger="input")
                      for i, t in enumerate(sorted(targets)))
    ckpt = Checkpoint(
        id=cid, thread_id=run.store_key, parent_id=base.id if base else None,
        step=(base.step + 1) if base else -1, source="input", created_at=now_iso(),
        values=values, versions=versions, barriers=dict(base.barriers) if base else {},
        tasks=tasks, nodes_ran=(), metadata=checkpoint_metadata(run),
    )
    ckpt = save_checkpoint(run, ckpt)
    set_checkpoint(run, ckpt)
    run.first_step = ckpt.step + 1
    return "input"


def _start_resume(run: RunHandle, base: Checkpoint | None, addressed: str | None, resume: Any) -> str:
    """Continue, resume or fork (time travel) from `base`; the start's mode."""
    if base is None:
        if run.saver is None and resume is not None:
            raise RuntimeError("Cannot use Command(resume=...) without a checkpointer: compile(checkpointer=...)")
        raise EmptyInputError(
            "Received no input and there is no checkpoint to continue from: pass an input dict, "
            "or a config naming a thread (and checkpoint) that has one."
        )
    latest = run.saver.load(run.store_key) if addressed else base
    superseded = latest is not None and latest.id != base.id
    time_travel = bool(addressed) and resume is None
    mode = "resume"
    pending: list[PendingWrite] = []
    _bound_replay(run, base, time_travel, resume)
    if time_travel and (base.source not in ("update", "fork") or superseded):
        mode = "fork"
        base = _fork(run, base)
    else:
        pending = _kept_writes(run, base)
        run.set_options(resuming=True)
    set_checkpoint(run, base)
    run.first_step = base.step + 1
    # as LangGraph: a resume addressed to a checkpoint by id runs its finished tasks again
    _load_pending(run, pending, keep_resume=not time_travel, keep_finished=not (addressed and not run.namespace))
    if resume is not None:
        _apply_resume(run, resume)
    # As LangGraph: a task still waiting for an answer runs again (with the answers it
    # has), so it asks again and the run reports its question again.
    for task_id in [t for t, r in run.results.items() if r.interrupts]:
        del run.results[task_id]
    return mode


def _bound_replay(run: RunHandle, base: Checkpoint, time_travel: bool, resume: Any) -> None:
    """Time travel: subgraphs start from their state as of `base` (as of the edited one for
    an update or a fork); a resume inside a subgraph replay goes to the replayed subgraph."""
    if time_travel and not run.namespace and run.saver is not None:
        bound = base.id if base.source not in ("update", "fork") else (base.parent_id or base.id)
        replay = run.options.replay
        if replay is None:
            replay = run.set_options(replay=Replay()).replay
            assert replay is not None
        replay.bound = bound
    elif resume is not None and run.options.replay is not None:
        run.options.replay.resume = resume


def _fork(run: RunHandle, base: Checkpoint) -> Checkpoint:
    """A saved copy of `base` that owns the new branch's writes (the old branch's stay under
    `base`); a debugger numbers it as `base` so the branch's first commit is step N+1."""
    fork_id = new_checkpoint_id()
    fork = replace(base, id=fork_id, parent_id=base.id, step=base.step + (0 if run.options.fork_same_step else 1),
                   source="fork", created_at=now_iso(), metadata=checkpoint_metadata(run),
                   tasks=tuple(replace(t, id=new_task_id(fork_id, i)) for i, t in enumerate(base.tasks)))
    fork = save_checkpoint(run, fork)
    return fork


def _apply_command_input(run: RunHandle, command: Command[Any]) -> None:
    """A Command given to a thread with a checkpoint: its update and goto act on the
    pending superstep (see command_input.py); kept as pending writes."""
    assert run.checkpoint is not None
    writes = command_writes(run.graph, command, run.checkpoint.id)
    if not writes:
        return
    if run.saver is not None:
        run.save_writes(writes)
    run.values, run.plan = apply_input_writes(  # type: ignore[assignment]
        run.graph, run.checkpoint.id, run.values, run.plan, writes)


def _kept_writes(run: RunHandle, base: Checkpoint) -> list[PendingWrite]:
    """The writes kept beside `base`, in the engine's form (also when put in LangGraph's)."""
    pending = list(run.saver.pending_writes(run.store_key, base.id)) if run.saver else []
    return engine_form(run.graph, pending, base.tasks) if is_lg_form(base) else pending


def _load_pending(run: RunHandle, pending: Sequence[PendingWrite], keep_resume: bool,
                  keep_finished: bool = True) -> None:
    """Give back the results of tasks that finished before a crash or an interrupt
    (without `keep_finished`, only what they were answered: they run again)."""
    cid = run.checkpoint.id if run.checkpoint is not None else ""
    inputs = [w for w in pending if is_input_write(w, cid)]
    if inputs:  # a Command given as input earlier: its update and goto come first
        run.values, run.plan = apply_input_writes(  # type: ignore[assignment]
            run.graph, cid, run.values, run.plan, inputs)
        pending = [w for w in pending if not is_input_write(w, cid)]
    statuses = task_statuses(pending)
    tasks = {t.id: t for t in run.plan}
    for task_id, status in statuses.items():  # a failed node whose error handler took over
        task = tasks.get(task_id)
        if task is not None and status.handler is not None and not status.finished \
                and status.handler in run.graph.runners:
            failed = TaskResult(task=task, error=saved_error(status.error), replayed=True)
            run.results[task_id] = failed
            run.plan_error_handler(failed, status.handler)  # its handler runs again, not the node
    tasks = {t.id: t for t in run.plan}
    for task_id, status in statuses.items():
        task = tasks.get(task_id)
        if task is None or task_id in run.results:
            continue
        if keep_resume and status.resume is not None:
            run.resumes.by_task[task_id] = list(status.resume)
        if status.finished and keep_finished:  # a task resumed and finished after its interrupt: the result wins
            run.results[task_id] = _replayed(task, status.output)
        elif status.interrupts and not status.finished:  # answered and finished: it runs again, no question
            run.results[task_id] = TaskResult(task=task, replayed=True, interrupts=status.interrupts)


def _replayed(task: PlannedTask, output: Sequence[PendingWrite]) -> TaskResult:
    """A finished task's result, from its kept output writes."""
    result = TaskResult(task=task, replayed=True)
    for w in output:
        if w.channel == ROUTE:
            result.routes.append((w.value[0], w.value[1]))
        elif w.channel == SEND:
            result.sends.append(w.value)
        elif w.channel != DONE:
            result.writes.append((w.channel, w.value))
    result.update = dict(result.writes) if result.writes else None
    return result


def _apply_resume(run: RunHandle, resume: Any) -> None:
    """Hand a resume value to the interrupted task(s); they run again from the top."""
    waiting = [r for r in run.results.values() if r.interrupts]
    if not waiting:  # as LangGraph: a run paused at a static breakpoint (or done) goes on,
        if run.checkpoint is not None:  # and the first interrupt() to come takes the value
            run.set_options(null_resume=(run.checkpoint.id, resume))
        return
    by_id = {i.id: r for r in waiting for i in r.interrupts}
    if isinstance(resume, Mapping) and resume and all(k in by_id for k in resume):
        targets = [(by_id[k], v) for k, v in resume.items()]
        for k, v in resume.items():  # a subgraph inside the task resumes its interrupts by id
            run.resumes.by_interrupt.setdefault(by_id[k].task.id, {})[k] = v
    elif isinstance(resume, Mapping) and resume and any(isinstance(k, str) and len(k) == 32 for k in resume) \
            and not any(k in by_id for k in resume):
        raise ResumeError(
            f"resume names interrupt ids {', '.join(map(repr, resume))} but the pending ones are "
            f"{', '.join(map(repr, by_id))}; the interrupt may have been resumed already"
        )
    else:
        if len(waiting) > 1:
            raise ResumeError(
                "When there are multiple pending interrupts, you must specify the interrupt id when "
                f"resuming. {len(waiting)} interrupts are pending ({', '.join(repr(i) for i in by_id)}): "
                "resume with a dict {interrupt_id: value} to say which value goes where."
            )
        targets = [(waiting[0], resume)]
    for result, value in targets:
        task_id = result.task.id
        run.resumes.add(task_id, value)
        del run.results[task_id]


def saved_error(record: Any) -> BaseException:
    """A task's error as saved (`{"type", "message"}`) as an exception again: of that
    built-in type when it is one (nothing is imported or looked up elsewhere), else an
    Exception with the saved text."""
    if not isinstance(record, Mapping):
        return Exception(str(record))
    name, message = str(record.get("type", "")), str(record.get("message", ""))
    kind = getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        try:
            return kind(message)
        except Exception:  # a built-in that takes other arguments (UnicodeDecodeError...)
            pass
    return Exception(f"{name}: {message}" if name else message)
