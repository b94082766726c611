"""Running one node: build its input, call it, and turn what it returned into writes
and routes. Nothing here touches the shared state; the Run applies writes at commit."""
from __future__ import annotations

import asyncio
import dataclasses
import inspect
from types import MappingProxyType
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..channels import MISSING, Applied, Channel
from ..channels.reducer import reducer_error
from ..constants import END, START
from ..errors import InvalidRouteError, InvalidUpdateError
from ..node_input import NodeInput, hinted_schema
from ..specs import Branch, accepts_config, injected_params, is_runnable, is_subgraph
from ..types import Command, Interrupt, Send
from .context import current_task
from .injected import runtime_for

if TYPE_CHECKING:
    from ..checkpoint.base import PlannedTask
    from .context import TaskContext

__all__ = ["TaskResult", "NodeRunner", "call_router", "normalize_update", "as_items", "apply_own_writes",
           "await_router", "resolve_targets"]


class TaskResult:
    """What one task produced; kept aside until the superstep commits.

    Built once per task on the per-superstep path: the immutable fields are class-level
    defaults, so making one sets only the task and its fresh lists."""

    task: PlannedTask
    writes: list[tuple[str, Any]]
    routes: list[tuple[str, str]]
    """(target node, reason) pairs: reason is "edge:a", "branch:a" or "command:a"."""
    sends: list[Send]
    update: Any = None
    dropped: tuple[str, ...] = ()
    error: BaseException | None = None
    traceback: str = ""
    interrupts: tuple[Interrupt, ...] = ()
    resume: Sequence[Any] = ()
    """The resume values its interrupt() calls took (the context's list, once it ran)."""
    applied: Mapping[str, Applied] = MappingProxyType({})
    """Keys as the router saw them (this task's writes applied), reused by the commit
    (replaced, never changed in place: the default is shared)."""
    folded: dict[str, Any] | None = None
    """The state the router saw (the snapshot `folded_on` with `applied`), a dict nobody
    else holds: a commit of this task alone makes it the new state, nothing copied again."""
    folded_on: Any = None
    duration_s: float = 0.0
    replayed: bool = False
    cached: bool = False
    """The node was not called: its output came from the graph's cache."""
    recorded: bool = False
    """The node was not called: a recorded replay answered it (engine/replay)."""
    handled: bool = False
    """The node failed and its error handler runs instead (the run goes on)."""
    paused: bool = False
    """The task's subgraph stopped at one of its own breakpoints: the parent pauses too."""
    command_sends: int = 0
    """How many of `sends` (the first ones) came from the node's own Command; the rest are
    its routers' (a recording keeps only the Command's: routers are graph code)."""

    def __init__(self, task: PlannedTask, writes: list[tuple[str, Any]] | None = None, *,
                 error: BaseException | None = None, replayed: bool = False,
                 interrupts: tuple[Interrupt, ...] = ()) -> None:
        self.task = task
        self.writes = [] if writes is None else writes
        self.routes, self.sends = [], []
        if error is not None:
            self.error = error
        if replayed:
            self.replayed = True
        if interrupts:
            self.interrupts = interrupts

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"TaskResult({shown})"

    @property
    def ok(self) -> bool:
        return self.error is None and not self.interrupts and not self.paused


def _is_model_instance(value: Any) -> bool:
    return (dataclasses.is_dataclass(value) and not isinstance(value, type)) or (
        not isinstance(value, type) and hasattr(type(value), "model_fields") and hasattr(value, "model_dump")
    )


def as_items(update: Any) -> list[tuple[str, Any]] | None:
    """A node's update as (key, value) pairs (from a dict, a state instance or a list of
    pairs; no update, none); None when it is none of these."""
    if update is None:
        return []
    if isinstance(update, Mapping):
        return list(update.items())
    if _is_model_instance(update):
        if hasattr(update, "model_fields_set"):  # as LangGraph: fields set, or not None where the default is
            kept, fields = update.model_fields_set, type(update).model_fields
            return [(k, v) for k, f in fields.items()
                    if (v := getattr(update, k, None)) is not None or f.default is not None or k in kept]
        return [(f.name, getattr(update, f.name)) for f in dataclasses.fields(update)]
    if isinstance(update, (list, tuple)) and all(isinstance(x, tuple) and len(x) == 2 for x in update):
        return [(str(k), v) for k, v in update]
    return None


