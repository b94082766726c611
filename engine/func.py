"""The functional API: `@entrypoint` and `@task`, on the same `Run` as every graph.

An entrypoint compiles to a one-node graph: the input checkpoint (step -1) plans the
function's node with the input as its argument, and its return value is the state (the
`__end__` channel; `__previous__` keeps what the next run on the thread gets as
`previous`). A `@task` called inside it is a child task of that node: it runs when
called, its result is saved at once as a pending write of the node's checkpoint (channel
`__return__`, under an id made from the call's position), and a resumed entrypoint, which
runs again from the top, gets saved results back instead of running the task again, as
LangGraph saves them. Each task call is a TaskStarted/TaskFinished event, so the studio
and the `updates` stream show it.
"""
from __future__ import annotations

import asyncio
import contextvars
import functools
import hashlib
import inspect
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Generic, TypeVar

from .checkpoint.base import PendingWrite
from .constants import START
from .errors import GraphInterrupt
from .graph.builder import StateGraph
from .graph.compiled import CompiledStateGraph
from .jsonschema import type_jsonschema
from .policies import CachePolicy, TimeoutPolicy
from .runtime.timeouts import run_timed
from .runtime.context import TaskContext, current_task
from .runtime.events import TaskFailed, TaskFinished, TaskStarted
from .task_future import TaskFuture
from .types import RetryPolicy, RunnableConfig, StateSnapshot
from .warnings import renamed

__all__ = ["entrypoint", "task", "TaskFuture", "EntrypointGraph", "CachePolicy"]

T = TypeVar("T")
S = TypeVar("S")
RETURN = "__return__"
USED = "__interrupts_used__"
"""Beside a saved result: how many interrupt() answers the task call consumed, so a
resumed entrypoint that skips the call still hands the next answer to the next interrupt."""
END_KEY = "__end__"
PREVIOUS_KEY = "__previous__"


class _Scope:
    """The running entrypoint's bookkeeping for its task calls."""

    def __init__(self, graph: EntrypointGraph, ctx: TaskContext) -> None:
        self.graph = graph
        self.ctx = ctx
        self.run = ctx.run
        self.lock = threading.Lock()
        self.counts: dict[str, int] = {}
        self.saved: dict[str, Any] = {}
        self.used: dict[str, int] = {}
        run = self.run
        if run is not None and run.saver is not None and run.checkpoint is not None:
            for w in run.saver.pending_writes(run.store_key, run.checkpoint.id):
                if w.channel == RETURN:
                    self.saved[w.task_id] = w.value
                elif w.channel == USED:
                    self.used[w.task_id] = int(w.value)

    def call_id(self, parent: str, name: str) -> str:
        with self.lock:
            index = self.counts.get(parent, 0)
            self.counts[parent] = index + 1
        return f"{parent}/{name}:{index}"

    def emit(self, event: Any) -> None:
        if self.run is not None:
            self.run.emit_threadsafe(event)

    def base(self) -> dict[str, Any]:
        run = self.run
        return {"run_id": run.run_id, "thread_id": run.thread_id, "step": run.step + 1, "namespace": run.namespace}

    def save(self, call_id: str, name: str, value: Any, used: int) -> None:
        if self.run is not None:
            writes = [PendingWrite(task_id=call_id, task_name=name, channel=RETURN, value=value)]
            if used:
                writes.append(PendingWrite(task_id=call_id, task_name=name, channel=USED, value=used))
            self.run.put_child_writes(writes)


_scope: contextvars.ContextVar[_Scope | None] = contextvars.ContextVar("retrograph_entrypoint", default=None)
_call_path: contextvars.ContextVar[str] = contextvars.ContextVar("retrograph_task_path", default="")


