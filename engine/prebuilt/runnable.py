"""`RunnableCallable`: a sync and an async function as one langchain-core Runnable, as
the agent libraries build their nodes (LangGraph's private name, which they import).

Used as a node, it is given what a plain function node is given, by parameter name:
`config`, `writer`, `store`, `runtime`, `previous` (and `error` for an error handler),
read from the config's runtime slot when a caller seeded one, else from the node the
engine is running. With `trace=True` its call is a chain run of its own in the callbacks;
when no handler would see that run (quiet.py: no callbacks, no debug, no tracing, no
run collector), the function is called in the same config context without making it.
"""
from __future__ import annotations

import asyncio
import inspect
import typing
import warnings
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias

from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import (
    get_async_callback_manager_for_config,
    get_callback_manager_for_config,
    patch_config,
    set_config_context,
)

from ..constants import RUNTIME_KEY
from .config_merge import ensure_config
from .quiet import silent
from ..runtime.context import current_task
from ..runtime.injected import runtime_for

__all__ = ["RunnableCallable", "RunnableLike", "ensure_config", "patch_configurable", "CONF", "DEFAULT_RECURSION_LIMIT"]

CONF = "configurable"
DEFAULT_RECURSION_LIMIT = 25

RunnableLike: TypeAlias = Runnable[Any, Any] | Callable[..., Any] | Callable[..., Awaitable[Any]]
"""What may be given where a node is expected: a Runnable or a (sync or async) function."""

_MISSING = object()

_INJECTABLE: dict[str, tuple[str | None, Any]] = {
    # parameter -> (the runtime's attribute, the default when there is none; _MISSING: required)
    "config": (None, _MISSING),
    "writer": ("stream_writer", lambda _chunk: None),
    "store": ("store", _MISSING),  # required unless typed Optional (then None), as in LangGraph
    "previous": ("previous", _MISSING),
    "runtime": (None, _MISSING),
    "error": (None, None),
}
_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_CONFIG_HINTS = (inspect.Parameter.empty, RunnableConfig, "RunnableConfig", RunnableConfig | None,
                 "RunnableConfig | None", "Optional[RunnableConfig]")


def patch_configurable(config: RunnableConfig | None, patch: dict[str, Any]) -> RunnableConfig:
    """A copy of `config` whose `configurable` has `patch`'s keys set."""
    if config is None:
        return {CONF: dict(patch)}
    return {**config, CONF: {**(config.get(CONF) or {}), **patch}}


def _accepted(fn: Callable[..., Any]) -> dict[str, tuple[str | None, Any]]:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    out: dict[str, tuple[str | None, Any]] = {}
    for name, spec in _INJECTABLE.items():
        p = params.get(name)
        if p is None or p.kind not in _KINDS:
            continue
        if name == "config" and p.annotation not in _CONFIG_HINTS:
            warnings.warn(f"The 'config' parameter should be typed as 'RunnableConfig' or "
                          f"'RunnableConfig | None', not '{p.annotation}'. ", UserWarning, stacklevel=4)
            continue
        if p.default is not inspect.Parameter.empty:
            spec = (spec[0], p.default)
        elif name == "store" and _allows_none(p.annotation):
            spec = (spec[0], None)
        out[name] = spec
    return out


def _allows_none(annotation: Any) -> bool:
    """`Optional[X]`, `X | None` (or their strings): None is an accepted value."""
    if isinstance(annotation, str):
        return "Optional[" in annotation or "None" in annotation
    return type(None) in typing.get_args(annotation)


def _runtime(config: RunnableConfig) -> Any:
    seeded = (config.get(CONF) or {}).get(RUNTIME_KEY)
    if seeded is not None:
        return seeded
    ctx = current_task.get()
    return runtime_for(ctx) if ctx is not None else None


