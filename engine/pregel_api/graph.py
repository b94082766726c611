"""`Pregel`: a graph given as nodes and channels, run on the engine's one `Run`.

Each channel becomes a state key folded through that channel; each node becomes an engine
node that reads its channels from the state, runs its function, writes through its
writers, and routes to the nodes subscribed to the channels it wrote (a `Command` goto).
The input is written by the start task, which routes to the subscribers of the input
channels. So checkpoints, interrupts, streaming, get_state/update_state and the studio
treat a Pregel graph as any compiled graph.
"""
from __future__ import annotations

import copy
import inspect
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from ..constants import START
from ..graph.builder import StateGraph
from ..graph.compiled import CompiledStateGraph
from ..types import Command
from .legacy_kwargs import context_schema_from_legacy
from .nodes import NodeBuilder, PregelNode, StepSequence
from .schemas import channels_model

if TYPE_CHECKING:
    from ..types import RunnableConfig

__all__ = ["Pregel", "PregelProtocol"]


class _PregelType(type):
    """`isinstance(g, Pregel)` holds for every compiled graph, as in LangGraph (where
    CompiledStateGraph subclasses Pregel)."""

    def __instancecheck__(cls, obj: Any) -> bool:
        if cls is Pregel or cls is PregelProtocol:
            return isinstance(obj, CompiledStateGraph)
        return super().__instancecheck__(obj)

    def __subclasscheck__(cls, sub: Any) -> bool:
        if cls is Pregel or cls is PregelProtocol:
            return isinstance(sub, type) and issubclass(sub, CompiledStateGraph)
        return super().__subclasscheck__(sub)


class PregelProtocol(metaclass=_PregelType):
    """What every runnable graph is (LangGraph's `PregelProtocol`), for type hints and
    isinstance checks: any compiled graph is one."""


def _names(channels: str | Sequence[str], what: str, known: Mapping[str, Any]) -> None:
    for c in [channels] if isinstance(channels, str) else channels:
        if c not in known:
            raise ValueError(f"Pregel: {what} names channel `{c}`, which is not in channels= "
                             f"({', '.join(sorted(known))})")


def _takes_config(fn: Any) -> bool:
    try:
        return "config" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _steps(bound: Any) -> list[Any]:
    if bound is None:
        return []
    if isinstance(bound, StepSequence):
        return [*_steps(bound.first), *_steps(bound.second)]
    return [bound]


def _is_async(step: Any) -> bool:
    return inspect.iscoroutinefunction(step) or inspect.iscoroutinefunction(getattr(step, "__call__", None))


def _runs_async(step: Any) -> bool:
    """The step has async code of its own (a timeout can stop it): an async function, a
    runnable with an async function (RunnableLambda, RunnableCallable, a binding of one),
    a sequence or parallel whose every step has, or a graph."""
    if _is_async(step):
        return True
    if getattr(step, "afunc", None) is not None or _is_async(getattr(step, "func", None)):
        return True
    if hasattr(step, "bound") and hasattr(step, "kwargs"):  # a RunnableBinding (with_config, bind)
        return _runs_async(step.bound)
    parts = getattr(step, "steps__", None) or getattr(step, "steps", None)
    if isinstance(parts, Mapping):
        parts = list(parts.values())
    if isinstance(parts, (list, tuple)) and parts:
        return all(_runs_async(p) for p in parts)
    return isinstance(step, CompiledStateGraph)


def _only_async(step: Any) -> bool:
    """A runnable that has only an async function (it cannot be invoked synchronously)."""
    func = getattr(step, "func", None)
    return (getattr(step, "afunc", None) is not None and func is None) or _is_async(func)


