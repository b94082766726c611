"""Checkpoint stores and the serializer they share.

`InMemorySaver` for tests and scripts, `SqliteSaver` for one durable file,
`PostgresSaver` (postgres.py, postgres_schema.py) for runs spread over processes and
machines. All keep
values as encoded bytes (never pickles), and both store an appended list as its new
items only. `register_type` allows a dataclass, pydantic model, NamedTuple or Enum to be
stored and rebuilt.

Modules: base (what a checkpoint is; the store interface), serde and registry (values
to bytes and back; the types allowed), records (what both stores keep and refuse),
memory, and sqlite with its parts: sqlite_schema (the file: tables, opening, errors),
sqlite_rows (a checkpoint's row), sqlite_cache (what a writer remembers), segments
(appended lists).
"""
from typing import TYPE_CHECKING, Any

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
from .langgraph_api import CheckpointTuple
from .memory import InMemorySaver, MemorySaver
from .serde import Serializer, UnknownTypeWarning, UnknownValue, register_type
from .sqlite import SqliteSaver

if TYPE_CHECKING:
    from .postgres import PostgresSaver
    from .postgres_shallow import ShallowPostgresSaver

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
    "CheckpointTuple",
    "InMemorySaver",
    "MemorySaver",
    "SqliteSaver",
    "PostgresSaver",
    "ShallowPostgresSaver",
    "Serializer",
    "register_type",
    "UnknownValue",
    "UnknownTypeWarning",
]


def __getattr__(name: str) -> Any:
    """`PostgresSaver` and `ShallowPostgresSaver` are imported on first use (their modules and psycopg stay unloaded otherwise)."""
    if name == "PostgresSaver":
        from .postgres import PostgresSaver

        return PostgresSaver
    if name == "ShallowPostgresSaver":
        from .postgres_shallow import ShallowPostgresSaver

        return ShallowPostgresSaver
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
