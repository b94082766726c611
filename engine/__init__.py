"""Retrograph's engine: a LangGraph-compatible state-graph runtime built as a stepper.

Port LangGraph code by changing its imports to `from engine import ...`.

`import engine` itself loads nothing else: each public name is imported from its module on
first use (PEP 562 `__getattr__`), so a program pays only for what it uses (a script that
only runs a graph never loads the SQLite saver's or the stores' modules, nor networkx or
langchain-core). `from engine import X` and `engine.X` work as if it were all imported.
"""
from typing import TYPE_CHECKING as _TYPE_CHECKING

from .lazy import lazy_exports as _lazy_exports

if _TYPE_CHECKING:  # what type checkers and editors see; at run time, `__getattr__` below
    from .channels import MISSING
    from .checkpoint import (
        BaseCheckpointSaver,
        Checkpoint,
        CheckpointHeader,
        InMemorySaver,
        MemorySaver,
        PlannedTask,
        SqliteSaver,
        register_type,
    )
    from .constants import END, START
    from .errors import (
        GraphDrained,
        NodeError,
        NodeTimeoutError,
        NodeCancelledError,
        CheckpointDecodeError,
        CheckpointError,
        EmptyInputError,
        GraphCompileError,
        GraphInterrupt,
        GraphRecursionError,
        InvalidRouteError,
        InvalidUpdateError,
        MissingThreadIdError,
        NotARetrographDatabase,
        ResumeError,
        SerializationError,
        UnsupportedSchemaVersion,
    )
    from .graph import CompiledStateGraph, StateGraph
    from .managed import IsLastStep, RemainingSteps
    from .messages import REMOVE_ALL_MESSAGES, AnyMessage, MessagesState, add_messages
    from .runtime.injected import DEFAULT_RUNTIME, ExecutionInfo, RunControl, Runtime, ServerInfo, get_runtime, get_store
    from .store import BaseStore, InMemoryStore
    from .runtime import (
        ChannelDiff,
        ChannelWrite,
        CustomData,
        DriveHooks,
        Run,
        RunEvent,
        RunFinished,
        RunInterrupted,
        RunStarted,
        StepCommitted,
        TaskFailed,
        TaskFinished,
        TaskInterrupted,
        TaskStarted,
        get_config,
        get_stream_writer,
        interrupt,
    )
    from .cache import InMemoryCache, SqliteCache
    from .types import (
        CachePolicy,
        TimeoutPolicy,
        Command,
        Durability,
        GraphOutput,
        StreamMode,
        StreamPart,
        Interrupt,
        Overwrite,
        PregelTask,
        RetryPolicy,
        Send,
        StateSnapshot,
        StateUpdate,
        TaskInfo,
    )
    from .messages import AIMessage, BaseMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage

__all__ = [
    # building and running
    "StateGraph", "CompiledStateGraph", "START", "END", "Send", "Command", "interrupt", "Interrupt",
    "get_stream_writer", "get_config", "get_runtime", "get_store", "Runtime", "ExecutionInfo",
    "DEFAULT_RUNTIME", "RunControl", "ServerInfo",
    "BaseStore", "InMemoryStore", "StateSnapshot", "TaskInfo", "RetryPolicy", "Overwrite",
    "GraphOutput", "StreamPart", "StreamMode", "Durability", "CachePolicy", "TimeoutPolicy",
    "InMemoryCache", "SqliteCache",
    "StateUpdate", "PregelTask",
    # messages
    "add_messages", "MessagesState", "AnyMessage", "BaseMessage", "HumanMessage", "AIMessage",
    "SystemMessage", "ToolMessage", "RemoveMessage", "REMOVE_ALL_MESSAGES",
    # managed values
    "RemainingSteps", "IsLastStep",
    # checkpoints
    "InMemorySaver", "MemorySaver", "SqliteSaver", "BaseCheckpointSaver", "Checkpoint", "CheckpointHeader",
    "PlannedTask", "register_type",
    # the stepper and its events
    "Run", "DriveHooks", "RunEvent", "RunStarted", "TaskStarted", "TaskFinished", "TaskFailed", "TaskInterrupted",
    "StepCommitted", "RunInterrupted", "RunFinished", "CustomData", "ChannelDiff", "ChannelWrite", "MISSING",
    # errors
    "GraphRecursionError", "InvalidUpdateError", "InvalidRouteError", "GraphCompileError", "EmptyInputError", "MissingThreadIdError",
    "ResumeError", "NodeTimeoutError", "NodeCancelledError", "NodeError", "GraphDrained", "GraphInterrupt", "CheckpointError", "CheckpointDecodeError", "SerializationError",
    "UnsupportedSchemaVersion", "NotARetrographDatabase",
]

_SOURCES: dict[str, tuple[str, ...]] = {
    ".channels": ("MISSING",),
    ".checkpoint": ("BaseCheckpointSaver", "Checkpoint", "CheckpointHeader", "InMemorySaver", "MemorySaver", "PlannedTask",
                    "SqliteSaver", "register_type"),
    ".constants": ("END", "START"),
    ".errors": ("GraphDrained", "NodeError", "NodeTimeoutError", "NodeCancelledError", "CheckpointDecodeError",
                "CheckpointError", "EmptyInputError", "GraphCompileError", "GraphInterrupt", "GraphRecursionError",
                "InvalidRouteError", "InvalidUpdateError", "MissingThreadIdError", "NotARetrographDatabase",
                "ResumeError", "SerializationError", "UnsupportedSchemaVersion"),
    ".graph": ("CompiledStateGraph", "StateGraph"),
    ".managed": ("IsLastStep", "RemainingSteps"),
    ".messages": ("REMOVE_ALL_MESSAGES", "AnyMessage", "MessagesState", "add_messages", "BaseMessage", "HumanMessage",
                  "AIMessage", "SystemMessage", "ToolMessage", "RemoveMessage"),
    ".runtime.injected": ("DEFAULT_RUNTIME", "ExecutionInfo", "RunControl", "Runtime", "ServerInfo", "get_runtime", "get_store"),
    ".store": ("BaseStore", "InMemoryStore"),
    ".runtime": ("ChannelDiff", "ChannelWrite", "CustomData", "DriveHooks", "Run", "RunEvent", "RunFinished",
                 "RunInterrupted", "RunStarted", "StepCommitted", "TaskFailed", "TaskFinished", "TaskInterrupted",
                 "TaskStarted", "get_config", "get_stream_writer", "interrupt"),
    ".cache": ("InMemoryCache", "SqliteCache"),
    ".types": ("CachePolicy", "TimeoutPolicy", "Command", "Durability", "GraphOutput", "StreamMode", "StreamPart",
               "Interrupt", "Overwrite", "PregelTask", "RetryPolicy", "Send", "StateSnapshot", "StateUpdate",
               "TaskInfo"),
}
"""Each public name, by the module it is imported from (relative to this package)."""

__getattr__, __dir__ = _lazy_exports(
    __name__, _SOURCES, submodules=True,
    # the message classes are the active layer's, chosen when first used (engine.messages)
    uncached=frozenset({"BaseMessage", "HumanMessage", "AIMessage", "SystemMessage", "ToolMessage", "RemoveMessage"}))
