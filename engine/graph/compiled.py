"""CompiledStateGraph: a validated graph you can run, inspect, rewind and draw.

invoke/stream and their async twins are thin drivers over `Run`; `new_run()` hands the
same Run to a debugger that advances it one move at a time.
"""
from __future__ import annotations

import asyncio
import contextvars
import copy
import dataclasses
import functools
import threading
from contextlib import aclosing
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..checkpoint.base import (
    BaseCheckpointSaver,
    Checkpoint,
    PendingWrite,
    ns_thread_key,
    split_thread_key,
)
from ..constants import DEFAULT_ERROR_HANDLER, ERROR_HANDLER_PREFIX, INTERRUPT_KEY, PULL_PATH, PUSH_PATH, START
from ..errors import MissingThreadIdError
from ..runtime.command_input import apply_input_writes, is_input_write
from ..runtime.nested import nested_outcome, nested_run
from ..runtime.replay import with_map
from ..runtime.drive import Waker, drive
from ..runtime.run import FROM_GRAPH, Run
from ..runtime.options import RunOptions
from ..runtime.stream import StreamCollector
from ..runtime.task import NodeRunner, apply_own_writes
from ..schema import StateSchema
from ..jsonschema import context_jsonschema, schema_title, state_jsonschema
from ..node_input import NodeInput
from ..outputs import GraphOutput
from ..policies import TimeoutPolicy
from ..types import StateSnapshot, TaskInfo

from .compiled_node import CompiledNode, compiled_nodes
from .nested_state import graph_for_namespace, task_state_config, task_state_namespace
from .task_results import superstep_record

if TYPE_CHECKING:
    from .builder import StateGraph

__all__ = ["CompiledStateGraph"]

DEFAULT_HANDLER = DEFAULT_ERROR_HANDLER


