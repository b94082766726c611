"""What `version="v2"` runs hand back: typed stream parts and the invoke() result.

`stream(..., version="v2")` yields one dict per chunk, `{"type": mode, "ns": namespace,
"data": chunk}` (values parts also carry `interrupts`), whatever the number of modes;
`invoke(..., version="v2")` returns a `GraphOutput`. Names follow `langgraph.types`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Literal, TypedDict, TypeVar, Union

from .constants import INTERRUPT_KEY
from .warnings import deprecated

__all__ = [
    "GraphOutput", "StreamPart", "StreamMode", "Durability",
    "ValuesStreamPart", "UpdatesStreamPart", "CustomStreamPart", "CheckpointStreamPart",
    "TasksStreamPart", "DebugStreamPart", "MessagesStreamPart",
]

StreamMode = Literal["values", "updates", "checkpoints", "tasks", "debug", "messages", "custom", "tools"]
Durability = Literal["sync", "async", "exit"]
"""When checkpoints are saved: "sync"/"async" after every superstep (Retrograph saves
inline either way), "exit" only when the run ends, pauses or fails."""

OutputT = TypeVar("OutputT")


@dataclass(frozen=True)
class GraphOutput(Generic[OutputT]):
    """invoke(..., version="v2"): the output state and the interrupts that paused the run."""

    value: OutputT
    interrupts: tuple[Any, ...] = ()

    def __getitem__(self, key: str) -> Any:
        """Deprecated dict access, kept so v1 code reading `result["key"]` still works."""
        deprecated("Accessing GraphOutput via `result[key]` is deprecated: read `result.value` (the output) "
                   "or `result.interrupts`", "1.1")
        if key == INTERRUPT_KEY:
            return self.interrupts
        if isinstance(self.value, dict):
            return self.value[key]
        try:
            return getattr(self.value, key)
        except AttributeError:
            raise KeyError(key) from None

    def __contains__(self, key: object) -> bool:
        deprecated("Accessing GraphOutput via `key in result` is deprecated: read `result.value` (the output) "
                   "or `result.interrupts`", "1.1")
        if key == INTERRUPT_KEY:
            return bool(self.interrupts)
        if isinstance(self.value, dict):
            return key in self.value
        return isinstance(key, str) and hasattr(self.value, key)


class ValuesStreamPart(TypedDict):
    type: Literal["values"]
    ns: tuple[str, ...]
    data: Any
    interrupts: tuple[Any, ...]


class UpdatesStreamPart(TypedDict):
    type: Literal["updates"]
    ns: tuple[str, ...]
    data: dict[str, Any]


class CustomStreamPart(TypedDict):
    type: Literal["custom"]
    ns: tuple[str, ...]
    data: Any


class CheckpointStreamPart(TypedDict):
    type: Literal["checkpoints"]
    ns: tuple[str, ...]
    data: dict[str, Any]


class TasksStreamPart(TypedDict):
    type: Literal["tasks"]
    ns: tuple[str, ...]
    data: dict[str, Any]


class DebugStreamPart(TypedDict):
    type: Literal["debug"]
    ns: tuple[str, ...]
    data: dict[str, Any]


class MessagesStreamPart(TypedDict):
    type: Literal["messages"]
    ns: tuple[str, ...]
    data: tuple[Any, dict[str, Any]]


StreamPart = Union[ValuesStreamPart, UpdatesStreamPart, CustomStreamPart, CheckpointStreamPart,
                   TasksStreamPart, DebugStreamPart, MessagesStreamPart]
