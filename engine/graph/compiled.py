"""CompiledStateGraph: a validated graph you can run, inspect, rewind and draw.

invoke/stream and their async twins are thin drivers over `Run`; `new_run()` hands the
same Run to a debugger that advances it one move at a time.
"""
from __future__ import annotations

import asyncio
import copy
import dataclasses
import functools
import types
import warnings
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..checkpoint.base import (
    Checkpoint,
    PendingWrite,
    ns_thread_key,
    read_head,
    read_state,
)
from ..constants import INTERRUPT_KEY
from ..errors import MissingThreadIdError
from ..runtime.nested import nested_run
from ..runtime.drive import Opened, Waker, drive_opened
from ..runtime.run import FROM_GRAPH, Run
from ..runtime.options import RunOptions
from ..runtime.stream import StreamCollector
from ..schema import StateSchema
from .legacy_api import LegacyGraphAPI
from .runnable_surface import RunnableSurface
from .stream_handlers import attach_handlers, set_home
from ..node_input import NodeInput
from ..outputs import GraphOutput
from ..types import StateSnapshot

from .call_args import (
    INVOKE_ARGS,
    STREAM_ARGS,
    check_checkpointer,
    check_kwargs,
    checked_durability,
    configs_for,
    from_a_task,
    last_values,
)
from .compiled_node import CompiledNode, compiled_nodes
from .driven import opened
from .runners import node_runners
from .nested_state import graph_for_namespace, task_state_config
from .snapshots import snapshot_of
from .subscript import annotation_alias
from .sync_bridge import iterate_sync, run_sync

if TYPE_CHECKING:
    from ..specs import GraphDefinition

__all__ = ["CompiledStateGraph"]


