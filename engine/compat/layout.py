"""Where each of LangGraph's public modules lives in the engine.

`langgraph.M` is served by a chain of engine modules, most specific first: a name is
looked up in each, in order, among the names that module exports (its `__all__`). The
default chain is `engine.M` (and `engine.A_B` for `M = A.B`, so `checkpoint.sqlite.aio`
is `engine.checkpoint.sqlite_aio`), then the parents of `engine.M` up to `engine`, so a
name another part of the engine starts exporting is served without touching this file.
"""
from __future__ import annotations

__all__ = ["CHANNELS", "PUBLIC", "OPTIONAL", "INTERNAL", "OVERRIDES", "SERVED_PRIVATE", "chain", "is_internal", "served_private"]

_CH = "engine.compat.channels"
CHANNELS: dict[str, tuple[str, ...]] = {
    "channels": (_CH,),
    "channels.base": (f"{_CH}.base",),
    "channels.last_value": (f"{_CH}.last_value",),
    "channels.ephemeral_value": (f"{_CH}.scoped",),
    "channels.untracked_value": (f"{_CH}.scoped",),
    "channels.any_value": (f"{_CH}.scoped",),
    "channels.topic": (f"{_CH}.topic",),
    "channels.binop": (f"{_CH}.binop",),
    "channels.delta": (f"{_CH}.delta",),
    "channels.named_barrier_value": (f"{_CH}.named_barrier_value",),
}
"""`langgraph.channels.*`: LangGraph's channel classes, a layer over the engine's channels
(engine/compat/channels)."""

PUBLIC: frozenset[str] = frozenset({
    "", "cache", "cache.base", "cache.memory", "cache.sqlite", "callbacks", "checkpoint",
    "checkpoint.base", "checkpoint.base.id", "checkpoint.memory", "checkpoint.sqlite",
    "checkpoint.sqlite.aio", "checkpoint.sqlite.utils", "checkpoint.postgres", "checkpoint.postgres.aio",
    "checkpoint.serde", "checkpoint.serde.base", "checkpoint.serde.jsonplus",
    "checkpoint.serde.types", "checkpoint.serde.encrypted", "config", "constants", "errors", "func", "graph",
    "graph.message", "graph.state", "graph.ui", "managed", "managed.base",
    "managed.is_last_step", "prebuilt", "prebuilt.chat_agent_executor", "prebuilt.interrupt",
    "prebuilt.tool_node", "prebuilt.tool_validator", "runtime", "store", "store.base",
    "store.base.batch", "store.base.embed", "store.memory", "store.sqlite", "store.sqlite.aio",
    "store.sqlite.base", "store.postgres", "store.postgres.aio", "store.postgres.base", "stream", "types", "typing", "utils",
    "utils.config", "utils.runnable", "version", "warnings",
    *CHANNELS,
})
"""LangGraph's public modules (relative to `langgraph`); anything else is not served."""

OPTIONAL: dict[str, str] = {
    "func": "engine.func",
    "prebuilt": "engine.prebuilt",
    "checkpoint.postgres": "engine.checkpoint.postgres",
    "store": "engine.store",
    "cache": "engine.cache",
}
"""Areas that exist only once the engine has the named module: until then importing them
says they are not supported yet (rather than serving an empty module)."""

INTERNAL: tuple[str, ...] = ("_internal",)
"""LangGraph's internals (private modules), not served but for SERVED_PRIVATE."""

SERVED_PRIVATE: dict[str, tuple[str, ...]] = {
    "_internal": (),
    "_internal._constants": ("engine.compat.internal_names",),
    "_internal._runnable": ("engine.prebuilt.runnable",),
    "_internal._config": ("engine.prebuilt.runnable",),
    "_internal._typing": ("engine.compat.internal_typing",),
    "checkpoint.serde._msgpack": ("engine.checkpoint.serde_msgpack",),
    "_internal._timeout": ("engine.compat.private.timeout",),
    "pregel._checkpoint": ("engine.compat.private.pregel_checkpoint",),
}
"""Private modules served anyway, each with only the names listed by its engine module:
the reserved strings the engine's public data carries (task paths, write channels), and
the few private names the agent libraries import (RunnableCallable, patch_configurable,
DeprecatedKwargs, CONFIG_KEY_READ/SEND), served as public ones are, and a few more that
are cheap and exact (engine/compat/private: coerce_timeout_policy, the raw-checkpoint
helpers of `pregel._checkpoint` and its delta snapshot bound, `checkpoint.serde.types._DeltaSnapshot`,
`pregel.remote._V3_SUPPORTED_KWARGS` and `_merge_tracing_headers`,
`graph.state._warn_invalid_state_schema`, `graph.message._messages_delta_reducer`)."""

