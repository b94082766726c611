"""LangGraph public names that libraries import and the engine's own API has no use for:
`langgraph.warnings`, `langgraph.types.Checkpointer` and `PregelExecutableTask`,
`langgraph.errors.NodeInterrupt`, the constants `TAG_NOSTREAM`, `TAG_HIDDEN`, `CONF` and
`langgraph.utils.config` (served through layout.PUBLIC_NAMES; `langgraph.typing` is
compat/typing_names.py)."""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from ..checkpoint.base import BaseCheckpointSaver
from ..errors import GraphInterrupt
from ..policies import TimeoutPolicy
from ..types import Interrupt, RetryPolicy
from ..warnings import (
    LangGraphDeprecatedSinceV05,
    LangGraphDeprecatedSinceV10,
    LangGraphDeprecatedSinceV11,
    LangGraphDeprecationWarning,
)

__all__ = [
    "LangGraphDeprecationWarning", "LangGraphDeprecatedSinceV05", "LangGraphDeprecatedSinceV10",
    "LangGraphDeprecatedSinceV11",
    "Checkpointer", "PregelExecutableTask", "NodeInterrupt", "TAG_NOSTREAM", "TAG_HIDDEN", "CONF",
]

# -- langgraph.types, langgraph.errors, langgraph.constants ------------------------------
Checkpointer: TypeAlias = None | bool | BaseCheckpointSaver
"""What `compile(checkpointer=...)` takes: a saver, None (a subgraph inherits its
parent's), True (a subgraph keeps its own per thread) or False (none)."""


@dataclass(frozen=True, slots=True, weakref_slot=True)
class PregelExecutableTask:
    """LangGraph's description of a task ready to run (its name, input, runnable, config,
    retry policy, ...), as LangGraph's own runner takes it. The engine plans and runs tasks
    its own way; the type is here for code that builds or annotates with it."""

    name: str
    input: Any
    proc: Any
    writes: Any
    config: Any
    triggers: Sequence[str]
    retry_policy: Sequence[RetryPolicy]
    cache_key: Any
    id: str
    path: tuple[Any, ...]
    writers: Sequence[Any] = ()
    subgraphs: Sequence[Any] = ()
    timeout: TimeoutPolicy | None = None


class NodeInterrupt(GraphInterrupt):
    """Deprecated: raised inside a node, it pauses the run on `value` (use `interrupt()`)."""

    def __init__(self, value: Any, id: str | None = None) -> None:  # noqa: A002 - LangGraph's name
        warnings.warn(LangGraphDeprecatedSinceV10(
            "NodeInterrupt is deprecated. Please use `langgraph.types.interrupt` instead"), stacklevel=2)
        super().__init__([Interrupt(value=value, id=id or "placeholder-id")])


TAG_NOSTREAM = "nostream"
"""A chat model tagged with it sends no tokens to the messages stream."""
TAG_HIDDEN = "langsmith:hidden"
"""A run tagged with it is hidden from tracing."""
CONF = "configurable"
"""The config key of the configurable values."""