class _NodeFn:
    """The engine node of one Pregel node."""

    def __init__(self, name: str, node: PregelNode, subscribers: Mapping[str, tuple[str, ...]]) -> None:
        self.name = name
        self.node = node
        self.steps = _steps(node.bound)
        self.subscribers = subscribers

    def read(self, state: Mapping[str, Any]) -> Any:
        chans = self.node.channels
        if isinstance(chans, str):
            return state.get(chans)
        return {c: state[c] for c in chans if c in state}

    def finish(self, output: Any) -> Any:
        if isinstance(output, Command):
            return output
        writes: list[tuple[str, Any]] = []
        for entry in self.node.writers:
            ok, value = entry.resolve(output)
            if ok:
                writes.append((entry.channel, value))
        goto = list(dict.fromkeys(n for ch, _ in writes for n in self.subscribers.get(ch, ())))
        if not goto:
            return writes or None
        return Command(update=writes, goto=goto)


def _is_runnable(step: Any, method: str) -> bool:
    """A step is invoked as a runnable when its class defines `method` (a Runnable, a
    compiled graph); anything else callable (a function, a `Mock(side_effect=...)`, whose
    attributes exist only on the instance) is called with the value."""
    return not inspect.isfunction(step) and callable(getattr(type(step), method, None))


def _sync_node(fn: _NodeFn) -> Any:
    def node(state: Any, config: RunnableConfig) -> Any:
        value = fn.read(state)
        for step in fn.steps:
            if _is_runnable(step, "invoke"):
                value = step.invoke(value, config)
            else:
                value = step(value, config=config) if _takes_config(step) else step(value)
        return fn.finish(value)
    return node


def _async_node(fn: _NodeFn) -> Any:
    async def node(state: Any, config: RunnableConfig) -> Any:
        value = fn.read(state)
        for step in fn.steps:
            if _is_runnable(step, "ainvoke"):
                value = await step.ainvoke(value, config)
            else:
                value = step(value, config=config) if _takes_config(step) else step(value)
                if inspect.isawaitable(value):
                    value = await value
        return fn.finish(value)
    return node


def _runner(fn: _NodeFn) -> Any:
    """The engine node function of a Pregel node: async when a step is (or has a timeout,
    which only an async node can have)."""
    if fn.node.timeout is not None:
        if not (fn.steps and all(_runs_async(st) for st in fn.steps)):
            raise ValueError(f"Pregel node `{fn.name}`: timeouts are only supported for async nodes (a sync "
                             "step cannot be stopped safely while it runs); make its steps async or drop "
                             "the timeout")
        return _async_node(fn)
    return _async_node(fn) if any(_is_async(st) or _only_async(st) for st in fn.steps) else _sync_node(fn)


def _built(name: str, node: Any) -> PregelNode:
    if isinstance(node, NodeBuilder):
        return node.build()
    if isinstance(node, PregelNode):
        return node
    raise TypeError(f"Pregel: node `{name}` must be a NodeBuilder or a PregelNode, got {type(node).__name__}")


def _validate(built: Mapping[str, PregelNode], chans: Mapping[str, Any],
              input_channels: str | Sequence[str], output_channels: str | Sequence[str]) -> None:
    """Every channel the graph's inputs, outputs and nodes name is one of `chans`."""
    _names(input_channels, "input_channels", chans)
    _names(output_channels, "output_channels", chans)
    for n, spec in built.items():
        _names(spec.triggers, f"node `{n}` subscribes to", chans)
        _names(spec.channels, f"node `{n}` reads", chans)
        _names([w.channel for w in spec.writers], f"node `{n}` writes", chans)


def _subscribers(built: Mapping[str, PregelNode]) -> dict[str, tuple[str, ...]]:
    """Channel -> the nodes it triggers, in the nodes' order."""
    subscribers: dict[str, tuple[str, ...]] = {}
    for n, spec in built.items():
        for ch in spec.triggers:
            subscribers[ch] = (*subscribers.get(ch, ()), n)
    return subscribers


