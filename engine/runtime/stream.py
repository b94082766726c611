"""Stream modes as views over a Run's events.

v1 chunks are the bare payload (or `(mode, payload)` with several modes); v2 chunks are
`{"type": mode, "ns": namespace, "data": payload}` dicts (`engine.outputs`). Payloads
follow LangGraph's shapes, so code written against its stream reads ours unchanged.

Each mode is a small view (`stream_views.py`: `on(event) -> chunks`); the collector
keeps what the views share (the last values shown, a subgraph's namespace, the
checkpoint payload) and dispatches each event by its type through a table built once
per run to the views of the requested modes.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..constants import INTERRUPT_KEY
from .events import RunEvent, RunStarted, StepCommitted, TaskFinished, TaskStarted
from .stream_views import CHUNK_ORDER, ORDER, OTHER_MODES, VIEWS, Chunk, lg_triggers

if TYPE_CHECKING:
    from ..checkpoint.base import PlannedTask
    from ..schema import StateSchema

__all__ = ["STREAM_MODES", "StreamCollector", "TaskState", "check_modes", "lg_triggers"]

_NO_IDS = frozenset({"values", "updates"})
"""The stream modes whose chunks show no checkpoint or task id."""
_VALUES = frozenset({"values"})

SHORT_VALUES = True
"""Whether a stream of "values" alone (v1, nothing printed, no subgraphs, no output_keys)
turns a StepCommitted of its own run into its chunk at once, without the dispatch through
the views (the chunk the ValuesView makes; the tests that compare both ways set it)."""

TaskState = Callable[[str, str, str, str, str], Any]
"""(checkpoint_ns, the same below the streamed graph, node name, task id, thread id) ->
the task's `state` in a checkpoint payload."""

STREAM_MODES: tuple[str, ...] = (*VIEWS, *OTHER_MODES)
"""`events` is Retrograph's own: the raw event objects the studio renders."""

Handler = Callable[[Any], Sequence[Chunk]]


def check_modes(modes: Sequence[str], what: str = "stream_mode") -> None:
    unknown = [m for m in modes if m not in STREAM_MODES]
    if unknown:
        raise ValueError(
            f"unknown {what} {', '.join(map(repr, unknown))}: use one of {', '.join(STREAM_MODES)}"
        )


