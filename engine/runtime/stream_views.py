"""One view per stream mode: `on(event) -> chunks`.

A view reads the Run events it is dispatched (`events`, the event types it wants) and
returns the chunks of its mode as `(mode, payload, interrupts)` triples; the
`StreamCollector` (stream.py) builds, once per run, a table from event type to the views
of the requested modes, and frames each chunk (v1 or v2, namespace, printing). What a
view reads besides the event (the last values shown, the checkpoint payload, the task
`state`) it asks of the collector, which it gets as `out`.

To add a stream mode: write its view here and name it in `VIEWS` (`STREAM_MODES` follows).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any, ClassVar, Protocol

from ..checkpoint.task_status import writes_result
from ..constants import INTERRUPT_KEY, PUSH_PATH, START
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

__all__ = ["Chunk", "ModeView", "StreamState", "VIEWS", "OTHER_MODES", "CHUNK_ORDER", "ORDER", "lg_triggers"]

Chunk = tuple[str, Any, "tuple[Any, ...] | None"]
"""(mode, payload, interrupts: a `values` chunk's pending interrupts, else None)."""
NONE: tuple[Chunk, ...] = ()


def lg_triggers(name: str, trigger: str) -> tuple[str, ...]:
    """A planned task's trigger as LangGraph names it in "tasks"/"debug" payloads."""
    if trigger.startswith("send:") or trigger in ("send", "call"):  # "call": an @entrypoint's task call
        return (PUSH_PATH,)
    if trigger == "input":  # an @entrypoint's node, planned with the input
        return (START,)
    out: list[str] = []
    for part in trigger.split(","):
        if part.startswith("join:"):
            for t in (f"branch:to:{name}", f"{part}:{name}"):
                if t not in out:
                    out.append(t)
        elif f"branch:to:{name}" not in out:
            out.append(f"branch:to:{name}")
    return tuple(out)


def _interrupt_dict(i: Any) -> Any:
    if dataclasses.is_dataclass(i) and not isinstance(i, type):
        return {**dataclasses.asdict(i), **({} if hasattr(i, "response_schema") else {"response_schema": None})}
    return i


def _started_payload(event: TaskStarted) -> dict[str, Any] | None:
    """A task's start as "tasks"/"debug" show it (None: a hidden task)."""
    if event.name == START or event.trigger.startswith("error_handler:"):
        return None
    payload = {"id": event.task_id, "name": event.name, "input": event.input,
               "triggers": lg_triggers(event.name, event.trigger)}
    if event.metadata:
        payload["metadata"] = dict(event.metadata)
    return payload


def _result_payload(event: RunEvent) -> dict[str, Any] | None:
    """A task's end as "tasks"/"debug" show it (None: nothing to show)."""
    if isinstance(event, TaskFinished):
        if event.name == START or event.cached:
            return None
        return {"id": event.task_id, "name": event.name, "error": None,
                "result": writes_result(event.writes), "interrupts": []}
    if isinstance(event, TaskFailed):
        return {"id": event.task_id, "name": event.name, "error": event.error, "result": {}, "interrupts": []}
    if isinstance(event, TaskInterrupted) and event.interrupts:  # (none: a subgraph's breakpoint)
        return {"id": event.task_id, "name": event.name, "error": None, "result": {},
                "interrupts": [_interrupt_dict(i) for i in event.interrupts]}
    return None


class StreamState(Protocol):
    """What the views read of the collector that dispatches to them (stream.py)."""

    values: Any
    """The last (output) values the stream showed, in the namespace being handled."""
    unwrap: Any
    output_keys: Any

    @property
    def in_subgraph(self) -> bool: ...
    def output_values(self, values: Any) -> Any: ...
    def checkpoint_payload(self, event: Any) -> dict[str, Any] | None: ...


class ModeView:
    """A stream mode's view: `on(event)` returns its chunks for the events it wants."""

    mode: ClassVar[str]
    events: ClassVar[tuple[type[RunEvent], ...]]

    def __init__(self, out: StreamState) -> None:
        self.out = out

    def on(self, event: Any) -> Sequence[Chunk]:
        raise NotImplementedError


class UpdatesView(ModeView):
    """{node: its update} per finished task; `{"__interrupt__": ...}` at a pause."""

    mode = "updates"
    events = (TaskFinished, TaskInterrupted, RunInterrupted)

    def on(self, event: Any) -> Sequence[Chunk]:
        if isinstance(event, TaskFinished):
            return NONE if event.name == START else (("updates", self._update(event), None),)
        if isinstance(event, TaskInterrupted):
            return (("updates", {INTERRUPT_KEY: event.interrupts}, None),) if event.interrupts else NONE
        # a breakpoint, here or in a subgraph (its task paused, with no interrupt of its
        # own): one `{"__interrupt__": ()}`, from the top graph only
        if (event.reason != "interrupt" or not event.interrupts) and not self.out.in_subgraph:
            return (("updates", {INTERRUPT_KEY: ()}, None),)
        return NONE

    def _update(self, event: TaskFinished) -> dict[str, Any]:
        out = self.out
        # an entrypoint's node update is unwrapped to its return value; a task call's is the value
        unwrap = out.unwrap if event.trigger != "call" else None
        update = event.update if unwrap is None else unwrap(event.update)
        if out.unwrap is None and type(update) is dict and (event.dropped_keys or not update):
            # as LangGraph: only the keys written to state; nothing written shows as None
            update = {k: v for k, v in update.items() if k not in event.dropped_keys} or None
        writes = event.writes
        if len(writes) > 1 and type(update) is dict and len({k for k, _ in writes}) < len(writes):
            # as LangGraph: a key written twice shows each write as an update of its own
            update = [{k: v} for k, v in writes if k in update]
        if out.output_keys is not None and isinstance(update, dict):
            keys = (out.output_keys,) if isinstance(out.output_keys, str) else out.output_keys
            update = {k: v for k, v in update.items() if k in keys}
        chunk = {event.name: update}
        if event.replayed or event.cached:
            chunk["__metadata__"] = {"cached": True}
        return chunk


class ValuesView(ModeView):
    """The whole (output) state after each superstep, at a start that continues, at a pause."""

    mode = "values"
    events = (StepCommitted, TaskInterrupted, RunInterrupted, RunStarted)

    def on(self, event: Any) -> Sequence[Chunk]:
        values = self.out.values
        if isinstance(event, StepCommitted):
            return (("values", values, None),) if self._wrote_shown(event.wrote) else NONE
        if isinstance(event, TaskInterrupted):
            return (("values", values, event.interrupts),) if event.interrupts else NONE
        if isinstance(event, RunInterrupted):
            if event.reason == "interrupt":
                preview = self.out.output_values(event.values)
                if preview != values:
                    return (("values", preview, None),)
            return NONE
        # RunStarted: as LangGraph, even with nothing left to run
        return (("values", values, None),) if event.mode != "input" else NONE

    def _wrote_shown(self, wrote: Sequence[str]) -> bool:
        """As LangGraph: a superstep shows the state only when it wrote a key the stream
        shows (`output_keys` when given; a subgraph's stream shows its whole state)."""
        if not wrote:
            return False
        keys = self.out.output_keys
        if keys is None or self.out.in_subgraph:
            return True
        if isinstance(keys, str):
            return keys in wrote
        return any(k in keys for k in wrote)


class CheckpointsView(ModeView):
    """Each checkpoint as LangGraph's "checkpoints" mode shows it (only with a checkpointer)."""

    mode = "checkpoints"
    events = (StepCommitted, RunStarted)

    def on(self, event: Any) -> Sequence[Chunk]:
        payload = self.out.checkpoint_payload(event)
        return NONE if payload is None else (("checkpoints", payload, None),)


class TasksView(ModeView):
    """Each task's start (its input and triggers) and its end (its result or error)."""

    mode = "tasks"
    events = (TaskStarted, TaskFinished, TaskFailed, TaskInterrupted)

    def on(self, event: Any) -> Sequence[Chunk]:
        payload = _started_payload(event) if isinstance(event, TaskStarted) else _result_payload(event)
        return NONE if payload is None else (("tasks", payload, None),)


class DebugView(ModeView):
    """Checkpoints, task starts and task results, each with its step, time and type."""

    mode = "debug"
    events = (StepCommitted, RunStarted, TaskStarted, TaskFinished, TaskFailed, TaskInterrupted)

    def on(self, event: Any) -> Sequence[Chunk]:
        if isinstance(event, (StepCommitted, RunStarted)):
            kind, payload = "checkpoint", self.out.checkpoint_payload(event)
        elif isinstance(event, TaskStarted):
            kind, payload = "task", _started_payload(event)
        else:
            kind, payload = "task_result", _result_payload(event)
        if payload is None:
            return NONE
        return (("debug", {"step": event.step, "timestamp": datetime.now(timezone.utc).isoformat(),
                           "type": kind, "payload": payload}, None),)


class CustomView(ModeView):
    """What nodes wrote with the stream writer, as they wrote it."""

    mode = "custom"
    events = (CustomData,)

    def on(self, event: Any) -> Sequence[Chunk]:
        return (("custom", event.payload, None),)


VIEWS: dict[str, type[ModeView]] = {
    view.mode: view for view in (ValuesView, UpdatesView, DebugView, TasksView, CheckpointsView, CustomView)}
"""The modes made from Run events by a view, in the order `STREAM_MODES` names them
("messages" comes from the LangChain callback handler, "events" is the events themselves)."""

OTHER_MODES = ("messages", "tools", "events")

CHUNK_ORDER: tuple[str, ...] = ("updates", "values", "checkpoints", "tasks", "debug", "custom")
"""The order in which the chunks of one event go out, mode by mode, as LangGraph's do (a
mode not named here comes after these)."""

ORDER: dict[type[RunEvent], tuple[str, ...]] = {RunStarted: ("checkpoints", "debug", "values")}
"""Where one event's chunks go out in another order than `CHUNK_ORDER`: a run that starts
shows its checkpoint before its values."""