OVERRIDES: dict[str, tuple[str, ...]] = {
    "typing": ("engine.compat.typing_names",),
    "constants": ("engine.constants", "engine", "engine.compat.constant_names"),
    "graph.message": ("engine.messages", "engine.graph", "engine", "engine.compat.private.graph_message"),
    "graph.state": ("engine.graph", "engine", "engine.compat.private.graph_state"),
    "config": ("engine.config", "engine.runtime", "engine"),
    "runtime": ("engine.runtime", "engine"),
    "checkpoint.base": ("engine.checkpoint.lg_base", "engine.checkpoint.base", "engine.checkpoint"),
    "checkpoint.base.id": ("engine.checkpoint.base", "engine.checkpoint"),
    "checkpoint.serde.base": ("engine.checkpoint.serde_protocol",),
    "checkpoint.serde.jsonplus": ("engine.checkpoint.serde_jsonplus", "engine.checkpoint.serde"),
    "checkpoint.serde.types": ("engine.checkpoint.serde_protocol", "engine.compat.private.serde_types"),
    "checkpoint.serde.encrypted": ("engine.checkpoint.serde_encrypted",),
    "prebuilt.chat_agent_executor": ("engine.prebuilt.react_agent", "engine.prebuilt", "engine.compat.prebuilt_names"),
    "prebuilt.tool_validator": ("engine.prebuilt.validation", "engine.prebuilt.tool_node", "engine.prebuilt"),
    "utils.runnable": ("engine.prebuilt.runnable",),
    "managed": ("engine.managed", "engine"),
    "managed.base": ("engine.managed", "engine"),
    "managed.is_last_step": ("engine.managed", "engine"),
    "store.base.batch": ("engine.store.batched", "engine.store"),
    "store.base.embed": ("engine.store.embed", "engine.store"),
    "store.sqlite.base": ("engine.store.sqlite", "engine.store"),
    "store.postgres.base": ("engine.store.postgres", "engine.store"),
    **CHANNELS,
}

"""Chains that differ from the default (a module the engine names differently)."""

# -- the v3 event stream: `langgraph.stream` is the engine's `engine.streaming` ------------
STREAM_MODULES: dict[str, tuple[str, ...]] = {
    "stream": ("engine.streaming",),
    "stream.run_stream": ("engine.streaming.run_stream", "engine.streaming"),
    "stream.stream_channel": ("engine.streaming.channel", "engine.streaming"),
    "stream.transformers": ("engine.streaming.builtin", "engine.streaming.subgraphs", "engine.streaming",
                            "engine.compat.agent_stream_names"),
}
PUBLIC = PUBLIC | frozenset(STREAM_MODULES)
OVERRIDES.update(STREAM_MODULES)

# -- the low-level graph API: `langgraph.pregel` is the engine's `engine.pregel_api` layer ------
PREGEL_MODULES: dict[str, tuple[str, ...]] = {
    "pregel": ("engine.pregel_api",),
    "pregel.main": ("engine.pregel_api",),
    "pregel.protocol": ("engine.pregel_api.graph", "engine.compat.pregel_protocol_names"),
    "pregel.types": ("engine.types", "engine"),  # (deprecated: LangGraph warns)
    "pregel.remote": ("engine.compat.pregel_names", "engine.compat.private.pregel_remote"),
    "pregel.debug": ("engine.streaming.debug",),
}
PUBLIC = PUBLIC | frozenset(PREGEL_MODULES)
OVERRIDES.update(PREGEL_MODULES)

# -- names libraries import that the engine's own API has no use for (compat/public_names.py) --
_NAMES = "engine.compat.public_names"
PUBLIC_NAMES: dict[str, tuple[str, ...]] = {
    "warnings": (_NAMES,),
    "types": ("engine.types", _NAMES, "engine"),
    "errors": ("engine.errors", _NAMES, "engine"),
    "constants": ("engine.constants", _NAMES, "engine"),
    "utils.config": ("engine.prebuilt.runnable", "engine.runtime", "engine.runtime.injected", _NAMES),
}
OVERRIDES.update(PUBLIC_NAMES)


def is_internal(sub: str) -> bool:
    """True for LangGraph's internals and private modules (`._x`)."""
    parts = sub.split(".") if sub else []
    if any(p.startswith("_") for p in parts):
        return True
    return any(sub == p or sub.startswith(p + ".") for p in INTERNAL)


def served_private(sub: str) -> bool:
    """Whether a private `langgraph.<sub>` is served all the same (SERVED_PRIVATE)."""
    return sub in SERVED_PRIVATE


def chain(sub: str) -> tuple[str, ...]:
    """The engine modules serving `langgraph.<sub>`, most specific first."""
    if sub in SERVED_PRIVATE:
        return SERVED_PRIVATE[sub]
    if sub in OVERRIDES:
        return OVERRIDES[sub]
    parts = sub.split(".") if sub else []
    out: list[str] = []
    for i in range(len(parts), 0, -1):
        out.append(".".join(["engine", *parts[:i]]))
        if i >= 2:
            out.append(".".join(["engine", *parts[: i - 2], "_".join(parts[i - 2 : i])]))
    out.append("engine")
    return tuple(dict.fromkeys(out))
