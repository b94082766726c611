"""The Run stepper, its events and the per-task context (interrupt, stream writer)."""
from .context import get_config, get_stream_writer, interrupt
from .diff import ChannelDiff, ChannelWrite
from .drive import DriveHooks
from .events import (
    CustomData,
    RunEvent,
    RunFinished,
    RunInterrupted,
    RunStarted,
    StepCommitted,
    TaskFailed,
    TaskFinished,
    TaskInterrupted,
    TaskStarted,
)
from .run import DEFAULT_RECURSION_LIMIT, Run
from .stream import STREAM_MODES

__all__ = [
    "Run", "DriveHooks", "DEFAULT_RECURSION_LIMIT", "STREAM_MODES",
    "interrupt", "get_stream_writer", "get_config",
    "ChannelDiff", "ChannelWrite",
    "RunEvent", "RunStarted", "TaskStarted", "TaskFinished", "TaskFailed", "TaskInterrupted",
    "StepCommitted", "RunInterrupted", "RunFinished", "CustomData",
]