class CompiledStateGraph:
    """Runnable graph. Built by `StateGraph.compile()`."""

    def __init__(
        self,
        builder: StateGraph,
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
        _check_checkpointer(checkpointer)
        self.checkpointer = None if checkpointer is True or checkpointer is False else checkpointer
        self.persistence: bool | None = checkpointer if checkpointer is True or checkpointer is False else None
        """As a subgraph: True keeps its state across calls (one namespace per node), False
        saves nothing, None (the default) saves each call under its task's namespace."""
        self.interrupt_before = tuple(interrupt_before)
        self.interrupt_after = tuple(interrupt_after)
        self.every_node_breaks: frozenset[str] = frozenset()
        """"before"/"after" when compiled with `interrupt_before/after="*"` (drawn as no node's own)."""
        node_schemas = [spec.input_schema for spec in builder.nodes.values() if spec.input_schema is not None]
        node_schemas += [b.input_schema for bs in builder.branches.values() for b in bs.values()
                         if b.input_schema is not None]  # a router's keys are channels too
        self.schema = StateSchema(builder.state_schema, builder.input_schema, builder.output_schema,
                                  node_schemas=node_schemas)
        self.joins: dict[str, tuple[tuple[str, ...], str]] = {}
        joins_of: dict[str, list[str]] = {}
        for sources, target in builder.waiting_edges:
            join = f"join:{'+'.join(sources)}:{target}"
            self.joins[join] = (sources, target)
            for s in sources:
                joins_of.setdefault(s, []).append(join)
        edges_of: dict[str, list[str]] = {}
        for src, dst in builder.edges:
            if dst not in edges_of.setdefault(src, []):
                edges_of[src].append(dst)
        self.runners: dict[str, NodeRunner] = {
            START: NodeRunner(START, None, edges_of.get(START, ()),
                              tuple(builder.branches.get(START, {}).values()), ()),
        }
        defaults = builder.node_defaults
        for name_, spec in builder.nodes.items():
            timeout = TimeoutPolicy.coerce(spec.timeout) or defaults.get("timeout")
            self.runners[name_] = NodeRunner(name_, spec.fn, edges_of.get(name_, ()),
                                             tuple(builder.branches.get(name_, {}).values()),
                                             joins_of.get(name_, ()), retry=spec.retry or defaults.get("retry"),
                                             cache_policy=spec.cache_policy or defaults.get("cache_policy"),
                                             timeout=timeout,
                                             input_view=None if spec.input_schema is None
                                             else NodeInput(spec.input_schema))
        self._add_error_handlers(builder)
        slow_sync = [n for n, r in self.runners.items() if r.timeout is not None and not r.is_async]
        if slow_sync:
            raise ValueError(
                f"node(s) {', '.join(f'`{n}`' for n in slow_sync)}: timeouts are only supported for async nodes "
                "(a sync function cannot be stopped safely while it runs); make it `async def` or drop the timeout"
            )
        self.bound_config: dict[str, Any] = {}
        """Config merged under every call's config (see `with_config`)."""
        self.step_timeout: float | None = None
        """Seconds a superstep may take (set it on the compiled graph, as in LangGraph): past
        them its running nodes are cancelled and the run raises TimeoutError."""
        self.deferred: frozenset[str] = frozenset(n for n, spec in builder.nodes.items() if spec.defer)
        """Nodes added with defer=True: they run once nothing else is left to run."""
        self.node_names: tuple[str, ...] = tuple(builder.nodes)
        self.node_set: frozenset[str] = frozenset(builder.nodes)
        self._register_types()

    @property
    def channels(self) -> Mapping[str, Any]:
        """The state's channels by key (LangGraph's `graph.channels`): how each key is
        written, e.g. a reducer channel for an `Annotated[list, operator.add]` key."""
        return self.schema.channels

    def _add_error_handlers(self, builder: StateGraph) -> None:
        """A runner per error handler (`__error_handler__<node>`, or the graph's default
        `__default_error_handler__`), linked from the nodes it serves."""
        default = builder.node_defaults.get("error_handler")
        if default is not None and DEFAULT_HANDLER in builder.nodes:
            raise ValueError(f"node `{DEFAULT_HANDLER}` collides with the default error handler that "
                             "set_node_defaults(error_handler=...) adds under that name; rename the node")
        if default is not None:
            self.runners[DEFAULT_HANDLER] = NodeRunner(DEFAULT_HANDLER, default, (), (), ())
            self.runners[DEFAULT_HANDLER].handles_errors = True
        for name_, spec in builder.nodes.items():
            if spec.error_handler is not None:
                handler = f"{ERROR_HANDLER_PREFIX}{name_}"
                self.runners[handler] = NodeRunner(handler, spec.error_handler, (), (), ())
                self.runners[handler].handles_errors = True
                self.runners[name_].error_handler = handler
            elif default is not None:
                self.runners[name_].error_handler = DEFAULT_HANDLER

    def _register_types(self) -> None:
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
            _check_checkpointer(checkpointer)
            graph.checkpointer = None if checkpointer is True or checkpointer is False else checkpointer
            graph.persistence = checkpointer if checkpointer is True or checkpointer is False else None
            graph._register_types()
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
                if interrupt_before is not None:
                    child.interrupt_before = frozenset(interrupt_before)
                if interrupt_after is not None:
                    child.interrupt_after = frozenset(interrupt_after)
                return child
        return Run(self, input, config, interrupt_before=interrupt_before, interrupt_after=interrupt_after,
                   inline_sync=inline_sync, durability=durability, context=context, control=control,
                   checkpointer=checkpointer, checkpoint_ns=checkpoint_ns or "", options=options)

    async def _drive(self, run: Run, collector: StreamCollector | None) -> AsyncGenerator[Any, None]:
        """`drive()` with what invoke/stream add: the graph's callback run ends after the last
        chunk, and a failed run raises its error to the caller."""
        tracer = run.tracer
        if tracer is not None:
            tracer.ended_by_driver = True
        try:
            async with aclosing(drive(run, None, collector)) as chunks:  # closed at once when we are
                async for chunk in chunks:
                    yield chunk
            if run.status == "failed" and run.error is not None:
                raise run.error
        except BaseException as exc:
            if tracer is not None:
                tracer.end(None, exc)
            raise
        if tracer is not None:
            tracer.end(self.schema.output(run.preview or run.values), None)

    async def astream(
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
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """Run the graph, yielding chunks of the chosen stream mode(s) ("updates" by default); with
        `subgraphs`, also the subgraphs' chunks, each as `(namespace, chunk)` (or `(namespace, mode, chunk)`)."""
        durability = _durability(durability, kwargs, "stream")
        if stream_mode is None and _from_a_task(config):  # as LangGraph: a node streaming with its config
            stream_mode = "values"
        modes = ["updates"] if stream_mode is None else [stream_mode] if isinstance(stream_mode, str) \
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
        if "messages" in collector.modes:
            from ..runtime.tracing import add_handler, messages_handler

            handler = messages_handler(collector.put_message, subgraphs)
            config = add_handler(config, handler)
        if collector.modes & _LIVE_MODES or subgraphs or hasattr(self, "input_node"):
            # tokens, custom data, a subgraph's steps and an entrypoint's task results go out
            # while the node runs
            collector.wake = Waker()
            _inline_sync = False
        run = self.new_run(input, config, inline_sync=_inline_sync, interrupt_before=interrupt_before,
                           interrupt_after=interrupt_after, durability=durability, context=context, control=control)
        collector.saves = run.saver is not None
        collector.home, collector.home_ns = run.namespace, run.checkpoint_ns
        if "messages" in collector.modes and run.checkpoint_ns:  # a graph streamed inside a node
            handler.home = tuple(run.checkpoint_ns.split("|"))
        if version == "v2":
            collector.as_output = self._output_instance()
        run.subscribe(collector)
        if collector.wake is not None:
            run.subscribe(collector.wake)
        async with aclosing(self._drive(run, collector)) as chunks:  # a consumer that stops early
            async for chunk in chunks:                               # cancels the running nodes
                yield chunk
        if run.namespace:  # invoked inside a node: an interrupt pauses that node's task
            nested_outcome(run, self)

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
        durability = _durability(durability, kwargs, "invoke")
        if stream_mode != "values" or print_mode or debug or output_keys is not None:
            chunks = [c async for c in self.astream(
                input, config, context=context, stream_mode=stream_mode, print_mode=print_mode,
                output_keys=output_keys, interrupt_before=interrupt_before, interrupt_after=interrupt_after,
                durability=durability, control=control, debug=debug, version=version, _inline_sync=_inline_sync,
                subgraphs=subgraphs and stream_mode != "values")]
            if stream_mode != "values":
                return chunks
            return _last_values(chunks, version, output_keys)
        if version not in ("v1", "v2"):
            raise ValueError(f"unknown version {version!r}: use 'v1' or 'v2'")
        run = self.new_run(input, config, inline_sync=_inline_sync, interrupt_before=interrupt_before,
                           interrupt_after=interrupt_after, durability=durability, context=context, control=control)
        async for _ in self._drive(run, None):
            pass
        if run.namespace:  # invoked inside a node: an interrupt pauses that node's task
            nested_outcome(run, self)
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

    async def astream_events(
        self, input: Any, config: Mapping[str, Any] | None = None, *, version: str = "v2", **kwargs: Any,
    ) -> AsyncIterator[dict[str, Any]]:
        """LangChain's event stream (version "v2"): on_chain_start/stream/end for the graph
        and each node, on_chat_model_stream for tokens of chat models called in nodes.
        Needs langchain-core (`pip install 'retrograph[langchain]'`)."""
        if version != "v2":
            raise ValueError(f"astream_events supports version='v2' only, got {version!r}")
        try:
            from langchain_core.tracers.event_stream import _astream_events_implementation_v2
        except ImportError:
            raise ImportError(
                "astream_events needs langchain-core: pip install 'retrograph[langchain]'"
            ) from None
        events_of = _astream_events_implementation_v2(self, input, dict(config or {}), **kwargs)
        async with aclosing(events_of) as events:
            async for event in events:  # closed with this one: a consumer that stops cancels the nodes
                yield event

    def invoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """Synchronous ainvoke; sync nodes of one-task supersteps run on the caller's thread."""
        _check_kwargs("invoke", kwargs, _INVOKE_ARGS)
        return _run_sync(self.ainvoke(input, config, _inline_sync=True, **kwargs))

    def stream(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Iterator[Any]:
        """Synchronous astream."""
        _check_kwargs("stream", kwargs, _STREAM_ARGS)
        return _iterate_sync(self.astream(input, config, _inline_sync=True, **kwargs))

    def batch(self, inputs: Sequence[Any], config: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
              *, return_exceptions: bool = False, **kwargs: Any) -> list[Any]:
        """invoke() each input (with its own config when a list is given), in order."""
        configs = _configs_for(inputs, config)
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
        configs = _configs_for(inputs, config)
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
    def _saver(self) -> Any:
        if self.checkpointer is None:
            raise ValueError("No checkpointer set: compile(checkpointer=InMemorySaver()) to keep state")
        return self.checkpointer

    @staticmethod
    def _thread(config: Mapping[str, Any] | None) -> tuple[str, str | None]:
        conf = (config or {}).get("configurable", {}) or {}
        thread_id = conf.get("thread_id")
        if thread_id is None:
            raise MissingThreadIdError(
                "config needs a thread: {'configurable': {'thread_id': 'some-id'}}"
            )
        return str(thread_id), conf.get("checkpoint_id")

    def _scope(self, config: Mapping[str, Any] | None) -> tuple[CompiledStateGraph, str, str]:
        """(the graph, its namespace, the store key) that a config's checkpoint_ns names; a
        subgraph comes bound to this graph's store."""
        thread_id, _ = self._thread(config)
        ns = str(((config or {}).get("configurable") or {}).get("checkpoint_ns") or "")
        if not ns:
            return self, "", thread_id
        return graph_for_namespace(self, ns).with_checkpointer(self._saver()), ns, ns_thread_key(thread_id, ns)

    @staticmethod
    def checkpoint_config(thread_id: str, checkpoint_id: str | None, checkpoint_ns: str = "") -> dict[str, Any] | None:
        if checkpoint_id is None:
            return None
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns,
                                 "checkpoint_id": checkpoint_id}}

    def snapshot(self, ckpt: Checkpoint, pending: Sequence[PendingWrite] = (),
                 child: Checkpoint | None = None, *, saver: Any = None, subgraphs: bool = False,
                 live: bool = False) -> StateSnapshot:
        """A checkpoint as get_state() shows it. `live` (the thread's head, as get_state()
        without a checkpoint id): the saved writes of tasks that already finished in its
        unfinished superstep are applied, `next` leaves those tasks out and only
        unanswered interrupts show. Otherwise it is the record of its superstep: the values
        it started from, every task with what it did (see task_results.py). `child`, the
        checkpoint its superstep made, tells what a task whose writes were not kept wrote.
        A task of a subgraph node carries the subgraph's config, or with `subgraphs` (and
        the `saver`) the subgraph's own snapshot."""
        channels = self.schema.channels
        thread_id, ns = split_thread_key(ckpt.thread_id)
        values: Any = {k: v for k, v in ckpt.values.items() if k in channels}  # a root state: one value
        plan = ckpt.tasks
        inputs = [w for w in pending if is_input_write(w, ckpt.id)]
        if inputs:  # a Command given as input: its update and goto act on this checkpoint
            values, plan = apply_input_writes(self, ckpt.id, values, plan, inputs)
            pending = [w for w in pending if not is_input_write(w, ckpt.id)]
        pushed = [t for t in plan if t.is_send and t.name != START]
        if pushed and len(pushed) < len(plan):  # as LangGraph lists them: Sends first, then nodes
            plan = (*pushed, *(t for t in plan if not t.is_send or t.name == START))
        did = superstep_record(self, ckpt, plan, pending, child, live=live)
        tasks = tuple(
            TaskInfo(id=t.id, name=t.name, path=_task_path(t, i), error=d.error, interrupts=d.interrupts,
                     result=d.result, state=self._task_state(thread_id, ns, t.id, t.name, saver if subgraphs else None))
            for i, (t, d) in enumerate(zip(plan, did))
        )
        if live:
            saved = [(w.channel, w.value) for d in did for w in d.output if w.channel in channels]
            if saved:
                try:
                    values = apply_own_writes(values, saved, channels)[0]
                except Exception:  # conflicting writes: the commit will report them; show the checkpoint
                    pass
        parents = ckpt.metadata.get("parents") if ns else None
        if self.schema.root:  # the state is one value
            values = self.schema.output(values)
            tasks = tuple(t._replace(result=self.schema.unwrap_update(t.result)) for t in tasks)
        return StateSnapshot(
            values=values,
            next=tuple(t.name for t, d in zip(plan, did) if not (live and d.finished)),
            config=with_map(self.checkpoint_config(thread_id, ckpt.id, ns) or {}, parents),
            metadata={"source": ckpt.source, "step": ckpt.step, "parents": {}, **dict(ckpt.metadata)},
            created_at=ckpt.created_at,
            parent_config=None if not ckpt.parent_id else with_map(self.checkpoint_config(thread_id, ckpt.parent_id, ns) or {},
                                                      parents),
            tasks=tasks,
            interrupts=tuple(i for t in tasks for i in t.interrupts),
        )

    def _task_state(self, thread_id: str, ns: str, task_id: str, name: str, saver: Any) -> Any:
        """None for a plain node; a subgraph's config, or (given a saver) its latest snapshot."""
        found = task_state_namespace(self, ns, name, task_id)
        if found is None:
            return None
        sub, sub_ns = found
        if saver is None:
            return {"configurable": {"thread_id": thread_id, "checkpoint_ns": sub_ns}}
        key = ns_thread_key(thread_id, sub_ns)
        ckpt = saver.get(key)
        if ckpt is None:
            return None
        return sub.snapshot(ckpt, saver.pending_writes(key, ckpt.id), saver=saver, subgraphs=True, live=True)

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        """The thread's latest checkpoint (or the one the config names), in the namespace the
        config names; with `subgraphs`, each subgraph task carries the subgraph's snapshot."""
        saver = self._saver()
        _, checkpoint_id = self._thread(config)
        graph, _, key = self._scope(config)
        ckpt = saver.get(key, checkpoint_id)
        if ckpt is None:
            return StateSnapshot(values={}, next=(), config=dict(config), metadata={}, created_at=None,
                                 parent_config=None, tasks=(), interrupts=())
        child = None
        if checkpoint_id is not None:  # the record of an older step: its child tells what unsaved writes did
            first = None  # its oldest child: the one its own superstep made (later ones are forks, updates)
            for header in saver.list_headers(key):  # newest first; children come after their parent
                if header.id == ckpt.id:
                    break
                if header.parent_id == ckpt.id:
                    first = header.id
            child = saver.get(key, first) if first is not None else None
        return graph.snapshot(ckpt, saver.pending_writes(key, ckpt.id), child, saver=saver, subgraphs=subgraphs,
                              live=checkpoint_id is None)

    async def aget_state(self, config: Mapping[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        return self.get_state(config, subgraphs=subgraphs)

    def get_state_history(
        self, config: Mapping[str, Any], *, before: Mapping[str, Any] | None = None, limit: int | None = None,
        filter: Mapping[str, Any] | None = None,
    ) -> Iterator[StateSnapshot]:
        """The thread's checkpoints, newest first (every branch), lazily; those of a
        subgraph when the config names its checkpoint_ns; only the one a config names."""
        saver = self._saver()
        _, only = self._thread(config)
        graph, _, key = self._scope(config)
        before_id = ((before or {}).get("configurable") or {}).get("checkpoint_id") if before else None
        first_child: dict[str, Checkpoint] = {}
        for ckpt in saver.list(key, before=before_id, limit=limit):
            child = first_child.get(ckpt.id)
            if ckpt.parent_id is not None:  # the oldest child is the one the parent's own superstep made
                first_child[ckpt.parent_id] = ckpt
            if only is not None and ckpt.id != only:
                continue
            if filter and any(ckpt.metadata.get(k) != v and {"source": ckpt.source, "step": ckpt.step}.get(k) != v
                              for k, v in filter.items()):
                continue
            yield graph.snapshot(ckpt, saver.pending_writes(key, ckpt.id), child)

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

    # -- drawing --------------------------------------------------------------------
    # -- JSON schemas (pydantic), as LangGraph's --------------------------------------------
    def get_input_jsonschema(self, config: Any = None) -> dict[str, Any]:
        """The JSON schema of what `invoke` takes (the input schema, else the state's)."""
        schema = self.builder.input_schema
        return state_jsonschema(self.builder.state_schema if schema is None else schema, schema_title(self.name, "Input"))

    def get_output_jsonschema(self, config: Any = None) -> dict[str, Any]:
        """The JSON schema of what `invoke` returns (the output schema, else the state's)."""
        schema = self.builder.output_schema
        return state_jsonschema(self.builder.state_schema if schema is None else schema, schema_title(self.name, "Output"))

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        """The JSON schema of `context_schema`, None without one."""
        return context_jsonschema(self.builder.context_schema)

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

    def __or__(self, other: Any) -> Any:
        """`graph | runnable`: a LangChain chain whose first step is this graph."""
        from .as_runnable import as_runnable

        return as_runnable(self) | other

    def __ror__(self, other: Any) -> Any:
        from .as_runnable import as_runnable

        return other | as_runnable(self)

    def __repr__(self) -> str:
        return f"<CompiledStateGraph {self.name!r} nodes={list(self.node_names)}>"


_COPYABLE = frozenset({"name", "checkpointer", "store", "cache", "interrupt_before_nodes", "interrupt_after_nodes",
                       "step_timeout", "config"})
_INVOKE_ARGS = frozenset({"context", "stream_mode", "print_mode", "output_keys", "interrupt_before",
                          "interrupt_after", "durability", "control", "debug", "version", "checkpoint_during"})
_STREAM_ARGS = _INVOKE_ARGS | {"subgraphs"}
_INVOKE_ARGS = _STREAM_ARGS  # LangGraph's invoke passes `subgraphs` on to its stream


def _from_a_task(config: Mapping[str, Any] | None) -> bool:
    """Whether `config` is the one a running node received (it names the task's namespace)."""
    if not config:
        return False
    ns = (config.get("configurable") or {}).get("checkpoint_ns")
    if not ns:
        return False
    from ..runtime.context import current_task

    return current_task.get() is not None


def _configs_for(inputs: Sequence[Any], config: Any) -> list[Any]:
    if isinstance(config, (list, tuple)):
        if len(config) != len(inputs):
            raise ValueError(f"batch(): {len(inputs)} inputs but {len(config)} configs; give one config or one each")
        return list(config)
    return [config] * len(inputs)


def _check_kwargs(where: str, kwargs: Mapping[str, Any], known: frozenset[str]) -> None:
    unknown = sorted(k for k in kwargs if k not in known)
    if unknown:
        raise TypeError(f"{where}() got unexpected keyword argument(s): {', '.join(map(repr, unknown))} "
                        f"(it takes: {', '.join(sorted(known - {'checkpoint_during'}))})")


def _durability(durability: str | None, kwargs: dict[str, Any], where: str) -> str | None:
    """`durability=`, or the deprecated `checkpoint_during=`; any other keyword is an error."""
    during = kwargs.pop("checkpoint_during", None)
    _check_kwargs(where, kwargs, _STREAM_ARGS if where == "stream" else _INVOKE_ARGS)
    if during is not None:
        if durability is not None:
            raise ValueError("pass durability= or checkpoint_during=, not both (checkpoint_during is deprecated)")
        durability = "async" if during else "exit"
    if durability is not None and durability not in ("sync", "async", "exit"):
        raise ValueError(f"unknown durability {durability!r}: use 'sync', 'async' or 'exit'")
    return durability


def _last_values(chunks: list[Any], version: str, output_keys: Any) -> Any:
    """invoke()'s result from a values stream: the last chunk (GraphOutput in v2)."""
    if version == "v2":
        last = chunks[-1] if chunks else {"data": None, "interrupts": ()}
        return GraphOutput(last["data"], tuple(last.get("interrupts") or ()))
    latest: Any = None
    interrupts: list[Any] = []
    for chunk in chunks:  # as LangGraph: the last state, with every interrupt the stream showed
        if isinstance(chunk, dict) and INTERRUPT_KEY in chunk:
            interrupts.extend(chunk[INTERRUPT_KEY])
            chunk = {k: v for k, v in chunk.items() if k != INTERRUPT_KEY}
        latest = chunk
    if interrupts and isinstance(latest, dict):
        return {**latest, INTERRUPT_KEY: interrupts}
    return latest


_SAVER_METHODS = ("get", "put", "put_writes", "pending_writes", "list")


def _check_checkpointer(checkpointer: Any) -> None:
    """compile(checkpointer=...) takes a saver, True, False or None; anything else is a
    TypeError now rather than an AttributeError in the middle of a run."""
    if checkpointer is None or checkpointer is True or checkpointer is False:
        return
    if isinstance(checkpointer, BaseCheckpointSaver) or all(
            callable(getattr(checkpointer, m, None)) for m in _SAVER_METHODS):
        return
    raise TypeError(
        f"Invalid checkpointer provided. Expected a checkpoint saver (InMemorySaver, SqliteSaver...), "
        f"True, False or None; got {type(checkpointer).__name__}: {checkpointer!r:.80}."
    )


def _task_path(task: Any, index: int) -> tuple[Any, ...]:
    if task.is_send and task.name != START:  # the input task is kept as a send, shown as LangGraph's pull
        return (PUSH_PATH, index, False)  # Sends come first in a snapshot: index among them
    return (PULL_PATH, task.name)


_LIVE_MODES = frozenset({"messages", "custom"})


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _run_sync(coro: Any) -> Any:
    """Run a coroutine to the end from sync code, also when called inside a running loop."""
    if not _loop_running():
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(coro)
        finally:
            _close_loop(loop)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = _run_sync(coro)
        except BaseException as exc:  # re-raised on the caller's thread
            box["error"] = exc

    context = contextvars.copy_context()  # a graph invoked inside a node finds its task
    thread = threading.Thread(target=context.run, args=(target,), name="retrograph-invoke")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _close_loop(loop: asyncio.AbstractEventLoop) -> None:
    try:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
    finally:
        loop.close()


def _iterate_sync(agen: Any) -> Iterator[Any]:
    """Iterate an async generator from sync code, chunk by chunk."""
    if _loop_running():
        # Inside someone's event loop (a notebook, a GUI): collect on a helper thread.
        yield from _run_sync(_collect(agen))
        return
    loop = asyncio.new_event_loop()
    try:
        while True:
            try:
                chunk = loop.run_until_complete(agen.__anext__())
            except StopAsyncIteration:
                break
            yield chunk
    finally:
        try:
            loop.run_until_complete(agen.aclose())
        finally:
            _close_loop(loop)


async def _collect(agen: Any) -> list[Any]:
    return [chunk async for chunk in agen]


