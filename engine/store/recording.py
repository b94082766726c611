"""RecordingStore: a store that notes who wrote what, for a debugger.

Wraps any store; every put and delete that reaches it is passed on unchanged and recorded
as a `StoreWrite`: the node and task that made it (from the running task's context), the
namespace, key and value. A debugger maps a task id to its superstep through the run's
history. Reads are not recorded. The record keeps the newest `limit` writes.
"""
from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..runtime.context import current_task
from .base import BaseStore
from .ops import Op, PutOp, Result
from .ttl import current

__all__ = ["RecordingStore", "StoreWrite"]


@dataclass(frozen=True, kw_only=True)
class StoreWrite:
    """One put (value) or delete (value None) a node made to the store."""

    node: str | None
    task_id: str | None
    step: int | None
    """The superstep the writing task ran in (its run's last committed step + 1)."""
    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any] | None
    ttl: float | None
    at: datetime

    @property
    def kind(self) -> str:
        return "delete" if self.value is None else "put"


class RecordingStore(BaseStore):
    """`inner` with its writes recorded (`writes()`); everything else is `inner`'s."""

    def __init__(self, inner: BaseStore, *, limit: int = 10_000) -> None:
        self.inner = inner
        self.supports_ttl = inner.supports_ttl
        self.ttl_config = inner.ttl_config
        self._writes: deque[StoreWrite] = deque(maxlen=limit)
        self._lock = threading.Lock()

    def _note(self, ops: list[Op]) -> None:
        task = current_task.get()
        at = current()
        done = getattr(task.run, "step", None) if task is not None else None
        step = done + 1 if isinstance(done, int) else None
        found = [StoreWrite(node=task.name if task else None, task_id=task.task_id if task else None, step=step,
                            namespace=tuple(op.namespace), key=op.key,
                            value=dict(op.value) if op.value is not None else None, ttl=op.ttl, at=at)
                 for op in ops if isinstance(op, PutOp)]
        if found:
            with self._lock:
                self._writes.extend(found)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        results = self.inner.batch(ops)
        self._note(ops)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        results = await self.inner.abatch(ops)
        self._note(ops)
        return results

    def writes(self) -> list[StoreWrite]:
        """The recorded writes, oldest first."""
        with self._lock:
            return list(self._writes)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"RecordingStore({self.inner!r})"
