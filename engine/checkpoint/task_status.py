"""What each task of a superstep did, read from the pending writes kept beside its checkpoint.

The writes of a superstep are a log, kept after the superstep commits as its record.
A task may appear in it more than once: it raised an interrupt, was resumed and ran
again (and asked again, or finished), or it failed and ran again. One reading of that
log, used by the run (what not to run again) and by snapshots (what history shows):

- a task *finished* when it has an output write (a channel, a route, a Send, or DONE);
- its *interrupts* are those of its latest pause: an interrupt write that follows any
  other write of the same task (its resume values, an error), or repeats an interrupt id
  of the pause before (the task ran again and asked again), starts a new pause, so
  questions asked before are not shown twice;
- its *resume* is its latest resume write (the whole list of answers it was handed);
- its *error* is the latest error it raised (kept when a later run of it finished), and
  its *handler* the error handler node that took that error, if one did.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .data import ERROR, HANDLED, INTERRUPT, RESUME, PendingWrite

__all__ = ["TaskStatus", "task_statuses", "writes_result", "CONTROL_CHANNELS"]

CONTROL_CHANNELS = frozenset((INTERRUPT, ERROR, RESUME, HANDLED))
"""Writes that say what happened to a task, not what it produced."""


@dataclass(frozen=True, slots=True)
class TaskStatus:
    """One task's part of a superstep's writes."""

    output: tuple[PendingWrite, ...] = ()
    """The task's output writes in the order they were kept; empty until it finished."""
    interrupts: tuple[Any, ...] = ()
    """The interrupts of the task's latest pause, answered or not."""
    resume: tuple[Any, ...] | None = None
    """The resume values the task was last handed, or None."""
    error: Any = None
    """The record of the latest error the task raised, or None."""
    handler: str | None = None
    """The error handler node that took that error (it runs instead of the task again)."""

    @property
    def finished(self) -> bool:
        return bool(self.output)

    @property
    def pending_interrupts(self) -> tuple[Any, ...]:
        """Interrupts still waiting for an answer: none once the task finished."""
        return () if self.output else self.interrupts


def task_statuses(writes: Iterable[PendingWrite]) -> dict[str, TaskStatus]:
    """Task id -> its status, for every task with a write (in order of first write)."""
    output: dict[str, list[PendingWrite]] = {}
    interrupts: dict[str, list[Any]] = {}
    resume: dict[str, tuple[Any, ...]] = {}
    error: dict[str, Any] = {}
    handler: dict[str, str] = {}
    last: dict[str, str] = {}  # task id -> the channel of its latest write
    for w in writes:
        tid, ch = w.task_id, w.channel
        output.setdefault(tid, [])
        if ch == INTERRUPT:
            asked = interrupts.setdefault(tid, [])
            iid = getattr(w.value, "id", None)
            if last.get(tid, INTERRUPT) != INTERRUPT or (iid is not None and any(
                    getattr(i, "id", None) == iid for i in asked)):
                asked = interrupts[tid] = []  # a new pause: the task ran again
            asked.append(w.value)
        elif ch == RESUME:
            resume[tid] = tuple(w.value) if isinstance(w.value, (list, tuple)) else (w.value,)
        elif ch == ERROR:
            error[tid] = w.value
            handler.pop(tid, None)
        elif ch == HANDLED:
            handler[tid] = w.value
        else:
            output[tid].append(w)
        last[tid] = ch
    return {
        tid: TaskStatus(output=tuple(out), interrupts=tuple(interrupts.get(tid, ())),
                        resume=resume.get(tid), error=error.get(tid), handler=handler.get(tid))
        for tid, out in output.items()
    }


def writes_result(writes: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """A task's writes as one dict, as LangGraph shows a task's result: several writes to
    one key become `{key: {"$writes": [first, second, ...]}}`."""
    result: dict[str, Any] = {}
    many: set[str] = set()
    for key, value in writes:
        if key not in result:
            result[key] = value
        elif key in many:
            result[key]["$writes"].append(value)
        else:
            result[key] = {"$writes": [result[key], value]}
            many.add(key)
    return result
