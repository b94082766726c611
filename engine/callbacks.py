"""Graph lifecycle callbacks: a handler told when a run pauses on interrupts and when it resumes.

A `GraphCallbackHandler` in a call's `callbacks` (a list or a LangChain callback manager)
gets `on_interrupt(GraphInterruptEvent)` when the run stops on `interrupt()` and
`on_resume(GraphResumeEvent)` when a run resumes with `Command(resume=...)`. They are
views of the Run's own events (RunInterrupted, RunStarted); other LangChain handlers
are not called for them. A handler that raises is logged and the run goes on, unless
the handler has `raise_error = True`: then the call raises its error. A handler's
methods may be coroutines; they are awaited before the call returns.
"""
from __future__ import annotations

import inspect
import logging
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .runtime.events import RunEvent, RunInterrupted, RunStarted
from .types import Interrupt

if TYPE_CHECKING:
    from .runtime.protocols import RunHandle

__all__ = ["GraphCallbackHandler", "GraphInterruptEvent", "GraphResumeEvent", "GraphLifecycleStatus",
           "GraphLifecycle"]

log = logging.getLogger(__name__)

GraphLifecycleStatus = Literal["interrupt_before", "interrupt_after", "interrupted", "input", "pending", "done"]

try:  # LangChain's handler base, so a callback manager accepts the handler among its others
    from langchain_core.callbacks import BaseCallbackHandler as _Base
except ImportError:  # pragma: no cover - the engine without langchain-core
    _Base = object  # type: ignore[misc, assignment, unused-ignore]


@dataclass(frozen=True)
class GraphInterruptEvent:
    """The run paused for `interrupts`, at checkpoint `checkpoint_id` of `checkpoint_ns`."""

    run_id: uuid.UUID | None
    status: GraphLifecycleStatus
    checkpoint_id: str
    checkpoint_ns: tuple[str, ...]
    interrupts: tuple[Interrupt, ...]


@dataclass(frozen=True)
class GraphResumeEvent:
    """The run resumed from checkpoint `checkpoint_id` of `checkpoint_ns`."""

    run_id: uuid.UUID | None
    status: GraphLifecycleStatus
    checkpoint_id: str
    checkpoint_ns: tuple[str, ...]


class GraphCallbackHandler(_Base):  # type: ignore[misc, valid-type, unused-ignore]
    """Subclass it and override `on_interrupt` / `on_resume` (sync or async)."""

    raise_error: bool = False

    def on_interrupt(self, event: GraphInterruptEvent) -> Any:
        return None

    def on_resume(self, event: GraphResumeEvent) -> Any:
        return None


def graph_handlers(callbacks: Any) -> list[GraphCallbackHandler]:
    """The GraphCallbackHandlers among a config's `callbacks` (a list or a manager)."""
    if callbacks is None:
        return []
    handlers = callbacks if isinstance(callbacks, Sequence) else getattr(callbacks, "handlers", ())
    out: list[GraphCallbackHandler] = []
    for handler in handlers:
        if isinstance(handler, GraphCallbackHandler) and handler not in out:
            out.append(handler)
    return out


class GraphLifecycle:
    """Subscribed to a Run: calls the handlers' lifecycle methods from its events."""

    def __init__(self, handlers: list[GraphCallbackHandler], run_id: Any) -> None:
        self.handlers = handlers
        self.run_id = run_id if isinstance(run_id, uuid.UUID) else None
        self.pending: list[tuple[GraphCallbackHandler, Any]] = []
        self.error: BaseException | None = None

    @classmethod
    def attach(cls, run: RunHandle, config: Mapping[str, Any] | None) -> GraphLifecycle | None:
        handlers = graph_handlers((config or {}).get("callbacks"))
        if not handlers:
            return None
        lifecycle = cls(handlers, (config or {}).get("run_id"))
        run.subscribe(lifecycle)
        return lifecycle

    @staticmethod
    def _ns(event: RunEvent) -> tuple[str, ...]:
        return tuple(event.checkpoint_ns.split("|")) if event.checkpoint_ns else ()

    def __call__(self, event: RunEvent) -> None:
        if event.namespace:  # a subgraph's own events: the graph the caller ran reports
            return
        if isinstance(event, RunInterrupted) and event.reason == "interrupt" and event.interrupts:
            payload: Any = GraphInterruptEvent(self.run_id, "interrupted", event.checkpoint_id,
                                               self._ns(event), tuple(event.interrupts))
            self._call("on_interrupt", payload)
        elif isinstance(event, RunStarted) and event.mode == "resume":
            self._call("on_resume", GraphResumeEvent(self.run_id, "pending", event.checkpoint_id, self._ns(event)))

    def _call(self, method: str, payload: Any) -> None:
        for handler in self.handlers:
            try:
                result = getattr(handler, method)(payload)
            except Exception as exc:
                self._failed(handler, method, exc)
                continue
            if inspect.isawaitable(result):
                self.pending.append((handler, result))

    def _failed(self, handler: GraphCallbackHandler, method: str, exc: BaseException) -> None:
        if getattr(handler, "raise_error", False):
            if self.error is None:
                self.error = exc
            return
        log.warning("%s.%s raised %r (the run goes on; set raise_error=True to stop it)",
                    type(handler).__name__, method, exc)

    async def flush(self) -> None:
        """Await the handlers' coroutines; raise the error of a `raise_error` handler."""
        pending, self.pending = self.pending, []
        for handler, awaitable in pending:
            try:
                await awaitable
            except Exception as exc:
                self._failed(handler, "callback", exc)
        if self.error is not None:
            error, self.error = self.error, None
            raise error
