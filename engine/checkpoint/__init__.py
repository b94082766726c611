"""Checkpoint stores and the serializer they share.

`InMemorySaver` for tests and scripts, `SqliteSaver` for one durable file. Both keep
values as encoded bytes (never pickles), and both store an appended list as its new
items only. `register_type` allows a dataclass, pydantic model, NamedTuple or Enum to be
stored and rebuilt.
"""
from .base import (
    ERROR,
    INTERRUPT,
    RESUME,
    ROUTE,
    SEND,
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointHeader,
    PendingWrite,
    PlannedTask,
    ThreadInfo,
    new_checkpoint_id,
    new_task_id,
    now_iso,
)
from .memory import InMemorySaver, MemorySaver
from .serde import Serializer, UnknownTypeWarning, UnknownValue, register_type
from .sqlite import SqliteSaver

__all__ = [
    "BaseCheckpointSaver",
    "Checkpoint",
    "CheckpointHeader",
    "PlannedTask",
    "PendingWrite",
    "ThreadInfo",
    "new_checkpoint_id",
    "new_task_id",
    "now_iso",
    "ROUTE",
    "SEND",
    "INTERRUPT",
    "ERROR",
    "RESUME",
    "InMemorySaver",
    "MemorySaver",
    "SqliteSaver",
    "Serializer",
    "register_type",
    "UnknownValue",
    "UnknownTypeWarning",
]