def _state_graph(fns: Mapping[str, _NodeFn], subscribers: Mapping[str, tuple[str, ...]],
                 chans: Mapping[str, Any], input_channels: str | Sequence[str],
                 output_channels: str | Sequence[str], context_schema: Any, retry_policy: Any,
                 cache_policy: Any) -> StateGraph:
    """The engine graph of a Pregel graph: a state key per channel, an engine node per node
    (routing to the subscribers of what it writes), START routing to the input's subscribers."""
    state = TypedDict("PregelState", {k: Annotated[Any, ch] for k, ch in chans.items()})  # type: ignore[misc]
    ins = [input_channels] if isinstance(input_channels, str) else list(input_channels)
    outs = [output_channels] if isinstance(output_channels, str) else list(output_channels)
    builder = StateGraph(state, context_schema=context_schema,
                         input_schema=TypedDict("PregelInput", {k: Any for k in ins}),  # type: ignore[operator]
                         output_schema=TypedDict("PregelOutput", {k: Any for k in outs}))  # type: ignore[operator]
    for n, fn in fns.items():
        spec = fn.node
        targets = tuple(dict.fromkeys(t for w in spec.writers for t in subscribers.get(w.channel, ())))
        builder.add_node(n, _runner(fn), metadata=dict(spec.metadata) or None, destinations=targets or None,
                         retry_policy=list(spec.retry_policy) or retry_policy, cache_policy=spec.cache_policy
                         or cache_policy, timeout=spec.timeout)
    entry = tuple(dict.fromkeys(t for c in ins for t in subscribers.get(c, ())))
    builder.add_conditional_edges(START, _no_route, list(entry) or None)
    return builder