def normalize_update(
    node: str, result: Any, channels: Mapping[str, Channel]
) -> tuple[list[tuple[str, Any]], tuple[str, ...], Any, Command[Any] | None]:
    """(writes, dropped keys, update as streamed, the Command if one was returned)."""
    if type(result) is dict and result.keys() <= channels.keys():  # the common case, first
        return list(result.items()), (), result, None
    if isinstance(result, (list, tuple)) and result and any(isinstance(r, Command) for r in result):
        return _normalize_many(node, result, channels)
    command = result if isinstance(result, Command) else None
    update = command.update if command is not None else result
    items = as_items(update)
    if items is None:
        shown = repr(update)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        raise InvalidUpdateError(
            f"Expected dict, got {shown}: node `{node}` returned a {type(update).__name__}. "
            "A node must return a dict of state updates (e.g. {'key': value}), a Command, or None."
        )
    writes: list[tuple[str, Any]] = []
    dropped: list[str] = []
    for key, value in items:
        if key in channels:
            writes.append((key, value))
        else:
            dropped.append(key)
    streamed = update if (update is None or isinstance(update, dict)) else dict(items)
    return writes, tuple(dropped), streamed, command


def _normalize_many(
    node: str, results: Sequence[Any], channels: Mapping[str, Channel]
) -> tuple[list[tuple[str, Any]], tuple[str, ...], Any, Command[Any] | None]:
    """A node that returned several updates and Commands (`[Command(...), {...}]`): all
    their writes, in order, and one Command with all their gotos. The updates stream
    shows the list of updates, as LangGraph does."""
    writes: list[tuple[str, Any]] = []
    dropped: list[str] = []
    shown: list[Any] = []
    gotos: list[Any] = []
    for item in results:
        if isinstance(item, Command) and item.graph == Command.PARENT:
            return normalize_update(node, item, channels)  # for the parent graph: handled as one
        w, d, u, c = normalize_update(node, item, channels)
        writes.extend(w)
        dropped.extend(d)
        if u is not None:
            shown.append(u)
        if c is not None:
            gotos.extend(c.goto_targets())
    return writes, tuple(dropped), shown or None, Command(goto=gotos)


def call_router(branch: Branch, state: Any, config: dict[str, Any], known: Sequence[str] | frozenset[str],
                wants_config: bool) -> tuple[list[str], list[Send]]:
    """Run a conditional edge's router and resolve what it returned into nodes and Sends."""
    raw = branch.router(state, config) if wants_config else branch.router(state)
    if type(raw) is not str and inspect.isawaitable(raw):
        raw = await_router(branch, raw)
    return resolve_targets(branch, raw, known)


def _is_async_callable(fn: Any) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


