"""Progress seen through LangChain callbacks, for idle timeouts.

A node with an idle timeout (`TimeoutPolicy(idle_timeout=..., refresh_on="auto")`) that
calls a chat model shows progress with every token the model streams, every tool or
chain it starts or ends: any callback event raised inside the node resets the idle clock,
as in LangGraph. The node's config (and LangChain's "current config", which a model
called without a config reads) carries one more handler that calls `ctx.heartbeat()`.
Only timed nodes pay for it, and only when langchain-core is installed.
"""
from __future__ import annotations

import contextvars
from typing import Any

from .context import TaskContext

__all__ = ["watch_callbacks", "unwatch_callbacks"]

_HANDLER_CLASS: Any = None


def _handler_class() -> Any:
    global _HANDLER_CLASS
    if _HANDLER_CLASS is None:
        from langchain_core.callbacks import BaseCallbackHandler

        class ProgressHandler(BaseCallbackHandler):  # type: ignore[misc]
            """Every callback event is progress of the task it was raised in."""

            run_inline = True

            def __init__(self, ctx: TaskContext) -> None:
                self.ctx = ctx

            def _beat(self, *args: Any, **kwargs: Any) -> None:
                self.ctx.heartbeat()

            on_llm_start = on_chat_model_start = on_llm_new_token = on_llm_end = on_llm_error = _beat
            on_chain_start = on_chain_end = on_chain_error = _beat
            on_tool_start = on_tool_end = on_tool_error = _beat
            on_retriever_start = on_retriever_end = on_retriever_error = _beat
            on_agent_action = on_agent_finish = on_text = on_retry = on_custom_event = _beat

        _HANDLER_CLASS = ProgressHandler
    return _HANDLER_CLASS


def watch_callbacks(ctx: TaskContext) -> tuple[Any, Any] | None:
    """Add the progress handler to the task's config and make that config LangChain's
    current one; returns what `unwatch_callbacks` restores (None: nothing was done)."""
    try:
        from langchain_core.callbacks import BaseCallbackManager
        from langchain_core.runnables.config import var_child_runnable_config
    except ImportError:  # no LangChain: no callback events to watch
        return None
    handler = _handler_class()(ctx)
    config = ctx.config
    callbacks = config.get("callbacks")
    if isinstance(callbacks, BaseCallbackManager):
        callbacks = callbacks.copy()
        callbacks.add_handler(handler, inherit=True)
    else:
        callbacks = [*(callbacks or ()), handler]
    ctx.config = {**config, "callbacks": callbacks}
    token: contextvars.Token[Any] = var_child_runnable_config.set(ctx.config)
    return var_child_runnable_config, token


def unwatch_callbacks(watched: tuple[Any, Any] | None) -> None:
    if watched is None:
        return
    var, token = watched
    try:
        var.reset(token)
    except ValueError:  # reset from another context: nothing to restore there
        pass
