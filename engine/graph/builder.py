"""StateGraph: the builder users write their graph with (LangGraph's API)."""
from __future__ import annotations

import types
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Literal

from ..constants import END, RESERVED_NAMES, START
from ..node_input import hinted_input_schema
from ..policies import TimeoutPolicy
from ..schema import StateSchema, schema_fields
from ..warnings import renamed
from ..specs import Branch, NodeSpec, is_runnable, is_subgraph, literal_targets
from .subscript import annotation_alias
from .config_hint import check_config_hint
from .schema_warning import warn_invalid_state_schema

__all__ = ["StateGraph", "NodeSpec", "Branch", "is_subgraph", "is_runnable"]


def _coerce_node(node: str, action: Any) -> Any:
    """A dict of runnables (or functions) as a node runs them all on the state, as
    LangGraph's RunnableParallel does: the node's update maps each key to its result."""
    if not isinstance(action, dict):
        return action
    try:
        from langchain_core.runnables import RunnableParallel
    except ImportError:
        raise TypeError(
            f"node `{node}`: a dict of runnables as a node needs langchain-core "
            "(pip install 'retrograph[langchain]'); or pass one function that returns the dict"
        ) from None
    return RunnableParallel(action)


def _renamed_options(deprecated: dict[str, Any], retry_policy: Any, input_schema: Any) -> tuple[Any, Any]:
    """(retry_policy, input_schema), taking LangGraph's old spellings `retry=`/`input=`
    (with their deprecation warning) where the new ones are not given."""
    for old, new in (("retry", "retry_policy"), ("input", "input_schema")):
        if deprecated.get(old) is not None:
            renamed(old, new)
    if retry_policy is None:
        retry_policy = deprecated.get("retry")
    if input_schema is None:
        input_schema = deprecated.get("input")
    return retry_policy, input_schema


def _name_of(fn: Any) -> str:
    name = getattr(fn, "name", None) if is_subgraph(fn) else None
    return name or getattr(fn, "__name__", None) or type(fn).__name__