class CompiledStateGraph(LegacyGraphAPI, RunnableSurface):
    """Runnable graph. Built by `StateGraph.compile()`."""

    stream_mode: str = "updates"
    """What stream() streams when no stream_mode is given."""

    def __class_getitem__(cls, params: Any) -> types.GenericAlias:
        """`X[State, Context, Input, Output]` in annotations, as LangGraph's generic class."""
        return annotation_alias(cls, params)

    def __init__(
        self,
        builder: GraphDefinition,
        *,
        checkpointer: Any = None,
        interrupt_before: Sequence[str] = (),
        interrupt_after: Sequence[str] = (),
        name: str = "LangGraph",
        store: Any = None,
        cache: Any = None,
    ) -> None:
        self.builder = builder
        self.store = store
        self.cache = cache
        self.name = name
        check_checkpointer(checkpointer)
        self.persistence: bool | None = None
        """As a subgraph: True keeps its state across calls (one namespace per node), False
        saves nothing, None (the default) saves each call under its task's namespace."""
        self.checkpointer = checkpointer  # (True/False: a subgraph's persistence, above)
        self.interrupt_before = tuple(interrupt_before)
        self.interrupt_after = tuple(interrupt_after)
        self.every_node_breaks: frozenset[str] = frozenset()
        """"before"/"after" when compiled with `interrupt_before/after="*"` (drawn as no node's own)."""
        node_schemas = [spec.input_schema for spec in builder.nodes.values() if spec.input_schema is not None]
        node_schemas += [b.input_schema for bs in builder.branches.values() for b in bs.values()
                         if b.input_schema is not None]  # a router's keys are channels too
        self.schema = StateSchema(builder.state_schema, builder.input_schema, builder.output_schema,
                                  node_schemas=node_schemas)
        self.runners, self.joins = node_runners(builder)
        self.bound_config: dict[str, Any] = {}
        """Config merged under every call's config (see `with_config`)."""
        self.step_timeout: float | None = None
        """Seconds a superstep may take (set it on the compiled graph, as in LangGraph): past
        them its running nodes are cancelled and the run raises TimeoutError."""
        self.deferred: frozenset[str] = frozenset(n for n, spec in builder.nodes.items() if spec.defer)
        """Nodes added with defer=True: they run once nothing else is left to run."""
        self.node_names: tuple[str, ...] = tuple(builder.nodes)
        self.node_set: frozenset[str] = frozenset(builder.nodes)
        self.stream_transformers: tuple[Any, ...] = ()  # compile(transformers=): every v3 event stream's
        self.register_state_types()

    @property
    def checkpointer(self) -> Any:
        """The saver runs of this graph save into (None: none of its own)."""
        return self._checkpointer

    @checkpointer.setter
    def checkpointer(self, value: Any) -> None:
        """A saver; or, as LangGraph, True/False (also set after compiling): a subgraph's
        persistence (`persistence`), with no saver of its own."""
        if value is True or value is False:
            self._checkpointer, self.persistence = None, value
        else:
            self._checkpointer, self.persistence = value, None

    @property
    def channels(self) -> Mapping[str, Any]:
        """The state's channels by key (LangGraph's `graph.channels`): how each key is
        written, e.g. a reducer channel for an `Annotated[list, operator.add]` key."""
        return self.schema.channels

    def register_state_types(self) -> None:
        """Tell the checkpointer's serializer the state's own types, to load them back as such."""
        serde = getattr(self.checkpointer, "serde", None)
        if serde is not None and hasattr(serde, "register"):
            serde.register(*self.schema.registrable_types())

    def with_checkpointer(self, checkpointer: Any) -> CompiledStateGraph:
        """The same graph (same breakpoints and name) saving into another checkpointer;
        the studio uses it to put any user graph on its own SQLite file."""
        graph = CompiledStateGraph(self.builder, checkpointer=checkpointer, interrupt_before=self.interrupt_before,
                                   interrupt_after=self.interrupt_after, name=self.name,
                                   store=self.store, cache=self.cache)
        graph.bound_config = self.bound_config
        graph.every_node_breaks = self.every_node_breaks
        return graph

    def copy(self, update: Mapping[str, Any] | None = None) -> CompiledStateGraph:
        """A copy of the compiled graph (LangGraph's `copy`), with the attributes named in
        `update` (LangGraph's names) replaced: name, checkpointer, store, cache,
        interrupt_before_nodes, interrupt_after_nodes, step_timeout, config."""
        update = dict(update or {})
        unknown = sorted(k for k in update if k not in _COPYABLE)
        if unknown:
            raise TypeError(f"copy() got unknown attribute(s) {', '.join(map(repr, unknown))}; "
                            f"it can replace: {', '.join(sorted(_COPYABLE))}")
        graph = copy.copy(self)
        for key in ("interrupt_before", "interrupt_after"):
            if f"{key}_nodes" in update:
                names = tuple(update.pop(f"{key}_nodes") or ())
                self.builder.validate(names)
                setattr(graph, key, names)
        if "checkpointer" in update:
            checkpointer = update.pop("checkpointer")
            check_checkpointer(checkpointer)
            graph.checkpointer = checkpointer
            graph.register_state_types()
        if "config" in update:
            graph.bound_config = dict(update.pop("config") or {})
        for key, value in update.items():
            setattr(graph, key, value)
        return graph

    def with_config(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> CompiledStateGraph:
        """The same graph with `config` (and keyword config entries: tags, callbacks,
        configurable, recursion_limit...) merged under each call's own config."""
        from ..runtime.tracing import merge_configs

        graph = copy.copy(self)
        graph.bound_config = merge_configs(merge_configs(self.bound_config, config), kwargs)
        if "run_name" in kwargs or (config and "run_name" in config):
            graph.name = graph.bound_config["run_name"]
        return graph

    def _config(self, config: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        if not self.bound_config:
            return config
        from ..runtime.tracing import merge_configs

        return merge_configs(self.bound_config, config)

    # -- runs ---------------------------------------------------------------------
    def new_run(
        self,
        input: Any = None,
        config: Mapping[str, Any] | None = None,
        *,
        interrupt_before: Sequence[str] | None = None,
        interrupt_after: Sequence[str] | None = None,
        inline_sync: bool = False,
        durability: str | None = None,
        context: Any = None,
        control: Any = None,
        checkpointer: Any = FROM_GRAPH,
        checkpoint_ns: str | None = None,
        options: RunOptions | None = None,
    ) -> Run:
        """The one way a Run of this graph is made: by invoke/stream, by a subgraph's task, by
        update_state, and by a debugger that advances it move by move (start, run_task, commit).

        The graph's bound config (`with_config`) goes under `config`. With `checkpoint_ns`
        None, a call from inside a running node (`graph.invoke` in a node) gets that task's
        child Run (saved under the task's namespace, its events going to the parent's
        listeners); elsewhere a run of its own. A `checkpoint_ns` places the run exactly there.
        `checkpointer`: the saver to use instead of the graph's (None: save nothing).
        `options`: how the run differs from a plain invoke (resume, subgraph, time travel,
        recording; `engine.runtime.options`)."""
        config = self._config(config)
        if checkpoint_ns is None:
            child = nested_run(self, input, config, inline_sync)
            if child is not None:
                assert isinstance(child, Run)  # made by this graph's new_run
                if interrupt_before is not None:
                    child.interrupt_before = frozenset(interrupt_before)
                if interrupt_after is not None:
                    child.interrupt_after = frozenset(interrupt_after)
                return child
        run = Run(self, input, config, interrupt_before=interrupt_before, interrupt_after=interrupt_after,
                  inline_sync=inline_sync, durability=durability, context=context, control=control,
                  checkpointer=checkpointer, checkpoint_ns=checkpoint_ns or "", options=options)
        if durability is not None and run.saver is None:
            warnings.warn("`durability` has no effect when no checkpointer is present.", UserWarning, stacklevel=3)
        return run

    def astream(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        context: Any = None,
        stream_mode: str | Sequence[str] | None = None,
        print_mode: str | Sequence[str] = (),
        output_keys: str | Sequence[str] | None = None,
        interrupt_before: Sequence[str] | None = None,
        interrupt_after: Sequence[str] | None = None,
        durability: str | None = None,
        control: Any = None,
        subgraphs: bool = False,
        debug: bool | None = None,
        version: str = "v1",
        _inline_sync: bool = False,
        _protocol_messages: bool = False,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """Run the graph, yielding chunks of the chosen stream mode(s) ("updates" by default); with
        `subgraphs`, also the subgraphs' chunks, each as `(namespace, chunk)` (or `(namespace, mode, chunk)`)."""
        # (no async generator of its own: its setup runs, as the body of one would, when the
        # first chunk is asked for, and the chunks come straight from the drive's loop)
        return drive_opened(functools.partial(
            self._open_stream, input, config, kwargs, context=context, stream_mode=stream_mode,
            print_mode=print_mode, output_keys=output_keys, interrupt_before=interrupt_before,
            interrupt_after=interrupt_after, durability=durability, control=control, subgraphs=subgraphs,
            debug=debug, version=version, _inline_sync=_inline_sync, _protocol_messages=_protocol_messages))

    def _open_stream(self, input: Any, config: Mapping[str, Any] | None, kwargs: dict[str, Any], *, context: Any,
                     stream_mode: str | Sequence[str] | None, print_mode: str | Sequence[str],
                     output_keys: str | Sequence[str] | None, interrupt_before: Sequence[str] | None,
                     interrupt_after: Sequence[str] | None, durability: str | None, control: Any, subgraphs: bool,
                     debug: bool | None, version: str, _inline_sync: bool, _protocol_messages: bool) -> Opened:
        """The run `astream` drives, made when its first chunk is asked for, and its collector."""
        durability = checked_durability(durability, kwargs, "stream")
        if stream_mode is None and from_a_task(config):  # as LangGraph: a node streaming with its config
            stream_mode = "values"
        modes = [self.stream_mode] if stream_mode is None else [stream_mode] if isinstance(stream_mode, str) \
            else list(stream_mode)
        printed = [print_mode] if isinstance(print_mode, str) else list(print_mode)
        if debug and "debug" not in printed:
            printed.append("debug")
        thread_id = ((self._config(config) or {}).get("configurable") or {}).get("thread_id")
        collector = StreamCollector(modes, self.schema, None if thread_id is None else str(thread_id),
                                    version=version, print_modes=printed, output_keys=output_keys,
                                    subgraphs=subgraphs, exit_durability=durability == "exit",
                                    task_state=functools.partial(task_state_config, self),
                                    pairs=isinstance(stream_mode, list) or len(modes) > 1)
        config, handlers = attach_handlers(collector, config, subgraphs, _protocol_messages)  # messages, tools
        sync_api = _inline_sync
        if collector.modes & _LIVE_MODES or subgraphs or hasattr(self, "input_node"):
            # tokens, custom data, a subgraph's steps and an entrypoint's task results go out
            # while the node runs
            collector.wake = Waker()
            _inline_sync = False
        run = self.new_run(input, config, inline_sync=_inline_sync, interrupt_before=interrupt_before,
                           interrupt_after=interrupt_after, durability=durability, context=context, control=control)
        if sync_api:
            run.__dict__["sync_api"] = True
        collector.saves = run.saver is not None
        collector.home, collector.home_ns = run.namespace, run.checkpoint_ns
        collector.in_order = run.in_order  # callback chunks keep their order with child runs' events
        set_home(handlers, run.checkpoint_ns)  # a graph streamed inside a node
        if version == "v2":
            collector.as_output = self._output_instance()
        run.subscribe(collector)
        if collector.wake is not None:
            run.subscribe(collector.wake)
        return opened(self, run, collector)  # (a consumer that stops early cancels the running nodes)

    async def ainvoke(
        self,
        input: Any,
        config: Mapping[str, Any] | None = None,
        *,
        context: Any = None,
        stream_mode: str | Sequence[str] = "values",
        print_mode: str | Sequence[str] = (),
        output_keys: str | Sequence[str] | None = None,
        interrupt_before: Sequence[str] | None = None,
        interrupt_after: Sequence[str] | None = None,
        durability: str | None = None,
        control: Any = None,
        subgraphs: bool = False,
        debug: bool | None = None,
        version: str = "v1",
        _inline_sync: bool = False,
        **kwargs: Any,
    ) -> Any:
        """Run the graph to the end (or to an interrupt) and return its output state.

        With another `stream_mode` than "values", the list of that mode's chunks; with
        `version="v2"`, a GraphOutput (or a list of stream parts)."""
        durability = checked_durability(durability, kwargs, "invoke")
        if stream_mode != "values" or print_mode or debug or output_keys is not None:
            chunks = [c async for c in self.astream(
                input, config, context=context, stream_mode=stream_mode, print_mode=print_mode,
                output_keys=output_keys, interrupt_before=interrupt_before, interrupt_after=interrupt_after,
                durability=durability, control=control, debug=debug, version=version, _inline_sync=_inline_sync,
                subgraphs=subgraphs and stream_mode != "values")]
            if stream_mode != "values":
                return chunks
            return last_values(chunks, version, output_keys)
        if version not in ("v1", "v2"):
            raise ValueError(f"unknown version {version!r}: use 'v1' or 'v2'")
        run = self.new_run(input, config, inline_sync=_inline_sync, interrupt_before=interrupt_before,
                           interrupt_after=interrupt_after, durability=durability, context=context, control=control)
        if _inline_sync:
            run.__dict__["sync_api"] = True
        async for _ in drive_opened(functools.partial(opened, self, run, None)):
            pass
        out = self.schema.output(run.preview if run.preview is not None else run.values)
        interrupts = run.interrupts
        if version == "v2":
            build = self._output_instance()
            if build is not None and isinstance(out, dict) and out:
                try:
                    out = build(out)
                except Exception:  # values the class refuses: the dict, as the stream shows it
                    pass
            return GraphOutput(out, tuple(interrupts))
        if interrupts:
            if not isinstance(out, dict):  # a root state: LangGraph returns the interrupts alone
                return {INTERRUPT_KEY: list(interrupts)}
            out[INTERRUPT_KEY] = list(interrupts)
        return out

    def astream_events(self, input: Any, config: Mapping[str, Any] | None = None, *, version: str = "v2",
                       transformers: Sequence[Any] | None = None, **kwargs: Any) -> Any:
        """LangChain's event stream (version "v2", an async iterator: on_chain_start/stream/end,
        on_chat_model_stream...), or, awaited, the v3 event stream (version "v3": the run's
        projections, `engine.streaming`)."""
        from .stream_events import astream_events_v2, astream_events_v3

        if version == "v3":
            return astream_events_v3(self, input, config, transformers, kwargs)
        return astream_events_v2(self, input, config, version, kwargs)

    def stream_events(self, input: Any, config: Mapping[str, Any] | None = None, *, version: str = "v3",
                      transformers: Sequence[Any] | None = None, **kwargs: Any) -> Any:
        """The v3 event stream of a run: a `GraphRunStream` (`engine.streaming`), read lazily."""
        from .stream_events import stream_events_v3

        if version != "v3":
            raise ValueError(f"stream_events supports version='v3' only, got {version!r}")
        return stream_events_v3(self, input, config, transformers, kwargs)

    def invoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """Synchronous ainvoke; sync nodes of one-task supersteps run on the caller's thread."""
        check_kwargs("invoke", kwargs, INVOKE_ARGS)
        return run_sync(self.ainvoke(input, config, _inline_sync=True, **kwargs))

    def stream(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Iterator[Any]:
        """Synchronous astream."""
        check_kwargs("stream", kwargs, STREAM_ARGS)
        return iterate_sync(self.astream(input, config, _inline_sync=True, **kwargs))

    def batch(self, inputs: Sequence[Any], config: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
              *, return_exceptions: bool = False, **kwargs: Any) -> list[Any]:
        """invoke() each input (with its own config when a list is given), in order."""
        configs = configs_for(inputs, config)
        out: list[Any] = []
        for item, cfg in zip(inputs, configs):
            try:
                out.append(self.invoke(item, cfg, **kwargs))
            except Exception as exc:
                if not return_exceptions:
                    raise
                out.append(exc)
        return out

    async def abatch(self, inputs: Sequence[Any],
                     config: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
                     *, return_exceptions: bool = False, **kwargs: Any) -> list[Any]:
        """ainvoke() the inputs concurrently; results in input order."""
        configs = configs_for(inputs, config)
        return list(await asyncio.gather(*(self.ainvoke(i, c, **kwargs) for i, c in zip(inputs, configs)),
                                         return_exceptions=return_exceptions))

    def _output_instance(self) -> Any:
        """For version="v2": a builder of the output schema's class from an output dict,
        or None when the output is a plain dict (TypedDict) or a root value."""
        schema = self.builder.output_schema or self.builder.state_schema
        if isinstance(schema, type) and (hasattr(schema, "model_fields") or dataclasses.is_dataclass(schema)):
            return NodeInput(schema)
        return None

    def clear_cache(self, nodes: Sequence[str] | None = None) -> None:
        """Forget cached node outputs (of `nodes`, or of every node)."""
        if self.cache is not None:
            self.cache.clear(None if nodes is None else [(n,) for n in nodes])

    async def aclear_cache(self, nodes: Sequence[str] | None = None) -> None:
        self.clear_cache(nodes)

    # -- state and history ----------------------------------------------------------
    def require_saver(self) -> Any:
        if self.checkpointer is None:
            raise ValueError("No checkpointer set: compile(checkpointer=InMemorySaver()) to keep state")
        return self.checkpointer

    @staticmethod
    def thread_of(config: Mapping[str, Any] | None) -> tuple[str, str | None]:
        conf = (config or {}).get("configurable", {}) or {}
        thread_id = conf.get("thread_id")
        if thread_id is None:
            raise MissingThreadIdError(
                "config needs a thread: {'configurable': {'thread_id': 'some-id'}}"
            )
        return str(thread_id), conf.get("checkpoint_id")

    def scope_of(self, config: Mapping[str, Any] | None) -> tuple[CompiledStateGraph, str, str]:
        """(the graph, its namespace, the store key) that a config's checkpoint_ns names; a
        subgraph comes bound to this graph's store."""
        thread_id, _ = self.thread_of(config)
        ns = str(((config or {}).get("configurable") or {}).get("checkpoint_ns") or "")
        if not ns:
            return self, "", thread_id
        return graph_for_namespace(self, ns).with_checkpointer(self.require_saver()), ns, ns_thread_key(thread_id, ns)

    @staticmethod
    def checkpoint_config(thread_id: str, checkpoint_id: str | None, checkpoint_ns: str = "") -> dict[str, Any] | None:
        if checkpoint_id is None:
            return None
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns,
                                 "checkpoint_id": checkpoint_id}}

    def snapshot(self, ckpt: Checkpoint, pending: Sequence[PendingWrite] = (),
                 child: Checkpoint | None = None, *, saver: Any = None, subgraphs: bool = False,
                 live: bool = False) -> StateSnapshot:
        """A checkpoint as get_state() shows it (see `engine.graph.snapshots.snapshot_of`)."""
        return snapshot_of(self, ckpt, pending, child, saver=saver, subgraphs=subgraphs, live=live)

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        """The thread's latest checkpoint (or the one the config names), in the namespace the
        config names; with `subgraphs`, each subgraph task carries the subgraph's snapshot."""
        saver = self.require_saver()
        _, checkpoint_id = self.thread_of(config)
        graph, _, key = self.scope_of(config)
        if checkpoint_id is None:
            (ckpt, pending), child = read_head(saver, key), None
        else:  # the record of an older step: its oldest child (the one its own superstep made;
            # later ones are forks, updates) tells what unsaved writes did
            ckpt, child, pending = read_state(saver, key, checkpoint_id)
        if ckpt is None:
            return StateSnapshot(values={}, next=(), config=dict(config), metadata={}, created_at=None,
                                 parent_config=None, tasks=(), interrupts=())
        return graph.snapshot(ckpt, pending, child, saver=saver, subgraphs=subgraphs, live=checkpoint_id is None)

    async def aget_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        return self.get_state(config, subgraphs=subgraphs)

    def get_state_history(
        self, config: Mapping[str, Any], *, before: Mapping[str, Any] | None = None, limit: int | None = None,
        filter: Mapping[str, Any] | None = None,
    ) -> Iterator[StateSnapshot]:
        """The thread's checkpoints, newest first (every branch), lazily; those of a
        subgraph when the config names its checkpoint_ns; only the one a config names."""
        saver = self.require_saver()
        _, only = self.thread_of(config)
        graph, _, key = self.scope_of(config)
        before_id = ((before or {}).get("configurable") or {}).get("checkpoint_id") if before else None
        first_child: dict[str, Checkpoint] = {}
        paged = getattr(saver, "history_with_writes", None)  # a page's pending writes read together (PostgreSQL)
        pairs = (paged(key, before=before_id, limit=limit) if paged is not None
                 else ((c, None) for c in saver.history(key, before=before_id, limit=limit)))
        for ckpt, pending in pairs:
            child = first_child.get(ckpt.id)
            if ckpt.parent_id is not None:  # the oldest child is the one the parent's own superstep made
                first_child[ckpt.parent_id] = ckpt
            if only is not None and ckpt.id != only:
                continue
            if filter and any(ckpt.metadata.get(k) != v and {"source": ckpt.source, "step": ckpt.step}.get(k) != v
                              for k, v in filter.items()):
                continue
            yield graph.snapshot(ckpt, saver.pending_writes(key, ckpt.id) if pending is None else pending, child)

    async def aget_state_history(self, config: Mapping[str, Any], **kwargs: Any) -> AsyncIterator[StateSnapshot]:
        for snap in self.get_state_history(config, **kwargs):
            yield snap

    def update_state(self, config: Mapping[str, Any], values: Any, as_node: str | None = None,
                     task_id: str | None = None) -> dict[str, Any]:
        """Write `values` as if `as_node` had returned them; returns the new checkpoint's config.

        `as_node="__copy__"` copies the checkpoint as a sibling (a fork), `"__input__"` saves
        `values` as a run's input; `as_node=END` with `values=None` clears the next tasks."""
        from .updates import bulk_update

        return bulk_update(self, config, [[(values, as_node)]])

    async def aupdate_state(self, config: Mapping[str, Any], values: Any, as_node: str | None = None,
                            task_id: str | None = None) -> dict[str, Any]:
        if any(r.async_router for r in self.runners.values()):
            # the update runs the node's routers; an async one is awaited on a loop of its
            # own, which this (running) loop's thread cannot host
            return await asyncio.to_thread(self.update_state, config, values, as_node)
        return self.update_state(config, values, as_node)

    def node_update(self, node: str, values: Any) -> Any:
        """What `update_state(values, as_node=node)` applies as that node's output: the
        values themselves (a layer whose nodes write through writers translates them)."""
        return values

    def bulk_update_state(self, config: Mapping[str, Any], supersteps: Sequence[Sequence[Any]]) -> dict[str, Any]:
        """Several supersteps of updates, each a list of `StateUpdate(values, as_node)`
        applied together in one checkpoint; returns the last checkpoint's config."""
        from .updates import bulk_update

        return bulk_update(self, config, supersteps)

    async def abulk_update_state(self, config: Mapping[str, Any],
                                 supersteps: Sequence[Sequence[Any]]) -> dict[str, Any]:
        if any(r.async_router for r in self.runners.values()):
            return await asyncio.to_thread(self.bulk_update_state, config, supersteps)
        return self.bulk_update_state(config, supersteps)

    def get_graph(self, xray: bool | int = False) -> Any:
        """The structure as a drawable graph (networkx DiGraph inside; DOT, Mermaid, PNG, SVG)."""
        from .drawing import DrawableGraph

        return DrawableGraph.from_compiled(self, xray=xray)

    @property
    def nodes(self) -> dict[str, CompiledNode]:
        """Each node (error handlers and `__start__` included) as LangGraph's node objects
        show it: `.bound` is its function, `.copy(update)` a changed copy; calling one
        calls the function."""
        return compiled_nodes(self)

    def __repr__(self) -> str:
        return f"<CompiledStateGraph {self.name!r} nodes={list(self.node_names)}>"


_COPYABLE = frozenset({"name", "checkpointer", "store", "cache", "interrupt_before_nodes", "interrupt_after_nodes",
                       "step_timeout", "config"})
_LIVE_MODES = frozenset({"messages", "custom", "tools"})
