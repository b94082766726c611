"""Retrograph's engine: a LangGraph-compatible state-graph runtime built as a stepper.

Port LangGraph code by changing its imports to `from engine import ...`.
"""
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


def __getattr__(name: str) -> object:
    """The message classes of the active layer (langchain-core's when installed), looked
    up on first use so that importing the engine does not import langchain-core."""
    if name in ("BaseMessage", "HumanMessage", "AIMessage", "SystemMessage", "ToolMessage", "RemoveMessage"):
        from . import messages

        return getattr(messages, name)
    raise AttributeError(f"module 'engine' has no attribute {name!r}")