class _TaskTrace:
    """A task call as a child chain run of the callbacks (LangSmith, Langfuse, astream_events),
    under the entrypoint's run; only when the run has callbacks."""

    def __init__(self, config: dict[str, Any], name: str, inputs: Any) -> None:
        from langchain_core.runnables.config import get_callback_manager_for_config, var_child_runnable_config

        self.var = var_child_runnable_config
        outer = self.var.get() or config
        self.run = get_callback_manager_for_config(outer).on_chain_start(None, inputs, name=name)
        self.token = self.var.set({**outer, "callbacks": self.run.get_child()})

    @classmethod
    def open(cls, scope: _Scope, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _TaskTrace | None:
        if scope.run is None or scope.run.tracer is None:
            return None
        inputs = args[0] if len(args) == 1 and not kwargs else {"args": list(args), "kwargs": kwargs}
        return cls(scope.ctx.config, name, inputs)

    @staticmethod
    def close(trace: _TaskTrace | None, value: Any, error: BaseException | None) -> None:
        if trace is None:
            return
        try:
            trace.var.reset(trace.token)
        except ValueError:  # reset from another context (an async task's): nothing to restore
            pass
        if error is not None:
            trace.run.on_chain_error(error)
            return
        for handler in trace.run.handlers:  # astream_events shows a task's result as on_chain_stream too
            tap = getattr(handler, "tap_output_iter", None)
            if tap is not None:
                for _ in tap(trace.run.run_id, iter([value])):
                    pass
        trace.run.on_chain_end(value)


class _Task:
    """A function decorated with `@task`: calling it runs it as a child task."""

    def __init__(self, fn: Callable[..., Any], name: str, retry: Sequence[RetryPolicy],
                 cache_policy: CachePolicy | None, timeout: TimeoutPolicy | None = None) -> None:
        self.fn = fn
        self.name = name
        self.retry = tuple(retry)
        self.cache_policy = cache_policy
        self.is_async = inspect.iscoroutinefunction(fn)
        self.timeout = timeout
        """Limits each attempt of an async task (see TimeoutPolicy)."""
        if timeout is not None and not self.is_async:
            raise ValueError(_sync_timeout("task", name))
        functools.update_wrapper(self, fn)

    def __repr__(self) -> str:
        return f"<task {self.name}>"

    def clear_cache(self, cache: Any) -> None:
        """Forget this task's cached results in `cache` (the entrypoint's `cache=`)."""
        cache.clear([(self.name,)])

    async def aclear_cache(self, cache: Any) -> None:
        await cache.aclear([(self.name,)])

    def __call__(self, *args: Any, **kwargs: Any) -> TaskFuture[Any]:
        scope = _scope.get()
        if scope is None:
            if current_task.get() is None:
                raise RuntimeError(
                    f"task `{self.name}` was called outside a run: call it inside an @entrypoint function "
                    "(or a graph node)"
                )
            return self._plain(args, kwargs)  # inside a StateGraph node: run it, nothing to save
        parent = _call_path.get() or scope.ctx.task_id
        call_id = scope.call_id(parent, self.name)
        if call_id in scope.saved:
            scope.ctx.root().calls += scope.used.get(call_id, 0)
            return TaskFuture(value=scope.saved[call_id])
        cached = scope.graph.cached(self, args, kwargs)
        if cached is not _NOTHING:
            scope.save(call_id, self.name, cached, 0)
            return TaskFuture(value=cached)
        scope.emit(TaskStarted(**scope.base(), task_id=call_id, name=self.name, trigger="call",
                               input=(args, kwargs)))
        if self.is_async:
            if _loop_here():
                return TaskFuture(pending=asyncio.ensure_future(self._arun(scope, call_id, args, kwargs)))
            try:  # an async task called from a sync entrypoint (a worker thread): run it to the end here
                return TaskFuture(value=asyncio.run(self._arun(scope, call_id, args, kwargs)))
            except Exception as exc:
                return TaskFuture(error=exc)
        started = time.perf_counter()
        token = _call_path.set(call_id)
        before = scope.ctx.root().calls
        trace = _TaskTrace.open(scope, self.name, args, kwargs)
        try:
            value = self._with_retry(args, kwargs)
        except GraphInterrupt as exc:
            _TaskTrace.close(trace, None, exc)
            return TaskFuture(error=exc)
        except Exception as exc:
            _TaskTrace.close(trace, None, exc)
            self._failed(scope, call_id, exc, started)
            return TaskFuture(error=exc)
        finally:
            _call_path.reset(token)
        _TaskTrace.close(trace, value, None)
        self._finished(scope, call_id, value, started, args, kwargs, scope.ctx.root().calls - before)
        return TaskFuture(value=value)

    async def _arun(self, scope: _Scope, call_id: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        started = time.perf_counter()
        _call_path.set(call_id)  # this asyncio task's own context
        before = scope.ctx.root().calls  # interrupt() answers it takes (awaited one at a time: exact)
        trace = _TaskTrace.open(scope, self.name, args, kwargs)
        attempt = 1
        while True:
            try:
                value = await self._attempt(args, kwargs)
                break
            except GraphInterrupt as exc:
                _TaskTrace.close(trace, None, exc)
                raise
            except Exception as exc:
                policy = self._policy_for(exc, attempt)
                if policy is None:
                    _TaskTrace.close(trace, None, exc)
                    self._failed(scope, call_id, exc, started)
                    raise
                await asyncio.sleep(policy.delay(attempt))
                attempt += 1
        _TaskTrace.close(trace, value, None)
        self._finished(scope, call_id, value, started, args, kwargs, scope.ctx.root().calls - before, later=True)
        return value

    def _attempt(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """One attempt of an async task: its coroutine, under its timeout when it has one."""
        if self.timeout is None:
            return self.fn(*args, **kwargs)
        return run_timed(self.fn(*args, **kwargs), self.timeout, self.name, _Progress())

    def _with_retry(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        attempt = 1
        while True:
            try:
                return self.fn(*args, **kwargs)
            except GraphInterrupt:
                raise
            except Exception as exc:
                policy = self._policy_for(exc, attempt)
                if policy is None:
                    raise
                time.sleep(policy.delay(attempt))
                attempt += 1

    def _policy_for(self, exc: Exception, attempt: int) -> RetryPolicy | None:
        for policy in self.retry:
            if policy.should_retry(exc):
                return policy if attempt < policy.max_attempts else None
        return None

    def _plain(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> TaskFuture[Any]:
        if self.is_async:
            if _loop_here():
                return TaskFuture(pending=asyncio.ensure_future(self._attempt(args, kwargs)))
            try:
                return TaskFuture(value=asyncio.run(self._attempt(args, kwargs)))
            except Exception as exc:
                return TaskFuture(error=exc)
        try:
            return TaskFuture(value=self._with_retry(args, kwargs))
        except Exception as exc:
            return TaskFuture(error=exc)

    def _finished(self, scope: _Scope, call_id: str, value: Any, started: float,
                  args: tuple[Any, ...], kwargs: dict[str, Any], used: int, later: bool = False) -> None:
        """Save a call's result; its report waits a loop turn when `later` (an async task's: so
        its caller, woken by the result, runs first, and the update follows, as in LangGraph)."""
        scope.save(call_id, self.name, value, used)
        scope.graph.remember(self, args, kwargs, value)
        event = TaskFinished(**scope.base(), task_id=call_id, name=self.name, trigger="call", update=value,
                             writes=((RETURN, value),), routes=(), sends=(), dropped_keys=(),
                             duration_s=time.perf_counter() - started)
        if later:
            asyncio.get_running_loop().call_soon(scope.emit, event)
        else:
            scope.emit(event)

    def _failed(self, scope: _Scope, call_id: str, exc: BaseException, started: float) -> None:
        import traceback

        scope.emit(TaskFailed(**scope.base(), task_id=call_id, name=self.name, error=exc,
                              traceback="".join(traceback.format_exception(exc)),
                              duration_s=time.perf_counter() - started))


_NOTHING: Any = object()


class _Progress:
    """When a timed task call last made progress (its own idle clock, apart from its caller's)."""

    __slots__ = ("last_progress",)

    def __init__(self) -> None:
        self.last_progress = 0.0


def _sync_timeout(kind: str, name: str) -> str:
    return (f"{kind} `{name}`: timeouts are only supported for async nodes and tasks (a sync function "
            "cannot be stopped safely while it runs); make it `async def` or drop the timeout")


def _loop_here() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _name_of(fn: Any) -> str:
    """A task's default name: the function's, also through functools.partial."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return getattr(fn, "__name__", None) or type(fn).__name__


def task(
    __func: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    retry_policy: RetryPolicy | Sequence[RetryPolicy] | None = None,
    cache_policy: CachePolicy | None = None,
    timeout: float | timedelta | TimeoutPolicy | None = None,
    **unknown: Any,
) -> Any:
    """`@task` or `@task(name=..., retry_policy=..., cache_policy=..., timeout=...)`: a unit
    of work an entrypoint calls; calling it returns a future (`.result()`, or `await` when
    async). A `timeout` (async tasks only) limits each attempt: NodeTimeoutError past it."""
    if "retry" in unknown:
        renamed("retry", "retry_policy")
        retry_policy = unknown.pop("retry") if retry_policy is None else retry_policy
        unknown.pop("retry", None)
    if unknown:
        raise TypeError(f"task() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
    policy = TimeoutPolicy.coerce(timeout)  # a bad timeout fails here, before any function
    retry = _retry_tuple("task", retry_policy)

    def wrap(fn: Callable[..., Any]) -> _Task:
        if not callable(fn):
            raise TypeError(f"@task decorates a function, got {type(fn).__name__}")
        return _Task(fn, name or _name_of(fn), retry, cache_policy, policy)

    return wrap(__func) if __func is not None else wrap


def _entry_schema() -> dict[str, Any]:
    """The two channels of an entrypoint (a mapping schema: the names start with `__`)."""
    return {END_KEY: Any, PREVIOUS_KEY: Any}


class EntrypointGraph(CompiledStateGraph):
    """A compiled `@entrypoint`: one node named after the function, runnable, streamable,
    resumable and drawable like any compiled graph. Its state is the function's return value."""

    input_node: str

    def __init__(self, fn: Callable[..., Any], *, name: str, checkpointer: Any = None, store: Any = None,
                 cache: Any = None, retry: Sequence[RetryPolicy] = (), cache_policy: Any = None,
                 builder: StateGraph | None = None, context_schema: Any = None,
                 timeout: TimeoutPolicy | None = None) -> None:
        self.fn = fn
        self.store = store
        self.cache = cache
        self.input_node = name
        if builder is None:
            builder = StateGraph(_entry_schema(), context_schema=context_schema)
            builder.add_node(name, self._node_for(fn), retry_policy=retry[0] if retry else None, timeout=timeout)
            builder.add_edge(START, name)
        # as LangGraph names an entrypoint's graph (its callback run, for one); the node keeps the function's
        super().__init__(builder, checkpointer=checkpointer, name="LangGraph", store=store, cache=cache)
        schema = self.schema
        schema.output = lambda values: values.get(END_KEY)  # type: ignore[method-assign]
        schema.unwrap_update = lambda update: update.get(END_KEY) if isinstance(update, Mapping) else update

    def with_checkpointer(self, checkpointer: Any) -> EntrypointGraph:
        graph = EntrypointGraph(self.fn, name=self.input_node, checkpointer=checkpointer, store=self.store,
                                cache=self.cache, builder=self.builder)
        graph.bound_config = self.bound_config
        return graph

    # -- the node --------------------------------------------------------------------
    def _node_for(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        params = inspect.signature(fn).parameters
        wants = {k for k in ("previous", "config", "writer", "store", "runtime") if k in params}
        graph = self

        def extras(config: dict[str, Any], ctx: TaskContext) -> dict[str, Any]:
            out: dict[str, Any] = {}
            previous = ctx.run.values.get(PREVIOUS_KEY) if ctx.run is not None else None
            if "previous" in wants:
                out["previous"] = previous
            if "config" in wants:
                out["config"] = config
            if "writer" in wants:
                out["writer"] = ctx.writer
            if "store" in wants:
                out["store"] = getattr(ctx.run, "store", None) or graph.store
            if "runtime" in wants:
                from .runtime.injected import runtime_for

                ctx.previous = previous
                out["runtime"] = runtime_for(ctx)
            return out

        def finish(value: Any) -> dict[str, Any]:
            if isinstance(value, entrypoint.final):
                return {END_KEY: value.value, PREVIOUS_KEY: value.save}
            return {END_KEY: value, PREVIOUS_KEY: value}

        if inspect.iscoroutinefunction(fn):
            async def anode(input: Any, config: RunnableConfig) -> dict[str, Any]:
                ctx = current_task.get()
                assert ctx is not None
                token = _scope.set(_Scope(graph, ctx))
                try:
                    return finish(await fn(input, **extras(config, ctx)))
                finally:
                    _scope.reset(token)

            anode.__name__ = getattr(fn, "__name__", "entrypoint")
            return anode

        def node(input: Any, config: RunnableConfig) -> dict[str, Any]:
            ctx = current_task.get()
            assert ctx is not None
            token = _scope.set(_Scope(graph, ctx))
            try:
                return finish(fn(input, **extras(config, ctx)))
            finally:
                _scope.reset(token)

        node.__name__ = getattr(fn, "__name__", "entrypoint")
        return node

    # -- the task cache (the graph's `cache=`, a BaseCache; namespace: the task's name) --------
    @staticmethod
    def _cache_key(t: _Task, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        from .runtime.caching import canonical

        key_func = getattr(t.cache_policy, "key_func", None)
        try:
            raw = key_func(*args, **kwargs) if key_func is not None else canonical((args, kwargs))
        except Exception:
            return None
        data = raw if isinstance(raw, bytes) else str(raw).encode()
        return (t.name,), hashlib.blake2b(data, digest_size=16).hexdigest()

    def cached(self, t: _Task, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if t.cache_policy is None or self.cache is None:
            return _NOTHING
        key = self._cache_key(t, args, kwargs)
        found = self.cache.get([key]) if key is not None else {}
        return found[key] if key in found else _NOTHING

    def remember(self, t: _Task, args: tuple[Any, ...], kwargs: dict[str, Any], value: Any) -> None:
        if t.cache_policy is None or self.cache is None:
            return
        key = self._cache_key(t, args, kwargs)
        if key is not None:
            self.cache.set({key: (value, getattr(t.cache_policy, "ttl", None))})

    # -- JSON schemas (pydantic), as LangGraph derives them from the function's hints ----------
    def _hints(self) -> tuple[Any, Any]:
        import typing

        try:
            hints = typing.get_type_hints(self.fn)
        except Exception:  # one hint does not resolve (a local class): resolve the others one by one
            hints = {}
            for key, raw in (getattr(self.fn, "__annotations__", {}) or {}).items():
                try:
                    hints[key] = eval(raw, getattr(self.fn, "__globals__", {})) if isinstance(raw, str) else raw
                except Exception:
                    hints[key] = Any
        params = [p for p in inspect.signature(self.fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        given = hints.get(params[0].name, Any) if params else Any
        returned = hints.get("return", Any)
        if returned is entrypoint.final:
            returned = Any
        elif typing.get_origin(returned) is entrypoint.final:
            returned = typing.get_args(returned)[0]
        return given, returned

    @staticmethod
    def _jsonschema(tp: Any, title: str | None) -> dict[str, Any]:
        return type_jsonschema(tp, title)

    def get_input_jsonschema(self, config: Any = None) -> dict[str, Any]:
        return self._jsonschema(self._hints()[0], "LangGraphInput")

    def get_output_jsonschema(self, config: Any = None) -> dict[str, Any]:
        return self._jsonschema(self._hints()[1], "LangGraphOutput")

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        schema = self.builder.context_schema
        return None if schema is None else self._jsonschema(schema, None)

    # -- results as LangGraph shows them ----------------------------------------------------
    async def ainvoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """As a graph's: the return value (with `__interrupt__` merged into a dict value, or
        alone). The function runs on a worker thread, so an async task it calls can run."""
        kwargs["_inline_sync"] = False
        return await super().ainvoke(input, config, **kwargs)

    def update_state(self, config: Mapping[str, Any], values: Any, as_node: str | None = None,
                     task_id: str | None = None) -> dict[str, Any]:
        """Set what the thread's next run gets as `previous` (and its current value)."""
        if as_node in ("__copy__", "__input__"):
            return super().update_state(config, values, as_node, task_id)
        return super().update_state(config, {END_KEY: values, PREVIOUS_KEY: values}, as_node or self.input_node,
                                    task_id)

    def snapshot(self, ckpt: Any, pending: Sequence[PendingWrite] = (), child: Any = None,
                 **kwargs: Any) -> StateSnapshot:
        snap = super().snapshot(ckpt, pending, child, **kwargs)
        return snap._replace(values=snap.values.get(END_KEY) if isinstance(snap.values, Mapping) else snap.values)

    def __repr__(self) -> str:
        return f"<entrypoint {self.input_node!r}>"


def _retry_tuple(where: str, policy: Any) -> tuple[RetryPolicy, ...]:
    """`retry_policy=`: one RetryPolicy or a sequence of them, as a tuple (empty: run once)."""
    if policy is None:
        return ()
    policies = (policy,) if isinstance(policy, RetryPolicy) else \
        tuple(policy) if isinstance(policy, (list, tuple)) else (policy,)
    for p in policies:
        if not isinstance(p, RetryPolicy):
            raise TypeError(f"{where}(retry_policy=...) takes a RetryPolicy or a list of them, got {p!r:.60}")
    return policies


class entrypoint:  # noqa: N801 - LangGraph's name
    """`@entrypoint(checkpointer=...)` makes a function a runnable graph of one node.

    The function takes the input as its first argument and may ask for `previous` (what
    the last run on the thread returned or saved), `config`, `writer` and `store`."""

    @dataclass(frozen=True)
    class final(Generic[T, S]):  # noqa: N801 - LangGraph's name
        """Return `entrypoint.final(value=..., save=...)` to return `value` but keep `save`
        as the next run's `previous`."""

        value: Any
        save: Any

    def __init__(self, checkpointer: Any = None, store: Any = None, cache: Any = None,
                 context_schema: Any = None, cache_policy: Any = None, retry_policy: Any = None,
                 timeout: float | timedelta | TimeoutPolicy | None = None, **unknown: Any) -> None:
        if "retry" in unknown:
            renamed("retry", "retry_policy")
            retry_policy = unknown.pop("retry") if retry_policy is None else retry_policy
            unknown.pop("retry", None)
        if "config_schema" in unknown:
            renamed("config_schema", "context_schema", since="1.0")
            config_schema = unknown.pop("config_schema")
            context_schema = config_schema if context_schema is None else context_schema
        if unknown:
            raise TypeError(f"entrypoint() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
        self.timeout = TimeoutPolicy.coerce(timeout)
        """Limits each attempt of an async entrypoint's function (NodeTimeoutError past it)."""
        self.checkpointer = checkpointer
        self.store = store
        self.cache = cache
        self.context_schema = context_schema
        self.retry = _retry_tuple("entrypoint", retry_policy)

    def __call__(self, fn: Callable[..., Any]) -> EntrypointGraph:
        if not callable(fn):
            raise TypeError(f"@entrypoint decorates a function, got {type(fn).__name__}")
        if inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn):
            raise NotImplementedError(
                f"the entrypoint `{getattr(fn, '__name__', fn)}` is a generator: return a value instead "
                "(stream progress with the `writer` argument)"
            )
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if not params:
            raise ValueError(
                f"the entrypoint `{getattr(fn, '__name__', fn)}` must take one positional argument: its input"
            )
        if self.timeout is not None and not inspect.iscoroutinefunction(fn):
            raise ValueError(_sync_timeout("entrypoint", getattr(fn, "__name__", "entrypoint")))
        return EntrypointGraph(fn, name=getattr(fn, "__name__", "entrypoint"), checkpointer=self.checkpointer,
                               store=self.store, cache=self.cache, retry=self.retry,
                               context_schema=self.context_schema, timeout=self.timeout)
