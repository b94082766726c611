"""`retrograph run`'s config and context: from --config, --context and the thread's saved context.

A `--resume` (a fresh process) without `--context` runs with the context the thread was
started with, read from its latest checkpoint; a new `--context` replaces it.
"""
from __future__ import annotations

import argparse
from typing import Any, TextIO

from studio.core.runsettings import (
    CONTEXT_KEY,
    check_context,
    context_schema_of,
    example_of,
    kept_context,
    parse_config,
    parse_context,
    saved_context,
)

__all__ = ["RunCall", "run_call"]


class RunCall:
    """The config, context and durability one `retrograph run` passes to astream."""

    def __init__(self, config: dict[str, Any], context: Any, durability: str | None) -> None:
        self.config = config
        self.context = context
        self.durability = durability


def _saved(graph: Any, thread: str | None) -> Any:
    if graph.checkpointer is None or not thread:
        return None
    try:
        snapshot = graph.get_state({"configurable": {"thread_id": thread}})
    except Exception:  # an unreadable thread is reported by the --resume check that follows
        return None
    return saved_context(getattr(snapshot, "metadata", None))


def run_call(args: argparse.Namespace, loaded: Any, graph: Any, thread: str | None,
             err: TextIO) -> tuple[RunCall | None, str | None]:
    """The run's call, or (None, the one line that says which flag is wrong)."""
    user_config, problem = parse_config(getattr(args, "config", None))
    if problem:
        return None, problem
    context, problem = parse_context(getattr(args, "context", None), loaded.graph)
    if problem:
        return None, problem
    if context is None and args.resume is None:
        context = example_of(loaded.module, "example_context", None)
        if context is None and context_schema_of(loaded.graph) is not None:
            _, missing = check_context({}, loaded.graph, "the run context")
            if missing:
                return None, f"{missing}: pass --context JSON (the file defines no example_context)"
    if context is None and args.resume is not None:
        context = _saved(graph, thread)
        if context is not None:
            context, problem = check_context(context, loaded.graph, "the thread's saved context")
            if problem:
                return None, f"{problem}; pass --context JSON with the whole context"
    config: dict[str, Any] = dict(user_config)
    configurable = dict(config.get("configurable") or {})
    if thread:
        configurable["thread_id"] = thread
    if configurable:
        config["configurable"] = configurable
    if graph.checkpointer is not None:  # keep what each task wrote: replays and `retrograph pytest` use it
        config["record"] = True
        if context is not None:
            kept, dropped = kept_context(context)
            config["metadata"] = {**dict(config.get("metadata") or {}), CONTEXT_KEY: kept}
            if dropped:
                print(f"retrograph: context key{'s' if len(dropped) > 1 else ''} {', '.join(dropped)} not saved "
                      "with the thread (it looks like a secret): pass it again with --context when you --resume",
                      file=err)
    return RunCall(config, context, getattr(args, "durability", None)), None