class Pregel(CompiledStateGraph, metaclass=_PregelType):
    """LangGraph's low-level graph: `Pregel(nodes=..., channels=..., input_channels=...,
    output_channels=...)`. Every compiled graph is a `Pregel` for isinstance checks."""

    def __init__(self, *, nodes: Mapping[str, Any], channels: Mapping[str, Any] | None,
                 input_channels: str | Sequence[str], output_channels: str | Sequence[str],
                 stream_channels: str | Sequence[str] | None = None, stream_mode: str = "values",
                 auto_validate: bool = True, interrupt_before_nodes: Sequence[str] = (),
                 interrupt_after_nodes: Sequence[str] = (), checkpointer: Any = None, store: Any = None,
                 cache: Any = None, name: str = "LangGraph", debug: bool | None = None,
                 step_timeout: float | None = None, retry_policy: Any = None, cache_policy: Any = None,
                 config: Mapping[str, Any] | None = None, context_schema: Any = None, **kwargs: Any) -> None:
        unknown = sorted(k for k in kwargs if k not in ("trigger_to_nodes", "input_model", "config_type"))
        if unknown:
            raise TypeError(f"Pregel() got unexpected keyword argument(s): {', '.join(unknown)}")
        context_schema = context_schema_from_legacy(context_schema, kwargs)
        chans = dict(channels or {})
        built = {n: _built(n, spec) for n, spec in nodes.items()}
        if auto_validate:
            _validate(built, chans, input_channels, output_channels)
        self.pregel_nodes = built
        self.pregel_channels = chans
        self.input_channels = input_channels
        self.output_channels = output_channels
        self.stream_channels = stream_channels
        self.stream_mode = stream_mode
        self.debug = bool(debug)
        self.retry_policy = retry_policy
        self.cache_policy = cache_policy
        self.subscribers = _subscribers(built)
        self._fns: dict[str, _NodeFn] = {n: _NodeFn(n, spec, self.subscribers) for n, spec in built.items()}
        builder = _state_graph(self._fns, self.subscribers, chans, input_channels, output_channels,
                               context_schema, retry_policy, cache_policy)
        super().__init__(builder, checkpointer=checkpointer, interrupt_before=interrupt_before_nodes,
                         interrupt_after=interrupt_after_nodes, name=name, store=store, cache=cache)
        self.step_timeout = step_timeout
        if config:
            self.bound_config = dict(config)
        schema = self.schema
        single_out = output_channels if isinstance(output_channels, str) else None
        if single_out is not None:
            schema.output = lambda values: values.get(single_out)  # type: ignore[method-assign]
        schema.wrap_input = self._input_command  # type: ignore[method-assign]
        schema.input_plan = self._input_plan  # type: ignore[method-assign]

    @property
    def input_schema(self) -> Any:
        """A pydantic model of the input: the input channel's type, or an object of the input channels."""
        return channels_model(self.name, "Input", self.input_channels, self.pregel_channels, "UpdateType")

    @property
    def output_schema(self) -> Any:
        """A pydantic model of the output: the output channel's type, or an object of the output channels."""
        return channels_model(self.name, "Output", self.output_channels, self.pregel_channels, "ValueType")

    def get_input_jsonschema(self, config: Any = None) -> dict[str, Any]:
        schema: dict[str, Any] = self.input_schema.model_json_schema()
        return schema

    def get_output_jsonschema(self, config: Any = None) -> dict[str, Any]:
        schema: dict[str, Any] = self.output_schema.model_json_schema()
        return schema

    def with_checkpointer(self, checkpointer: Any) -> Pregel:
        """The same graph saving into another checkpointer (the studio's SQLite file)."""
        graph = copy.copy(self)
        graph.checkpointer = checkpointer
        graph.register_state_types()
        return graph

    def node_update(self, node: str, values: Any) -> Any:
        """As LangGraph: an update as `node` goes through that node's writers, as if the
        node had returned `values` (a node without writers, or START: a dict names the
        channels written); the channels written trigger their subscribers next."""
        if isinstance(values, Command):
            return values
        fn = self._fns.get(node)
        if fn is not None and fn.node.writers:
            return fn.finish(values)
        if node == START and not isinstance(values, Mapping):
            return self._input_command(values)
        if isinstance(values, Mapping):
            goto = list(dict.fromkeys(n for ch in values for n in self.subscribers.get(ch, ())))
            return Command(update=list(values.items()), goto=goto)
        return values

    async def ainvoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """As on any graph; the output is the last state that wrote an output channel (None
        when this run wrote none, as LangGraph)."""
        if kwargs.get("output_keys") is None:
            kwargs["output_keys"] = self.output_channels
        return await super().ainvoke(input, config, **kwargs)

    def astream(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> AsyncIterator[Any]:
        """As on any graph; the values stream shows `stream_channels` (all channels by default).
        (The graph's own stream, handed out as it is: nothing runs before its first chunk.)"""
        if kwargs.get("output_keys") is None:
            kwargs["output_keys"] = self.stream_channels if self.stream_channels is not None else list(self.channels)
        return super().astream(input, config, **kwargs)

    def _input_plan(self, value: Any) -> tuple[list[tuple[str, Any]], tuple[str, ...]] | None:
        """The input written into the input channels, their subscribers the first step's tasks."""
        command = self._input_command(value)
        if not isinstance(command, Command) or command is value:
            return None
        return list(command.update or ()), tuple(str(t) for t in command.goto_targets())

    def _input_command(self, value: Any) -> Any:
        """The input as the start task's writes, routed to the input channels' subscribers."""
        if value is None or isinstance(value, Command):
            return value
        if isinstance(self.input_channels, str):
            writes = [(self.input_channels, value)]
        else:
            if not isinstance(value, Mapping):
                raise TypeError(f"Pregel: with input_channels={list(self.input_channels)!r} the input is a dict "
                                f"of those channels, got {type(value).__name__}: {value!r:.60}")
            writes = [(k, v) for k, v in value.items() if k in self.input_channels]
        goto = list(dict.fromkeys(n for ch, _ in writes for n in self.subscribers.get(ch, ())))
        return Command(update=writes, goto=goto)


def _no_route(state: Any) -> list[str]:
    """The start task's routes come from its Command (the input's subscribers)."""
    return []