class RunnableCallable(Runnable[Any, Any]):  # type: ignore[misc]  # langchain-core (an optional extra) is checked as Any
    """A Runnable made of `func` (sync) and `afunc` (async; `ainvoke` falls back to `func`)."""

    def __init__(self, func: Callable[..., Any] | None, afunc: Callable[..., Awaitable[Any]] | None = None, *,
                 name: str | None = None, tags: Sequence[str] | None = None, trace: bool = True,
                 recurse: bool = True, explode_args: bool = False, **kwargs: Any) -> None:
        if func is None and afunc is None:
            raise ValueError("At least one of func or afunc must be provided.")
        fn = func or afunc
        if name is None:
            given = getattr(fn, "__name__", None)
            name = given if given != "<lambda>" else None
        self.name = name
        self.func, self.afunc = func, afunc
        self.tags = list(tags) if tags else None
        self.kwargs = kwargs
        self.trace, self.recurse, self.explode_args = trace, recurse, explode_args
        self.func_accepts = _accepted(fn)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"RunnableCallable({self.get_name()})"

    def _call_args(self, input: Any, config: RunnableConfig, kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if self.explode_args:
            args, extra = input
            kwargs = {**self.kwargs, **extra, **kwargs}
        else:
            args, kwargs = (input,), {**self.kwargs, **kwargs}
        runtime = _runtime(config) if self.func_accepts else None
        for kw, (attr, default) in self.func_accepts.items():
            if kw in kwargs:
                continue
            value: Any = _MISSING
            if kw == "config":
                value = config
            elif kw == "error":
                ctx = current_task.get()
                value = getattr(ctx, "node_error", None) if ctx is not None else None
            elif kw == "runtime":
                value = runtime if runtime is not None else _MISSING
            elif runtime is not None and attr is not None:
                value = getattr(runtime, attr, _MISSING)
            if value is _MISSING:
                if default is _MISSING:
                    raise ValueError(f"Missing required config key '{attr or kw}' for '{self.name}': run it inside "
                                     f"a graph that provides it, or pass {kw}=... to invoke()")
                value = default
            kwargs[kw] = value
        return args, kwargs

    def _tagged(self, config: RunnableConfig) -> RunnableConfig:
        if not self.tags:
            return config
        return {**config, "tags": [*(config.get("tags") or []), *self.tags]}

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        if self.func is None:
            raise TypeError(f'No synchronous function provided to "{self.name}".\nEither initialize with a '
                            "synchronous function or invoke via the async API (ainvoke, astream, etc.)")
        config = ensure_config(config)
        args, kw = self._call_args(input, config, kwargs)
        if self.trace and silent(config):  # its chain run would reach no handler: the call alone
            config.pop("run_id", None)
            with set_config_context(patch_config(config, callbacks=config["callbacks"])) as context:
                out = context.run(self.func, *args, **kw)
        elif self.trace:
            manager = get_callback_manager_for_config(self._tagged(config))
            run = manager.on_chain_start(None, input, name=config.get("run_name") or self.get_name(),
                                         run_id=config.pop("run_id", None))
            try:
                child = patch_config(config, callbacks=run.get_child())
                with set_config_context(child) as context:
                    out = context.run(self.func, *args, **kw)
            except BaseException as exc:
                run.on_chain_error(exc)
                raise
            run.on_chain_end(out)
        else:
            out = self.func(*args, **kw)
        if self.recurse and isinstance(out, Runnable):
            return out.invoke(input, config)
        return out

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        if self.afunc is None:
            return self.invoke(input, config, **kwargs)
        config = ensure_config(config)
        args, kw = self._call_args(input, config, kwargs)
        out: Any
        if self.trace and silent(config):  # its chain run would reach no handler: the call alone
            config.pop("run_id", None)
            with set_config_context(patch_config(config, callbacks=config["callbacks"])) as context:
                out = await asyncio.create_task(self.afunc(*args, **kw), context=context)  # type: ignore[arg-type]
        elif self.trace:
            manager = get_async_callback_manager_for_config(self._tagged(config))
            run = await manager.on_chain_start(None, input, name=config.get("run_name") or self.get_name(),
                                               run_id=config.pop("run_id", None))
            try:
                child = patch_config(config, callbacks=run.get_child())
                with set_config_context(child) as context:
                    out = await asyncio.create_task(self.afunc(*args, **kw), context=context)  # type: ignore[arg-type]
            except BaseException as exc:
                await run.on_chain_error(exc)
                raise
            await run.on_chain_end(out)
        else:
            out = await self.afunc(*args, **kw)
        if self.recurse and isinstance(out, Runnable):
            return await out.ainvoke(input, config)
        return out
