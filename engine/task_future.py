"""What calling a functional-API `@task` returns (engine/func.py): a future that gives
its result with `.result()` in sync code and `await` in async code."""
from __future__ import annotations

import asyncio
from typing import Any, Generic, TypeVar

__all__ = ["TaskFuture"]

T = TypeVar("T")


class TaskFuture(Generic[T]):
    """What calling a task returns: `.result()` in sync code, `await` in async code."""

    def __init__(self, *, value: Any = None, error: BaseException | None = None,
                 pending: asyncio.Future[T] | None = None) -> None:
        self._value, self._error, self._pending = value, error, pending

    def done(self) -> bool:
        return self._pending is None or self._pending.done()

    def result(self, timeout: float | None = None) -> T:
        if self._pending is not None:
            if not self._pending.done():
                raise RuntimeError("this task is async and still running: `await` its future instead of .result()")
            return self._pending.result()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[no-any-return]

    def exception(self) -> BaseException | None:
        if self._pending is not None:
            return self._pending.exception() if self._pending.done() else None
        return self._error

    def cancel(self) -> bool:
        """Cancel an async task call still running (its result is never saved, so a resumed
        entrypoint runs it again); False when it already ended or ran synchronously."""
        return self._pending is not None and self._pending.cancel()

    def cancelled(self) -> bool:
        return self._pending is not None and self._pending.cancelled()

    def __await__(self) -> Any:
        if self._pending is not None:
            return self._pending.__await__()
        return _ready(self).__await__()


async def _ready(future: TaskFuture[Any]) -> Any:
    return future.result()
