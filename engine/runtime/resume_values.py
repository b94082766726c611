"""The resume values a run hands its tasks: a leaf a run and its collaborators share.

A resumed task's n-th `interrupt()` returns the n-th value given for it (`by_task`); a
`Command(resume={interrupt_id: value})` answers single interrupts by id (`by_interrupt`,
per task). `given` names the tasks this run handed a value (not only the answers they had
taken before): a subgraph inside one continues with the newest value; inside another it
re-asks (runtime/nested.py).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["ResumeValues"]


class ResumeValues:
    """What a run's tasks are handed when they call `interrupt()` again."""

    __slots__ = ("by_task", "by_interrupt", "given")

    def __init__(self) -> None:
        self.by_task: dict[str, list[Any]] = {}
        """task id -> the values its interrupts return, in order."""
        self.by_interrupt: dict[str, dict[str, Any]] = {}
        """task id -> {interrupt id: value} for the interrupts answered by id."""
        self.given: set[str] | None = None
        """The tasks this run handed a value (None: none yet)."""

    def hand(self, task_id: str, values: Sequence[Any]) -> None:
        """`task_id`'s interrupts return `values`, in order (replacing what it had)."""
        self.by_task[task_id] = list(values)
        self.given = {*(self.given or ()), task_id}

    def add(self, task_id: str, value: Any) -> None:
        """`task_id`'s next unanswered interrupt returns `value`."""
        self.by_task[task_id] = [*self.by_task.get(task_id, []), value]
        self.given = {*(self.given or ()), task_id}

    def gave(self, task_id: str) -> bool:
        """Whether this run handed `task_id` a resume value."""
        return task_id in (self.given or ())

    def forget_answers(self) -> None:
        """A new checkpoint is the head: the values given for the last one's tasks are spent
        (`given` stays: a subgraph asked later still continues)."""
        if self.by_task:
            self.by_task = {}
        if self.by_interrupt:
            self.by_interrupt = {}