class StateGraph:
    """A graph whose nodes read a shared state and return partial updates to it."""

    def __class_getitem__(cls, params: Any) -> types.GenericAlias:
        """`X[State, Context, Input, Output]` in annotations, as LangGraph's generic class."""
        return annotation_alias(cls, params)

    def __init__(
        self,
        state_schema: Any = None,
        context_schema: Any = None,
        *,
        input_schema: Any = None,
        output_schema: Any = None,
        **legacy: Any,
    ) -> None:
        for old, new in (("input", "input_schema"), ("output", "output_schema")):
            if legacy.get(old) is not None:
                renamed(old, new)
        input_schema = input_schema if input_schema is not None else legacy.pop("input", None)
        output_schema = output_schema if output_schema is not None else legacy.pop("output", None)
        config_schema = legacy.pop("config_schema", None)  # LangGraph 0.x's name for context_schema
        if config_schema is not None:
            renamed("config_schema", "context_schema", since="1.0")
            context_schema = context_schema if context_schema is not None else config_schema
        if legacy:
            raise TypeError(f"StateGraph() got unexpected arguments: {', '.join(sorted(legacy))}")
        if state_schema is None:
            if input_schema is None:
                raise ValueError("StateGraph needs a state schema: StateGraph(MyState)")
            state_schema = input_schema
        for schema in (state_schema, input_schema, output_schema):
            if schema is not None and not isinstance(schema, Mapping):  # a mapping: the engine's own form
                warn_invalid_state_schema(schema)
            schema_fields(schema)  # a schema whose annotations do not resolve fails here, clearly
        StateSchema(state_schema, input_schema, output_schema)  # so does a reducer that takes no two values
        self.state_schema = state_schema
        self.input_schema = input_schema
        self.output_schema = output_schema
        self.context_schema = context_schema
        self.nodes: dict[str, NodeSpec] = {}
        self.edges: list[tuple[str, str]] = []
        self.waiting_edges: list[tuple[tuple[str, ...], str]] = []
        self.branches: dict[str, dict[str, Branch]] = {}
        self.node_defaults: dict[str, Any] = {}
        """set_node_defaults(): policies for nodes that do not set their own."""

    # -- nodes --------------------------------------------------------------------
    def add_node(
        self,
        node: str | Callable[..., Any],
        action: Callable[..., Any] | None = None,
        *,
        defer: bool = False,
        metadata: dict[str, Any] | None = None,
        input_schema: Any = None,
        retry_policy: Any = None,
        cache_policy: Any = None,
        error_handler: Any = None,
        destinations: Sequence[str] | dict[str, str] | None = None,
        timeout: Any = None,
        trace_policy: Any = None,
        **deprecated: Any,
    ) -> StateGraph:
        """Add a node: `add_node("name", fn)`, or `add_node(fn)` to name it after fn."""
        unknown = sorted(k for k in deprecated if k not in ("retry", "input"))
        if unknown:
            raise TypeError(
                f"add_node() got unexpected keyword argument(s): {', '.join(map(repr, unknown))} (it takes: "
                "defer, metadata, input_schema, retry_policy, cache_policy, error_handler, destinations, "
                "timeout, trace_policy)"
            )
        node, action = self._named_action(node, action)
        plain_fn = callable(action) and not hasattr(action, "ainvoke")
        dests: tuple[str, ...] = tuple(destinations) if destinations else ()
        if not dests and plain_fn:
            dests = literal_targets(action, commands_only=True) or ()
        retry_policy, input_schema = _renamed_options(deprecated, retry_policy, input_schema)
        if plain_fn:
            check_config_hint(action)
            if input_schema is None:
                input_schema = hinted_input_schema(action, self.state_schema)
        if input_schema is not None:
            schema_fields(input_schema)  # an input schema whose annotations do not resolve fails here
        self.nodes[node] = NodeSpec(
            name=node, fn=action, metadata=dict(metadata or {}), destinations=dests,
            destination_labels={str(k): str(v) for k, v in destinations.items()} if isinstance(destinations, dict) else {},
            retry=_retry_policies(node, retry_policy), defer=bool(defer), input_schema=input_schema,
            cache_policy=cache_policy, error_handler=error_handler, timeout=TimeoutPolicy.coerce(timeout),
            trace_policy=trace_policy,
        )
        return self

    def _named_action(self, node: str | Callable[..., Any], action: Callable[..., Any] | None) -> tuple[str, Any]:
        """(the node's name, what it runs) from add_node's first two arguments, checked: a
        callable (or a compiled graph), and a new name that is not reserved."""
        if action is None:
            if isinstance(node, str):
                raise ValueError(f"add_node({node!r}) needs a function: add_node({node!r}, fn)")
            action, node = node, _name_of(node)
        if not isinstance(node, str):
            raise TypeError(f"a node name must be a string, got {type(node).__name__}")
        action = _coerce_node(node, action)
        if not callable(action) and not hasattr(action, "ainvoke"):
            raise TypeError(f"node `{node}`: {action!r} is not callable; pass a function or a compiled graph")
        if node in self.nodes:
            raise ValueError(f"Node `{node}` already present. Give each node a unique name.")
        if node in RESERVED_NAMES:
            raise ValueError(f"Node name `{node}` is reserved for the graph's own use; choose another name.")
        for ch in (":", "|"):
            if ch in node:
                raise ValueError(f"Node name `{node}` must not contain {ch!r}; choose another name.")
        return node, action

    def set_node_defaults(self, *, retry_policy: Any = None, cache_policy: Any = None, error_handler: Any = None,
                          timeout: Any = None) -> StateGraph:
        """Policies for every node that does not set its own (applied at compile time)."""
        if retry_policy is not None:
            self.node_defaults["retry"] = _retry_policies("(default)", retry_policy)
        if cache_policy is not None:
            self.node_defaults["cache_policy"] = cache_policy
        if error_handler is not None:
            self.node_defaults["error_handler"] = error_handler
        if timeout is not None:
            self.node_defaults["timeout"] = TimeoutPolicy.coerce(timeout)
        return self

    def add_sequence(self, nodes: Sequence[Callable[..., Any] | tuple[str, Callable[..., Any]]]) -> StateGraph:
        """Add nodes chained by plain edges, in order."""
        if not nodes:
            raise ValueError("add_sequence needs at least one node")
        previous: str | None = None
        for item in nodes:
            if isinstance(item, tuple):
                name, fn = item
            else:
                name, fn = _name_of(item), item
            self.add_node(name, fn)
            if previous is not None:
                self.add_edge(previous, name)
            previous = name
        return self

    # -- edges --------------------------------------------------------------------
    def add_edge(self, start_key: str | Sequence[str], end_key: str) -> StateGraph:
        """A plain edge `a -> b`; with a list of sources, `b` waits for all of them."""
        if isinstance(start_key, str):
            if start_key == END:
                raise ValueError("END cannot be the start of an edge: edges go from a node to END")
            if end_key == START:
                raise ValueError("START cannot be the end of an edge: edges go from START to a node")
            self.edges.append((start_key, end_key))
            return self
        sources = tuple(start_key)
        if not sources:
            raise ValueError(f"add_edge([], {end_key!r}) needs at least one source")
        if len(sources) == 1:
            return self.add_edge(sources[0], end_key)
        for s in sources:
            if s == START:
                raise ValueError("START cannot be one of several sources of a waiting edge")
            if s == END:
                raise ValueError("END cannot be the start of an edge")
        self.waiting_edges.append((sources, end_key))
        return self

    def add_conditional_edges(
        self,
        source: str,
        path: Callable[..., Any],
        path_map: dict[Hashable, str] | Sequence[str] | None = None,
        then: str | None = None,
    ) -> StateGraph:
        """After `source`, call `path(state)` to pick the next node(s), names, END or Sends."""
        if then is not None:
            raise ValueError("add_conditional_edges(then=...) is not supported; add an edge from each target")
        if not callable(path) and is_runnable(path):
            path = _runnable_router(path)
        if not callable(path):
            raise TypeError(f"the router of `{source}` must be callable (or a LangChain Runnable), "
                            f"got {type(path).__name__}")
        mapping: dict[Hashable, str] | None
        if path_map is None:
            mapping = None
        elif isinstance(path_map, dict):
            mapping = dict(path_map)
        else:
            mapping = {name: name for name in path_map}
        name = getattr(path, "__name__", "condition")
        if name == "<lambda>":
            name = "condition"
        existing = self.branches.setdefault(source, {})
        if name in existing:
            base, i = name, 2
            while f"{base}_{i}" in existing:
                i += 1
            name = f"{base}_{i}"
        existing[name] = Branch(source=source, router=path, path_map=mapping, name=name,
                                input_schema=hinted_input_schema(path, self.state_schema))
        return self

    def set_entry_point(self, key: str) -> StateGraph:
        return self.add_edge(START, key)

    def set_conditional_entry_point(
        self, path: Callable[..., Any], path_map: dict[Hashable, str] | Sequence[str] | None = None
    ) -> StateGraph:
        return self.add_conditional_edges(START, path, path_map)

    def set_finish_point(self, key: str) -> StateGraph:
        return self.add_edge(key, END)

    # -- the state's keys ------------------------------------------------------------
    @property
    def channels(self) -> dict[str, Any]:
        """State key -> its channel (`__root__` for a root state schema)."""
        from ..schema import StateSchema

        return StateSchema(self.state_schema, self.input_schema, self.output_schema).channels

    @property
    def managed(self) -> dict[str, Any]:
        """Managed keys (RemainingSteps, IsLastStep) -> their manager: computed, not stored."""
        from ..schema import StateSchema

        return StateSchema(self.state_schema, self.input_schema, self.output_schema).managed

    @property
    def schemas(self) -> dict[Any, dict[str, Any]]:
        """Each schema of the graph (state, input, output) -> its keys' channels and managed
        values, as LangGraph's `StateGraph.schemas` (langgraph-swarm checks a key with it)."""
        from ..schema import StateSchema

        out: dict[Any, dict[str, Any]] = {}
        for schema in (self.state_schema, self.input_schema, self.output_schema):
            if schema is not None and schema not in out:
                parsed = StateSchema(schema)
                out[schema] = {**parsed.channels, **parsed.managed}
        return out

    # -- compile ------------------------------------------------------------------
    def validate(self, interrupt: Sequence[str] = ()) -> None:
        from .validate import validate_graph

        validate_graph(self, interrupt)

    def compile(
        self,
        checkpointer: Any = None,
        *,
        interrupt_before: Sequence[str] | Literal["*"] | None = None,
        interrupt_after: Sequence[str] | Literal["*"] | None = None,
        debug: bool = False,
        name: str | None = None,
        store: Any = None,
        cache: Any = None,
        transformers: Any = None,
    ) -> Any:
        """Check the graph (every problem reported at once) and make it runnable."""
        from .compiled import CompiledStateGraph

        before = _breakpoints(interrupt_before, self.nodes)
        after = _breakpoints(interrupt_after, self.nodes)
        from ..streaming.mux import normalize_factories

        stream_transformers = tuple(normalize_factories(transformers))  # the v3 event stream's (stream_events)
        self.validate(tuple(before) + tuple(after))
        graph = CompiledStateGraph(
            self,
            checkpointer=checkpointer,
            interrupt_before=before,
            interrupt_after=after,
            name=name or "LangGraph",
            store=store,
            cache=cache,
        )
        graph.stream_transformers = stream_transformers
        graph.every_node_breaks = frozenset(
            when for when, spec in (("before", interrupt_before), ("after", interrupt_after)) if spec == "*")
        return graph


def _retry_policies(node: str, policy: Any) -> tuple[Any, ...] | None:
    """One RetryPolicy or a sequence of them, as a tuple (None: run once)."""
    if policy is None:
        return None
    policies = tuple(policy) if isinstance(policy, (list, tuple)) else (policy,)
    for p in policies:
        if not (hasattr(p, "should_retry") and hasattr(p, "max_attempts")):
            raise TypeError(f"node `{node}`: retry_policy must be a RetryPolicy or a list of them, got {p!r:.60}")
    return policies or None


def _breakpoints(spec: Sequence[str] | str | None, nodes: dict[str, NodeSpec]) -> tuple[str, ...]:
    if not spec:
        return ()
    if spec == "*":
        return tuple(nodes)
    if isinstance(spec, str):
        return (spec,)
    return tuple(spec)


def _runnable_router(runnable: Any) -> Callable[[Any, Any], Any]:
    """A LangChain Runnable used as a router (`prompt | model | parser`): called with the
    state and the run's config, named as the Runnable is (else "condition")."""
    def route(state: Any, config: Any) -> Any:
        return runnable.invoke(state, config)

    route.__name__ = getattr(runnable, "name", None) or "condition"
    return route
