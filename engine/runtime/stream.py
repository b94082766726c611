"""Stream modes as views over a Run's events.

v1 chunks are the bare payload (or `(mode, payload)` with several modes); v2 chunks are
`{"type": mode, "ns": namespace, "data": payload}` dicts (`engine.outputs`). Payloads
follow LangGraph's shapes, so code written against its stream reads ours unchanged.
"""
from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from ..checkpoint.base import PlannedTask
    from ..schema import StateSchema

__all__ = ["STREAM_MODES", "StreamCollector", "TaskState", "check_modes", "lg_triggers"]

TaskState = Callable[[str, str, str, str, str], Any]
"""(checkpoint_ns, the same below the streamed graph, node name, task id, thread id) ->
the task's `state` in a checkpoint payload."""

STREAM_MODES = ("values", "updates", "debug", "tasks", "checkpoints", "custom", "messages", "events")
"""`events` is Retrograph's own: the raw event objects the studio renders."""


def check_modes(modes: Sequence[str], what: str = "stream_mode") -> None:
    unknown = [m for m in modes if m not in STREAM_MODES]
    if unknown:
        raise ValueError(
            f"unknown {what} {', '.join(map(repr, unknown))}: use one of {', '.join(STREAM_MODES)}"
        )


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


class StreamCollector:
    """Subscribed to a Run, turns events into chunks of the requested modes."""

    def __init__(self, modes: Sequence[str], schema: StateSchema, thread_id: str | None, *,
                 version: str = "v1", print_modes: Sequence[str] = (),
                 output_keys: str | Sequence[str] | None = None, saves: bool = True,
                 subgraphs: bool = False, task_state: TaskState | None = None,
                 exit_durability: bool = False, pairs: bool | None = None) -> None:
        check_modes(modes)
        check_modes(print_modes, "print_mode")
        if version not in ("v1", "v2"):
            raise ValueError(f"unknown version {version!r}: use 'v1' or 'v2'")
        self.yielded = frozenset(modes)
        self.printed = frozenset(print_modes)
        self.modes = self.yielded | self.printed
        self.pairs = len(modes) > 1 if pairs is None else pairs
        """(mode, chunk) pairs: several modes, or (as LangGraph) modes given as a list."""
        self.v2 = version == "v2"
        self.schema = schema
        self.thread_id = thread_id
        self.output_keys = output_keys
        self.saves = saves
        self.as_output: Any = None
        """v2: builds the output schema's instance from an output dict (None: dicts)."""
        """Checkpoint payloads (checkpoints/debug) only when the run has a checkpointer, as LangGraph."""
        self.chunks: deque[Any] = deque()
        self.values: dict[str, Any] = {}
        self.wake: Any = None
        """Called after each chunk when a driver streams while tasks run (thread-safe)."""
        self.unwrap = getattr(schema, "unwrap_update", None)
        """How an @entrypoint's node update is shown (its return value), else None."""
        self.subgraphs = subgraphs
        """Also the subgraphs' chunks, each tagged with its namespace tuple."""
        self._ns = ""
        self.home: tuple[str, ...] = ()
        """The node path of the streamed run (not () when a node streams a graph): events
        from deeper down are its subgraphs'."""
        self.home_ns = ""
        """The streamed run's own checkpoint namespace."""
        self._inner_values: dict[str, dict[str, Any]] = {}
        self._parents: dict[str, Mapping[str, str]] = {}
        """A subgraph namespace's ancestors' checkpoints (its configs' `checkpoint_map`)."""
        self.task_state = task_state
        """What a checkpoint payload shows as a task's `state`: the config of the subgraph
        the task runs (None for a plain node); None: no task shows one."""
        self.exit_durability = exit_durability
        """durability="exit": no checkpoint is saved as another's parent, so payloads name none."""

    def _out(self, values: Any) -> Any:
        """The output state as the values stream shows it (restricted to output_keys); a
        subgraph's whole state."""
        if self._ns:
            return dict(values)
        out = self.schema.output(values)
        keys = self.output_keys
        if keys is None:
            return out
        if isinstance(keys, str):
            return out.get(keys)
        return {k: v for k, v in out.items() if k in keys}

    def _put(self, mode: str, chunk: Any, interrupts: tuple[Any, ...] | None = None,
             ns: tuple[str, ...] | None = None) -> None:
        if mode in self.printed:
            print(f"[{mode}]", chunk)
            if mode not in self.yielded:
                return
        if ns is None:
            own = self._ns or self.home_ns  # as LangGraph: a graph streamed inside a node names its full path
            ns = tuple(own.split("|")) if own else ()
        if self.v2:
            if mode == "values":
                data = chunk if ns else self._typed(chunk)  # a subgraph's state is not the output class
                part = {"type": mode, "ns": ns, "data": data, "interrupts": tuple(interrupts or ())}
            else:
                part = {"type": mode, "ns": ns, "data": chunk}
            self.chunks.append(part)
            return
        if mode == "values" and interrupts:
            chunk = {**chunk, INTERRUPT_KEY: interrupts} if isinstance(chunk, dict) else chunk
        if self.subgraphs:
            self.chunks.append((ns, mode, chunk) if self.pairs else (ns, chunk))
        else:
            self.chunks.append((mode, chunk) if self.pairs else chunk)

    def _typed(self, values: Any) -> Any:
        """v2 shows the state as the output schema's class (dataclass, Pydantic model) when
        it can be built from the values; otherwise the dict."""
        if self.as_output is None or not isinstance(values, dict) or not values:
            return values
        try:
            return self.as_output(values)
        except Exception:
            return values

    def put_message(self, chunk: tuple[Any, dict[str, Any]], ns: tuple[str, ...] = ()) -> None:
        """A `messages` chunk, (message or token chunk, metadata), from the callback handler
        (called on the node's thread: a deque append is atomic); `ns`, the subgraph's."""
        self._put("messages", chunk, ns=ns)
        if self.wake is not None:
            self.wake()

    def _config(self, checkpoint_id: str | None) -> dict[str, Any] | None:
        if checkpoint_id is None:
            return None
        ns = self._ns or self.home_ns
        conf: dict[str, Any] = {"thread_id": self.thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}
        parents = self._parents.get(ns) if ns else None
        if parents:  # as LangGraph: a subgraph's checkpoint names its ancestors' too
            conf["checkpoint_map"] = {**parents, ns: checkpoint_id}
        return {"configurable": conf}

    def _debug(self, kind: str, step: int, payload: dict[str, Any]) -> None:
        if "debug" in self.modes:
            self._put("debug", {"step": step, "timestamp": datetime.now(timezone.utc).isoformat(),
                                "type": kind, "payload": payload})

    def _checkpoint(self, step: int, checkpoint_id: str, parent_id: str | None, source: str,
                    values: Any, nxt: Sequence[PlannedTask]) -> None:
        if not self.saves or ("checkpoints" not in self.modes and "debug" not in self.modes):
            return
        payload = {
            "config": self._config(checkpoint_id),
            "parent_config": None if self.exit_durability else self._config(parent_id),
            "values": self._typed(self._out(values)) if self.v2 and not self._ns else self._out(values),
            "metadata": {"source": source, "step": step,
                         "parents": dict(self._parents.get(self._ns or self.home_ns) or {})},
            "next": [t.name for t in nxt],
            "tasks": [{"id": t.id, "name": t.name, "interrupts": (), "state": self._task_state(t)} for t in nxt],
        }
        if "checkpoints" in self.modes:
            self._put("checkpoints", payload)
        self._debug("checkpoint", step, payload)

    def _task_state(self, task: PlannedTask) -> Any:
        if self.task_state is None or self.thread_id is None:
            return None
        ns = self._ns or self.home_ns
        below = ns[len(self.home_ns) + 1:] if self.home_ns and self._ns else self._ns
        return self.task_state(ns, below, task.name, task.id, self.thread_id)

    def _task_result(self, step: int, payload: dict[str, Any]) -> None:
        if "tasks" in self.modes:
            self._put("tasks", payload)
        self._debug("task_result", step, payload)

    def __call__(self, event: RunEvent) -> None:
        modes = self.modes
        if "events" in modes:
            self._put("events", event)
        if event.namespace != self.home:  # a subgraph's inner events: with `subgraphs`, or in the raw `events` mode
            if self.subgraphs:
                self._inner(event)
            return
        self._handle(event)

    def _inner(self, event: RunEvent) -> None:
        """A subgraph's event, handled in its own namespace with its own last values."""
        ns = event.checkpoint_ns or "|".join(event.namespace)
        outer, self._ns = self.values, ns
        self.values = self._inner_values.get(ns, {})
        try:
            self._handle(event)
        finally:
            self._inner_values[ns] = self.values
            self.values, self._ns = outer, ""

    def _handle(self, event: RunEvent) -> None:
        modes = self.modes
        if isinstance(event, TaskFinished):
            if event.name == START:
                return
            if "updates" in modes:
                # an entrypoint's node update is unwrapped to its return value; a task call's is the value
                unwrap = self.unwrap if event.trigger != "call" else None
                update = event.update if unwrap is None else unwrap(event.update)
                if self.unwrap is None and type(update) is dict and (event.dropped_keys or not update):
                    # as LangGraph: only the keys written to state; nothing written shows as None
                    update = {k: v for k, v in update.items() if k not in event.dropped_keys} or None
                writes = event.writes
                if len(writes) > 1 and type(update) is dict and len({k for k, _ in writes}) < len(writes):
                    # as LangGraph: a key written twice shows each write as an update of its own
                    update = [{k: v} for k, v in writes if k in update]
                if self.output_keys is not None and isinstance(update, dict):
                    keys = (self.output_keys,) if isinstance(self.output_keys, str) else self.output_keys
                    update = {k: v for k, v in update.items() if k in keys}
                chunk = {event.name: update}
                if event.replayed or event.cached:
                    chunk["__metadata__"] = {"cached": True}
                self._put("updates", chunk)
            if ("tasks" in modes or "debug" in modes) and not event.cached:
                self._task_result(event.step, {"id": event.task_id, "name": event.name, "error": None,
                                               "result": writes_result(event.writes), "interrupts": []})
        elif isinstance(event, StepCommitted):
            self.values = self._out(event.values)
            if "values" in modes and event.diffs:
                self._put("values", self.values)
            self._checkpoint(event.step, event.checkpoint_id, event.parent_id, event.source,
                             event.values, event.next)
        elif isinstance(event, TaskStarted):
            if event.name == START or event.trigger.startswith("error_handler:"):
                return
            if "tasks" in modes or "debug" in modes:
                payload = {"id": event.task_id, "name": event.name, "input": event.input,
                           "triggers": lg_triggers(event.name, event.trigger)}
                if "tasks" in modes:
                    self._put("tasks", payload)
                self._debug("task", event.step, payload)
        elif isinstance(event, (TaskFailed, TaskInterrupted)):
            if isinstance(event, TaskInterrupted):
                if not event.interrupts:  # its subgraph paused at a breakpoint: the top graph reports it
                    return
                if "updates" in modes:
                    self._put("updates", {INTERRUPT_KEY: event.interrupts})
                if "values" in modes:
                    self._put("values", self.values, event.interrupts)
            if "tasks" in modes or "debug" in modes:
                self._task_result(event.step, {
                    "id": event.task_id, "name": event.name,
                    "error": event.error if isinstance(event, TaskFailed) else None, "result": {},
                    "interrupts": [] if isinstance(event, TaskFailed) else [_interrupt_dict(i) for i in event.interrupts]})
        elif isinstance(event, RunInterrupted):
            # a breakpoint, here or in a subgraph (its task paused, with no interrupt of its
            # own): one `{"__interrupt__": ()}`, from the top graph only
            if (event.reason != "interrupt" or not event.interrupts) and not self._ns and "updates" in modes:
                self._put("updates", {INTERRUPT_KEY: ()})
            if event.reason == "interrupt" and "values" in modes:
                preview = self._out(event.values)
                if preview != self.values:
                    self._put("values", preview)
        elif isinstance(event, RunStarted):
            if event.parents:
                self._parents[self._ns or self.home_ns] = event.parents
            self.values = self._out(event.values)
            if event.mode == "input" and event.next:
                self._checkpoint(event.step, event.checkpoint_id, event.parent_id, "input", event.values, event.next)
            elif event.mode != "input" and event.checkpoint_id:  # as LangGraph: the checkpoint it goes on from
                self._checkpoint(event.step, event.checkpoint_id, event.parent_id, event.source, event.values,
                                 event.next)
            if "values" in modes and event.mode != "input":  # as LangGraph, even with nothing left to run
                self._put("values", self.values)
        elif isinstance(event, CustomData):
            if "custom" in modes:
                self._put("custom", event.payload)
