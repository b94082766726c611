"""LangGraph public names that libraries import and the engine's own API has no use for:
`langgraph.warnings`, `langgraph.types.Checkpointer`,
`langgraph.errors.NodeInterrupt`, the constants `TAG_NOSTREAM`, `TAG_HIDDEN`, `CONF` and
`langgraph.utils.config` (served through layout.PUBLIC_NAMES; `langgraph.typing` is
compat/typing_names.py)."""
from __future__ import annotations

import warnings
from typing import Any, TypeAlias

from ..checkpoint.base import BaseCheckpointSaver
from ..errors import GraphInterrupt
from ..types import Interrupt
from ..warnings import (
    LangGraphDeprecatedSinceV05,
    LangGraphDeprecatedSinceV10,
    LangGraphDeprecatedSinceV11,
    LangGraphDeprecationWarning,
)

__all__ = [
    "LangGraphDeprecationWarning", "LangGraphDeprecatedSinceV05", "LangGraphDeprecatedSinceV10",
    "LangGraphDeprecatedSinceV11",
    "Checkpointer", "NodeInterrupt", "TAG_NOSTREAM", "TAG_HIDDEN", "CONF",
]

# -- langgraph.types, langgraph.errors, langgraph.constants ------------------------------
Checkpointer: TypeAlias = None | bool | BaseCheckpointSaver
"""What `compile(checkpointer=...)` takes: a saver, None (a subgraph inherits its
parent's), True (a subgraph keeps its own per thread) or False (none)."""


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
