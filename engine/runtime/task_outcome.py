"""What a finished task leaves behind: its result kept on the run, its writes saved as
pending writes beside the current checkpoint (so a resume never runs it twice), and its
event (TaskFinished, TaskFailed or TaskInterrupted) emitted, even when the save fails.

A function of the run it is given (a `RunHandle`, engine/runtime/protocols.py); `Run`
(run.py) calls it for each task that ends.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..checkpoint.base import DONE, ERROR, HANDLED, INTERRUPT, RESUME, ROUTE, SEND, PendingWrite
from ..constants import START
from ..errors import ParentCommand
from .events import TaskFailed, TaskInterrupted

if TYPE_CHECKING:
    from .protocols import RunHandle
    from .task import TaskResult

__all__ = ["record_result", "save_unsaved", "task_writes", "derivable"]


def record_result(run: RunHandle, result: TaskResult, *, durable: bool) -> None:
    """Keep a finished task's result; save it as pending writes so it never runs twice."""
    task = result.task
    run.results[task.id] = result
    tid, ckpt = run.thread_id, run.checkpoint
    # The task's event is emitted even when saving its writes raises (in `finally`):
    # listeners always see every task that ended, then RunFinished.
    if result.error is not None:
        handler = run.graph.runners[task.name].error_handler if task.name in run.graph.runners else None
        if isinstance(result.error, ParentCommand):
            handler = None
        try:
            if run.saver is not None and ckpt is not None:
                writes = [PendingWrite(task_id=task.id, task_name=task.name, channel=ERROR, value={
                    "type": type(result.error).__name__, "message": str(result.error),
                    "traceback": result.traceback})]
                if handler is not None:  # a resume runs the handler again, not the node
                    writes.append(PendingWrite(task_id=task.id, task_name=task.name, channel=HANDLED,
                                               value=handler))
                run.save_writes(writes)
        finally:
            run.emit(TaskFailed(**run.event_fields(), task_id=task.id, name=task.name, error=result.error,
                                  traceback=result.traceback, duration_s=result.duration_s))
        if handler is not None:
            run.plan_error_handler(result, handler)
        return
    if result.paused:  # nothing saved: the task runs again (and its subgraph continues) on resume
        run.emit(TaskInterrupted(**run.event_fields(), task_id=task.id, name=task.name,
                                   interrupts=(), duration_s=result.duration_s))
        return
    if result.interrupts:
        try:
            if run.saver is not None and ckpt is not None:
                # The answers first: an interrupt after them starts a new pause (task_status.py).
                writes = [PendingWrite(task_id=task.id, task_name=task.name, channel=RESUME,
                                       value=list(result.resume))] if result.resume else []
                writes += [PendingWrite(task_id=task.id, task_name=task.name, channel=INTERRUPT, value=i)
                           for i in result.interrupts]
                run.save_writes(writes)
        finally:
            run.emit(TaskInterrupted(**run.event_fields(), task_id=task.id, name=task.name,
                                       interrupts=result.interrupts, duration_s=result.duration_s))
        return
    try:
        # A one-task superstep whose commit follows at once (`durable` False) saves its
        # writes only when the snapshot could not read them back from its checkpoint; in
        # a run of the async API they are saved all the same if control leaves the run
        # before that commit (`save_unsaved`: a chunk goes out, a hook is awaited).
        if run.saver is not None and ckpt is not None and tid is not None:
            if durable or not derivable(result.writes, run.graph.schema.plain_keys):
                run.save_writes(task_writes(result))
            elif not run.inline_sync:
                run.unsaved_result = result
    finally:
        if run.task_events:  # (emit_finished's own test, without its call)
            run.emit_finished(result)
    if run.node_finished is not None and task.name != START:
        run.node_finished(task.name)


def derivable(writes: list[tuple[str, Any]], plain: dict[str, bool]) -> bool:
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


def task_writes(result: TaskResult) -> list[PendingWrite]:
    """A finished task's pending writes: its state writes, routes and Sends (DONE alone
    when it had none)."""
    task = result.task
    writes = [PendingWrite(task_id=task.id, task_name=task.name, channel=k, value=v) for k, v in result.writes]
    writes += [PendingWrite(task_id=task.id, task_name=task.name, channel=ROUTE, value=[n, why])
               for n, why in result.routes]
    writes += [PendingWrite(task_id=task.id, task_name=task.name, channel=SEND, value=s) for s in result.sends]
    if not writes:
        writes = [PendingWrite(task_id=task.id, task_name=task.name, channel=DONE, value=None)]
    return writes


def save_unsaved(run: RunHandle) -> None:
    """Save the writes of the finished task whose save was left to its commit
    (`run.unsaved_result`), because control leaves the run before that commit: from then on a
    resume must not run the task again."""
    result, run.unsaved_result = run.unsaved_result, None
    if result is not None and run.checkpoint is not None and result.task.id in run.results:
        run.save_writes(task_writes(result))
