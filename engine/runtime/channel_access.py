"""A running node's direct access to the state's channels, through its config: `read`
(the values the node started from, optionally with its own writes so far) and `send`
(writes applied when the node finishes, before what it returns).

They sit in `config["configurable"]` under LangGraph's keys, for the libraries that use
them from inside a tool (deepagents' file backend reads and writes its `files` that way).
Only a node that is given its config (a Runnable, or a function with a `config`
parameter) gets them, and the run's durability beside them.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..constants import DURABILITY_KEY, READ_KEY, SEND_KEY
from .context import TaskContext
from .task import apply_own_writes

if TYPE_CHECKING:
    from .protocols import RunHandle

__all__ = ["with_channel_access"]


def _read(ctx: TaskContext, channels: Mapping[str, Any], run: RunHandle, select: str | Sequence[str],
          fresh: bool = False) -> Any:
    values: dict[str, Any] = run.values
    if fresh and ctx.pushed:
        values, _ = apply_own_writes(values, list(ctx.pushed), channels)
    if isinstance(select, str):
        return values.get(select)
    return {k: values[k] for k in select if k in values}


def with_channel_access(ctx: TaskContext, run: RunHandle) -> dict[str, Any]:
    """`ctx.config` with `read` and `send` for the task `ctx` of `run`."""
    channels = run.graph.schema.channels

    def send(writes: Sequence[tuple[str, Any]]) -> None:
        unknown = sorted({k for k, _ in writes if k not in channels})
        if unknown:
            raise KeyError(f"node {ctx.name!r} wrote to {', '.join(map(repr, unknown))}, which the state has no "
                           f"key for (keys: {', '.join(sorted(channels))})")
        if ctx.pushed is None:
            ctx.pushed = []
        ctx.pushed.extend((k, v) for k, v in writes)

    # a partial whose second argument is the channels, as LangGraph's: ToolNode reads their names from it
    read = functools.partial(_read, ctx, channels, run)
    config = ctx.config
    return {**config, "configurable": {**(config.get("configurable") or {}), READ_KEY: read, SEND_KEY: send,
                                       DURABILITY_KEY: run.durability or "async"}}
