"""Stream modes as views over a Run's events."""
from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ..constants import INTERRUPT_KEY, START
from .events import (
    CustomData,
    RunEvent,
    RunInterrupted,
    RunStarted,
    StepCommitted,
    TaskFailed,
    TaskFinished,
    TaskInterrupted,
    TaskStarted,
)

if TYPE_CHECKING:
    from ..schema import StateSchema

__all__ = ["STREAM_MODES", "StreamCollector"]

STREAM_MODES = ("values", "updates", "debug", "tasks", "checkpoints", "custom", "events")
"""`events` is Retrograph's own: the raw event objects the studio renders."""


class StreamCollector:
    """Subscribed to a Run, turns events into chunks of the requested modes."""

    def __init__(self, modes: Sequence[str], schema: StateSchema, thread_id: str | None) -> None:
        unknown = [m for m in modes if m not in STREAM_MODES]
        if unknown:
            raise ValueError(
                f"unknown stream_mode {', '.join(map(repr, unknown))}: use one of {', '.join(STREAM_MODES)}"
            )
        self.modes = frozenset(modes)
        self.pairs = len(modes) > 1
        self.schema = schema
        self.thread_id = thread_id
        self.chunks: deque[Any] = deque()
        self.values: dict[str, Any] = {}

    def _put(self, mode: str, chunk: Any) -> None:
        self.chunks.append((mode, chunk) if self.pairs else chunk)

    def _config(self, checkpoint_id: str | None) -> dict[str, Any] | None:
        if checkpoint_id is None:
            return None
        return {"configurable": {"thread_id": self.thread_id, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}}

    def _debug(self, kind: str, step: int, payload: dict[str, Any]) -> None:
        if "debug" in self.modes:
            self._put("debug", {"step": step, "timestamp": datetime.now(timezone.utc).isoformat(),
                                "type": kind, "payload": payload})

    def __call__(self, event: RunEvent) -> None:
        modes = self.modes
        if "events" in modes:
            self._put("events", event)
        if event.namespace:  # a subgraph's inner events: only the raw `events` mode shows them
            return
        if isinstance(event, TaskFinished):
            if event.name == START:
                return
            if "updates" in modes:
                chunk = {event.name: event.update}
                if event.replayed:
                    chunk["__metadata__"] = {"cached": True}
                self._put("updates", chunk)
            if "tasks" in modes or "debug" in modes:
                payload = {"id": event.task_id, "name": event.name, "error": None,
                           "result": list(event.writes), "interrupts": []}
                if "tasks" in modes:
                    self._put("tasks", payload)
                self._debug("task_result", event.step, payload)
        elif isinstance(event, StepCommitted):
            self.values = self.schema.output(event.values)
            if "values" in modes and event.diffs:
                self._put("values", self.schema.output(event.values))
            if "checkpoints" in modes or "debug" in modes:
                payload = {
                    "config": self._config(event.checkpoint_id),
                    "parent_config": self._config(event.parent_id),
                    "metadata": {"source": event.source, "step": event.step},
                    "values": self.schema.output(event.values),
                    "next": [t.name for t in event.next],
                    "tasks": [{"id": t.id, "name": t.name, "interrupts": (), "state": None} for t in event.next],
                }
                if "checkpoints" in modes:
                    self._put("checkpoints", payload)
                self._debug("checkpoint", event.step, payload)
        elif isinstance(event, TaskStarted):
            if event.name == START:
                return
            payload = {"id": event.task_id, "name": event.name, "input": event.input,
                       "triggers": tuple(event.trigger.split(","))}
            if "tasks" in modes:
                self._put("tasks", payload)
            self._debug("task", event.step, payload)
        elif isinstance(event, (TaskFailed, TaskInterrupted)):
            if isinstance(event, TaskInterrupted):
                if "updates" in modes:
                    self._put("updates", {INTERRUPT_KEY: event.interrupts})
                if "values" in modes:
                    self._put("values", {**self.values, INTERRUPT_KEY: event.interrupts})
            if "tasks" in modes or "debug" in modes:
                payload = {"id": event.task_id, "name": event.name, "result": [],
                           "error": repr(event.error) if isinstance(event, TaskFailed) else None,
                           "interrupts": list(event.interrupts) if isinstance(event, TaskInterrupted) else []}
                if "tasks" in modes:
                    self._put("tasks", payload)
                self._debug("task_result", event.step, payload)
        elif isinstance(event, RunInterrupted):
            if event.reason != "interrupt":
                if "updates" in modes:
                    self._put("updates", {INTERRUPT_KEY: ()})
            elif "values" in modes:
                preview = self.schema.output(event.values)
                if preview != self.values:
                    self._put("values", preview)
        elif isinstance(event, RunStarted):
            self.values = self.schema.output(event.values)
            if "values" in modes and event.mode != "input" and event.next:
                self._put("values", self.schema.output(event.values))
        elif isinstance(event, CustomData):
            if "custom" in modes:
                self._put("custom", event.payload)