def await_router(branch: Branch, awaitable: Any) -> Any:
    """An async router's answer. The Run concludes such a task on a worker thread, where
    no event loop runs, so the coroutine gets a loop of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        async def wait() -> Any:
            return await awaitable

        return asyncio.run(wait())
    if inspect.iscoroutine(awaitable):
        awaitable.close()
    raise TypeError(
        f"the router `{branch.name}` after `{branch.source}` is async and was called inside a running event "
        "loop where it cannot be awaited; make it a plain function"
    )


def resolve_targets(branch: Branch, raw: Any, known: Sequence[str] | frozenset[str]) -> tuple[list[str], list[Send]]:
    if type(raw) is str:  # the common answer: one node name (no list, no error text built)
        path_map = branch.path_map
        target = raw if path_map is None else path_map.get(raw)
        if type(target) is str and (target == END or target in known):
            return [target], []
    values = list(raw) if isinstance(raw, (list, tuple)) else [raw]
    names: list[str] = []
    sends: list[Send] = []
    where = _RouterName(branch)
    for value in values:
        if isinstance(value, Send):
            sends.append(value)
            continue
        if branch.path_map is not None:
            if not isinstance(value, Hashable) or value not in branch.path_map:
                keys = ", ".join(repr(k) for k in branch.path_map)
                raise KeyError(
                    f"{where} returned {value!r}, which is not in its path_map (keys: {keys}). "
                    "Return one of the keys, or add this value to the path_map."
                )
            value = branch.path_map[value]
        if value is None:
            raise InvalidRouteError(
                f"{where} returned None. Return a node name, END, a list of them, or Send objects."
            )
        if not isinstance(value, str):
            raise InvalidRouteError(
                f"{where} returned {value!r} ({type(value).__name__}). "
                "Return a node name, END, a list of them, or Send objects."
            )
        if value == END:
            names.append(END)  # reported as a route (drawn as taken); it triggers nothing
            continue
        if value not in known:
            raise InvalidRouteError(
                f"{where} returned {value!r}, which is not a node of this graph "
                f"(nodes: {', '.join(sorted(known))}). Return one of them or END."
            )
        names.append(value)
    return names, sends


class _RouterName:
    """`the router `r` after `a``, formatted only when an error message needs it."""

    __slots__ = ("branch",)

    def __init__(self, branch: Branch) -> None:
        self.branch = branch

    def __format__(self, spec: str) -> str:
        return f"the router `{self.branch.name}` after `{self.branch.source}`"


class NodeRunner:
    """A node prepared for running: its call convention and its outgoing edges."""

    __slots__ = (
        "name", "fn", "is_async", "is_subgraph", "is_runnable", "wants_config", "wants_writer",
        "edges", "branches", "joins", "known", "retry", "injected", "async_router", "cache_policy", "timeout",
        "input_view", "error_handler", "_handles_errors", "dressed", "plain_sync", "bare_call", "config_kw",
        "quick", "inline", "edge_routes", "branch_why", "plain_step",
    )

    def __init__(self, name: str, fn: Any, edges: Sequence[str], branches: Sequence[Branch],
                 joins: Sequence[str], retry: Any = None, cache_policy: Any = None, timeout: Any = None, input_view: Any = None,
                 error_handler: str | None = None) -> None:
        self.name = name
        self.quick = False
        """A sync node seen to be quick: the async API runs it on the loop (execute.call_node)."""
        self.error_handler = error_handler
        """The name of the runner that handles this node's errors, or None."""
        self._handles_errors = False
        self.input_view = input_view
        """The node's own input schema (a NodeInput), or None: it gets the whole state."""
        self.retry = retry
        self.cache_policy = cache_policy
        self.timeout = timeout
        self.fn = fn
        self.is_subgraph = is_subgraph(fn)
        self.is_runnable = is_runnable(fn)
        # a Runnable runs through its own ainvoke (which puts sync work on a thread itself)
        self.is_async = self.is_runnable or (not self.is_subgraph and _is_async_node(fn))
        if self.is_subgraph or self.is_runnable or name == START:
            self.wants_config, self.wants_writer = False, False
        else:
            self.wants_config, self.wants_writer = accepts_config(fn)
        self.config_kw = self.wants_config and _config_by_name(fn)
        """The config goes by name to a parameter `config` that is keyword-only (a wrapper
        such as LangSmith's @traceable) or not the second one (`def handler(state, error, config)`)."""
        self.injected: tuple[tuple[str, str], ...] = ()
        """(parameter, what) pairs the run fills in: what is "runtime" or "store"."""
        if not (self.is_subgraph or self.is_runnable or name == START):
            self.injected = injected_params(fn)
        self.edges = tuple(e for e in edges if e != END)
        self.edge_routes = tuple((e, f"edge:{name}") for e in self.edges)
        """The routes its plain edges take, as a TaskResult lists them: made once."""
        self.branch_why = f"branch:{name}"
        """The reason of a route its routers chose."""
        self.branches = tuple(_branch_plan(b) for b in branches)
        """(branch, whether its router takes `config`, the view of its input schema or None,
        whether its state parameter is hinted with a schema class: then it sees only the
        state, else also the keys its node returned beyond it), computed once."""
        self.async_router = any(_is_async_callable(b.router) for b in branches)
        """An `async def` router: its task is concluded off the event loop (see call_router)."""
        self.joins = tuple(joins)
        self._read_call_shape()

    def _read_call_shape(self) -> None:
        """The flags the per-superstep path reads of how the node is called (set once)."""
        self.plain_sync = not (self.is_async or self.is_subgraph or self.retry or self.async_router
                               or self.cache_policy is not None or self.timeout is not None)
        """A sync node with no retry, cache or timeout: a fan-out may batch it on worker threads."""
        self.inline = self.plain_sync and self.name != START
        """Plain sync code that invoke's own loop may call on its thread (execute.runs_inline)."""
        self.bare_call = not (self.is_runnable or self.wants_writer or self.wants_config or self.injected)
        """The node takes the state alone: call_sync calls it with nothing else to gather."""
        self.dressed = bool(self.wants_config or self.is_runnable or self.timeout is not None)
        """Its tasks' contexts get more than the plain one (execute.prepare's `_dress`)."""
        self._read_plain_step()

    def _read_plain_step(self) -> None:
        branches = self.branches
        self.plain_step = (self.inline and self.bare_call and not self.dressed and self.input_view is None
                           and (not branches or len(branches) == 1 and not branches[0][1] and branches[0][2] is None))
        """Plain sync code taking the state alone, with its edges or one router taking the
        state alone: a lone task of it may be made by plain_step.plain_superstep."""

    @property
    def handles_errors(self) -> bool:
        """True for an error handler's runner (its tasks are told the NodeError)."""
        return self._handles_errors

    @handles_errors.setter
    def handles_errors(self, value: bool) -> None:
        self._handles_errors = value
        self.dressed = bool(value or self.wants_config or self.is_runnable or self.timeout is not None)
        self._read_plain_step()

    def call_sync(self, state: Any, ctx: TaskContext) -> Any:
        """Call the node with `state` and what it asks for of its task's context `ctx`
        (its config, its stream writer, injected arguments)."""
        if self.bare_call:
            return self.fn(state)
        config = ctx.config
        if self.is_runnable:
            return self.fn.invoke(state, config)
        kwargs: dict[str, Any] = {}
        if self.wants_writer:
            kwargs["writer"] = ctx.writer
        if self.injected:
            kwargs.update(_injected_kwargs(self.injected))
        if self.wants_config:
            if self.config_kw:
                return self.fn(state, config=config, **kwargs)
            return self.fn(state, config, **kwargs)
        return self.fn(state, **kwargs)

    async def call_async(self, state: Any, ctx: TaskContext) -> Any:
        if self.is_runnable:
            return await self.fn.ainvoke(state, ctx.config)
        result = self.call_sync(state, ctx)
        if inspect.isawaitable(result):
            result = await result
        return result