def dispatch_table(views: Sequence[Any]) -> dict[type[RunEvent], tuple[Handler, ...]]:
    """Event type -> the `on` of each view that wants it, in the order their chunks go out."""
    table: dict[type[RunEvent], list[Any]] = {}
    for view in views:
        for kind in view.events:
            table.setdefault(kind, []).append(view)
    for kind, wanted in table.items():
        order = ORDER.get(kind, CHUNK_ORDER)
        wanted.sort(key=lambda v: order.index(v.mode) if v.mode in order else len(order))
    return {kind: tuple(v.on for v in wanted) for kind, wanted in table.items()}


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
        self.in_order: Callable[[Callable[[Any], None], Any], None] | None = None
        """The run's `in_order` (set when the run is made): callback chunks from a node's
        worker thread go out in order with the events of the runs that thread makes."""
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
        self._table = dispatch_table([view(self) for mode, view in VIEWS.items() if mode in self.modes])
        """Event type -> the views of the requested modes that want it (built once per run)."""
        self.task_events = "events" in self.modes or TaskStarted in self._table or TaskFinished in self._table
        """Whether the run must make each task's TaskStarted and TaskFinished for this
        collector (not for a stream of "values" alone: see Run.subscribe)."""
        self.wants_diffs = "events" in self.modes
        self.wants_ids = bool(subgraphs or self.modes - _NO_IDS)
        self._short_values = (SHORT_VALUES and self.yielded == _VALUES and not self.printed and not self.v2
                              and not subgraphs and output_keys is None)
        """A StepCommitted of the streamed run goes straight to its chunk (see SHORT_VALUES)."""
        self.values_sink = self.step_values if self._short_values else None
        """For a run whose only listener this is: what takes a plain superstep's new state in
        place of its StepCommitted (plain_step.py), or None when the event is needed."""
        """Whether the chunks show checkpoint or task ids (every mode but "values" and
        "updates" can, and a subgraph's namespace does): else the run may count its ids."""
        """Whether the run must build each StepCommitted's ChannelDiffs for this collector:
        only the raw "events" mode shows them (the values view reads `wrote`)."""

    @property
    def in_subgraph(self) -> bool:
        """The event being handled is a subgraph's (streamed with `subgraphs`)."""
        return bool(self._ns)

    def output_values(self, values: Any) -> Any:
        return self._out(values)

    def _out(self, values: Any) -> Any:
        """The output state as the values stream shows it (restricted to output_keys); a
        subgraph's whole state."""
        if self._ns:
            return dict(values)
        keys = self.output_keys
        if keys is None:
            return self.schema.output(values)
        # as LangGraph: output_keys name channels of the whole state, not only the output's
        if isinstance(keys, str):
            return values.get(keys)
        return {k: v for k, v in values.items() if k in keys}

    def _put(self, mode: str, chunk: Any, interrupts: tuple[Any, ...] | None = None,
             ns: tuple[str, ...] | None = None) -> None:
        if mode in self.printed:
            print(f"[{mode}]", chunk)
            if mode not in self.yielded:
                return
        if ns is None and (self.v2 or self.subgraphs):  # (only those chunks name their namespace)
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
        (called on the node's thread); `ns`, the subgraph's."""
        self._callback_chunk(("messages", chunk, ns))

    def _callback_chunk(self, item: tuple[str, Any, tuple[str, ...]]) -> None:
        if self.in_order is not None:
            self.in_order(self._put_callback_chunk, item)
        else:
            self._put_callback_chunk(item)

    def _put_callback_chunk(self, item: tuple[str, Any, tuple[str, ...]]) -> None:
        mode, chunk, ns = item
        self._put(mode, chunk, ns=ns)
        if self.wake is not None:
            self.wake()

    def put_remote(self, mode: str, chunk: Any, ns: tuple[str, ...]) -> None:
        """A chunk of a graph a LangGraph server runs for one of this run's nodes (a
        RemoteGraph), shown as that subgraph's chunk at `ns` (called on the node's loop)."""
        if mode in self.modes:
            self._put(mode, chunk, ns=ns)
            if self.wake is not None:
                self.wake()

    def put_tool_event(self, payload: dict[str, Any], ns: tuple[str, ...] = ()) -> None:
        """A `tools` chunk (a tool call's start, delta, end or error) from its callback handler."""
        self._callback_chunk(("tools", payload, ns))

    def _config(self, checkpoint_id: str | None) -> dict[str, Any] | None:
        if checkpoint_id is None:
            return None
        ns = self._ns or self.home_ns
        conf: dict[str, Any] = {"thread_id": self.thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}
        parents = self._parents.get(ns) if ns else None
        if parents:  # as LangGraph: a subgraph's checkpoint names its ancestors' too
            conf["checkpoint_map"] = {**parents, ns: checkpoint_id}
        return {"configurable": conf}

    def checkpoint_payload(self, event: Any) -> dict[str, Any] | None:
        """The checkpoint a StepCommitted made, or a RunStarted starts from, as the
        "checkpoints" and "debug" modes show it (None: no checkpointer, or none to show)."""
        if not self.saves:
            return None
        if isinstance(event, RunStarted):
            if event.mode == "input":
                if not event.next:
                    return None
                source = "input"
            elif not event.checkpoint_id:
                return None
            else:  # as LangGraph: the checkpoint it goes on from
                source = event.source
        else:
            source = event.source
        return self._checkpoint(event.step, event.checkpoint_id, event.parent_id, source, event.values, event.next)

    def _checkpoint(self, step: int, checkpoint_id: str, parent_id: str | None, source: str,
                    values: Any, nxt: Sequence[PlannedTask]) -> dict[str, Any]:
        return {
            "config": self._config(checkpoint_id),
            "parent_config": None if self.exit_durability else self._config(parent_id),
            "values": self._typed(self._out(values)) if self.v2 and not self._ns else self._out(values),
            "metadata": {"source": source, "step": step,
                         "parents": dict(self._parents.get(self._ns or self.home_ns) or {})},
            "next": [t.name for t in nxt],
            "tasks": [{"id": t.id, "name": t.name, "interrupts": (), "state": self._task_state(t)} for t in nxt],
        }

    def _task_state(self, task: PlannedTask) -> Any:
        if self.task_state is None or self.thread_id is None:
            return None
        ns = self._ns or self.home_ns
        below = ns[len(self.home_ns) + 1:] if self.home_ns and self._ns else self._ns
        return self.task_state(ns, below, task.name, task.id, self.thread_id)

    def step_values(self, namespace: tuple[str, ...], values: Any, wrote: tuple[str, ...]) -> bool:
        """A superstep of the run `namespace` committed the state `values`, writing `wrote`:
        its chunk, as `__call__` makes it of the StepCommitted (values_sink). False, nothing
        done, when that run is not the streamed one (the event is sent then)."""
        if namespace != self.home:
            return False
        values = self.values = self.schema.output(values)
        if wrote:
            self.chunks.append(("values", values) if self.pairs else values)
        return True

    def __call__(self, event: RunEvent) -> None:
        if self._short_values and type(event) is StepCommitted and event.namespace == self.home:
            # (_handle, ValuesView.on and _put of this one case, spelt out: every superstep)
            values = self.values = self.schema.output(event.values)
            if event.wrote:
                self.chunks.append(("values", values) if self.pairs else values)
            return
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
        if isinstance(event, StepCommitted):
            self.values = self._out(event.values)
        elif isinstance(event, RunStarted):
            if event.parents:
                self._parents[self._ns or self.home_ns] = event.parents
            self.values = self._out(event.values)
        handlers = self._table.get(type(event))
        if handlers is None:
            return
        for on in handlers:
            for mode, chunk, interrupts in on(event):
                self._put(mode, chunk, interrupts)
