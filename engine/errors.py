"""The exceptions a user of the engine may catch.

Each subclasses the builtin a user would already catch (ValueError, RuntimeError...),
and each message names the node, key or file at fault and says what to do.
"""
from __future__ import annotations

from dataclasses import dataclass

from collections.abc import Sequence
from enum import Enum

__all__ = [
    "MissingCheckpointError",
    "is_invalid_resume",
    "mark_invalid_resume",
    "GraphDrained",
    "NodeError",
    "NodeTimeoutError",
    "NodeCancelledError",
    "NodeExitError",
    "GraphRecursionError",
    "InvalidUpdateError",
    "GraphCompileError",
    "EmptyInputError",
    "CheckpointError",
    "CheckpointDecodeError",
    "SerializationError",
    "UnsupportedSchemaVersion",
    "NotARetrographDatabase",
    "MissingThreadIdError",
    "ResumeError",
    "GraphInterrupt",
    "InvalidRouteError",
    "GraphBubbleUp",
    "ParentCommand",
    "EmptyChannelError",
    "ErrorCode",
]


class GraphRecursionError(RecursionError):
    """The run needed more supersteps than `recursion_limit` allows."""


class InvalidUpdateError(ValueError):
    """A node's update cannot be applied to the state (bad type, two writes to a plain key...)."""


class GraphCompileError(ValueError):
    """The graph is malformed. Lists every problem found, not only the first."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        if len(self.problems) == 1:
            text = self.problems[0]
        else:
            text = f"{len(self.problems)} problems in the graph:\n" + "\n".join(
                f"  - {p}" for p in self.problems
            )
        super().__init__(text)


class EmptyInputError(ValueError):
    """A fresh run was started with no input and no checkpoint to continue from."""


class MissingThreadIdError(ValueError):
    """A checkpointer is set but the config names no `configurable.thread_id`."""


class ResumeError(RuntimeError):
    """A resume value does not match the pending interrupts (a RuntimeError, as LangGraph raises)."""


class CheckpointError(RuntimeError):
    """A checkpoint store is unusable: corrupt, foreign or written by a newer version."""


class CheckpointDecodeError(CheckpointError, ValueError):
    """Stored bytes could not be decoded into a value."""


class UnsupportedSchemaVersion(CheckpointError):
    """The database was written by a newer Retrograph with a schema this one cannot read."""


class NotARetrographDatabase(CheckpointError):
    """The file is not a SQLite database, or holds no Retrograph checkpoints."""


class SerializationError(TypeError):
    """A state value cannot be stored in a checkpoint."""


class GraphBubbleUp(Exception):
    """Base of the signals that a node raises for the engine to handle (an interrupt, a
    Command for the parent graph), not errors: a node must let them propagate."""


class GraphDrained(GraphBubbleUp):
    """The run stopped at a superstep boundary because `RunControl.request_drain()` was
    called (e.g. on SIGTERM); its checkpoint is saved, `invoke(None, config)` resumes it."""

    def __init__(self, reason: str = "shutdown") -> None:
        self.reason = reason
        super().__init__(f"Graph drained: {reason}")


class ParentCommand(GraphBubbleUp):
    """A node returned `Command(graph=Command.PARENT)`: the command goes to the graph
    that runs this one as a node. Raised out of invoke() when there is no such graph;
    `args[0]` is the Command."""

    def __init__(self, command: object) -> None:
        super().__init__(command)

    @property
    def command(self) -> object:
        return self.args[0]


class EmptyChannelError(LookupError):
    """A state key was read before anything was written to it."""


class ErrorCode(Enum):
    """LangGraph's error codes, for code that inspects them."""

    GRAPH_RECURSION_LIMIT = "GRAPH_RECURSION_LIMIT"
    INVALID_CONCURRENT_GRAPH_UPDATE = "INVALID_CONCURRENT_GRAPH_UPDATE"
    INVALID_GRAPH_NODE_RETURN_VALUE = "INVALID_GRAPH_NODE_RETURN_VALUE"
    MULTIPLE_SUBGRAPHS = "MULTIPLE_SUBGRAPHS"
    INVALID_CHAT_HISTORY = "INVALID_CHAT_HISTORY"


class GraphInterrupt(GraphBubbleUp):
    """Raised inside a node by `interrupt()` to pause the run; the engine catches it.

    A node must let it propagate: catching it (`except Exception`) swallows the pause.
    """

    def __init__(self, interrupts: Sequence[object] = ()) -> None:
        self.interrupts = tuple(interrupts)
        super().__init__(self.interrupts)


class InvalidRouteError(ValueError):
    """A router or a Command sent the run somewhere that does not exist."""


class NodeTimeoutError(Exception):
    """An attempt of a node ran past its timeout (`add_node(..., timeout=...)`).

    Not a `TimeoutError` (an OSError), so the default RetryPolicy retries it. `kind` is
    "run" (the hard cap) or "idle" (no progress for `idle_timeout` seconds)."""

    def __init__(self, node: str, elapsed: float, *, kind: str, idle_timeout: float | None = None,
                 run_timeout: float | None = None) -> None:
        self.node, self.elapsed, self.kind = node, elapsed, kind
        self.idle_timeout, self.run_timeout = idle_timeout, run_timeout
        limit = idle_timeout if kind == "idle" else run_timeout
        self.timeout = limit
        what = "idle timeout" if kind == "idle" else "run timeout"
        tail = " without making progress" if kind == "idle" else ""
        super().__init__(f"Node '{node}' exceeded its {what} of {limit:.3f}s{tail} (elapsed: {elapsed:.3f}s).")


class NodeCancelledError(Exception):
    """A node raised `asyncio.CancelledError` itself (nothing cancelled it): reported as the
    node's failure, so the run fails instead of passing over the node as torn down."""

    def __init__(self, node: str, message: str | None = None) -> None:
        self.node = node
        super().__init__(message or f"Node {node!r} raised asyncio.CancelledError itself (nobody cancelled it)")


class NodeExitError(Exception):
    """A node raised `GeneratorExit` itself (a generator's close signal, not an error it
    may raise): reported as the node's failure instead of closing the run's generators."""

    def __init__(self, node: str, exc: BaseException) -> None:
        self.node = node
        super().__init__(f"Node {node!r} raised {type(exc).__name__} itself "
                         "(only a generator being closed may raise it); the node failed")


@dataclass(frozen=True, slots=True)
class NodeError:
    """What a node's error handler is told (`def handler(state, error: NodeError)`):
    the node that failed and the exception it raised."""

    node: str
    error: BaseException


_INVALID_RESUME = "_retrograph_invalid_resume"


def mark_invalid_resume(error: BaseException) -> None:
    """Mark `error` as a resume value that did not fit its interrupt's `response_schema`."""
    setattr(error, _INVALID_RESUME, True)


def is_invalid_resume(error: BaseException) -> bool:
    """Whether `error` is an answer that did not fit its interrupt's `response_schema`
    (interrupt() raises pydantic's ValidationError so marked): not a bad tool argument,
    so ToolNode lets it fail the run and the interrupt can be answered again."""
    return getattr(error, _INVALID_RESUME, False) is True


class MissingCheckpointError(ValueError):
    """Writes for a checkpoint the store does not hold (yet)."""
