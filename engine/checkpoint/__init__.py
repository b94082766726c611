"""Checkpoint stores and the serializer they share.

`InMemorySaver` for tests and scripts, `SqliteSaver` for one durable file,
`PostgresSaver` (postgres.py, postgres_schema.py) for runs spread over processes and
machines. All keep
values as encoded bytes (never pickles), and both store an appended list as its new
items only. `register_type` allows a dataclass, pydantic model, NamedTuple or Enum to be
stored and rebuilt.

Modules: base (what a checkpoint is; the store interface), serde and registry (values
to bytes and back; the types allowed), storage_plan (how every store keeps a
checkpoint's channels: unchanged, value or appended, sizes, inline or not), records
(what the stores encode and refuse),
memory, and sqlite with its parts: sqlite_schema (the file: tables, opening, errors),
sqlite_rows (a checkpoint's row), sqlite_cache (what a writer remembers), segments
(appended lists).
"""
from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:  # what type checkers see; at run time each name loads on first use
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
    from .postgres import PostgresSaver
    from .postgres_shallow import ShallowPostgresSaver
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

__getattr__, __dir__ = lazy_exports(__name__, {
    ".base": ("ERROR", "INTERRUPT", "RESUME", "ROUTE", "SEND", "BaseCheckpointSaver", "Checkpoint", "CheckpointHeader",
              "PendingWrite", "PlannedTask", "ThreadInfo", "new_checkpoint_id", "new_task_id", "now_iso"),
    ".langgraph_api": ("CheckpointTuple",),
    ".memory": ("InMemorySaver", "MemorySaver"),
    ".serde": ("Serializer", "UnknownTypeWarning", "UnknownValue", "register_type"),
    ".sqlite": ("SqliteSaver",),
    # psycopg and the PostgreSQL modules load only when one of these is asked for
    ".postgres": ("PostgresSaver",),
    ".postgres_shallow": ("ShallowPostgresSaver",),
})