def _is_async_node(fn: Any) -> bool:
    """An `async def` function, or an object whose `__call__` is one."""
    target = fn
    if not inspect.isfunction(fn) and not inspect.ismethod(fn) and callable(fn):
        target = getattr(fn, "__call__", fn)
    return inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(fn)


def _branch_plan(b: Branch) -> tuple[Branch, bool, NodeInput | None, bool]:
    """(branch, whether its router takes `config`, its input schema's view, whether its
    state parameter is hinted with a schema class): read once, see NodeRunner.branches."""
    return (b, accepts_config(b.router)[0], None if b.input_schema is None else NodeInput(b.input_schema),
            hinted_schema(b.router) is not None)


def _config_by_name(fn: Any) -> bool:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    named = next((p for p in params if p.name == "config"), None)
    if named is None or named.kind == named.POSITIONAL_ONLY:
        return False
    return named.kind == named.KEYWORD_ONLY or params.index(named) != 1


def _injected_kwargs(wanted: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    ctx = current_task.get()
    if ctx is None:
        return {}
    runtime = runtime_for(ctx)
    given = {"runtime": runtime, "store": runtime.store, "error": ctx.node_error}
    return {param: given[what] for param, what in wanted}


def apply_own_writes(values: Mapping[str, Any], writes: Sequence[tuple[str, Any]],
                     channels: Mapping[str, Channel]) -> tuple[dict[str, Any], dict[str, Applied]]:
    """The state a router sees: the step's snapshot plus this task's own writes.

    Also returns what each written key became, so a commit in which this task is the
    key's only writer reuses it instead of running the reducer again."""
    if not writes:
        return dict(values), {}
    if len(writes) == 1:  # the usual update: one key
        key, value = writes[0]
        view = dict(values)
        try:
            one = channels[key].apply(view.get(key, MISSING), [value])
        except Exception as exc:
            named = _restated(exc, key, channels[key])
            if named is exc:
                raise
            raise named from exc
        if one.value is MISSING:
            view.pop(key, None)
        else:
            view[key] = one.value
        return view, {key: one}
    grouped: dict[str, list[Any]] = {}
    for key, value in writes:
        grouped.setdefault(key, []).append(value)
    view = dict(values)
    applied: dict[str, Applied] = {}
    for key, ws in grouped.items():
        try:
            applied[key] = channels[key].apply(view.get(key, MISSING), ws)
        except Exception as exc:
            named = _restated(exc, key, channels[key])
            if named is exc:
                raise
            raise named from exc
        value = applied[key].value
        if value is MISSING:
            view.pop(key, None)
        else:
            view[key] = value
    return view, applied


def _restated(exc: Exception, key: str, channel: Channel) -> Exception:
    """A reducer's own error restated with the key it folded (the error itself when it
    says that already, or the channel has no reducer); raised `from` the original."""
    reducer = getattr(channel, "reducer_name", None)
    if reducer is None or isinstance(exc, InvalidUpdateError):
        return exc
    return reducer_error(exc, key, reducer, None)
