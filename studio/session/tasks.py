"""The session's background work besides commands: views (reading checkpoints) and loads
(importing a graph file), as asyncio tasks on the qasync loop.

A newer view replaces one still loading; a load is never cancelled by a view (the view
runs after it), and stepping commands wait for a load before they start.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from studio.core.records import ErrorReport

from .presenter import Presenter

__all__ = ["ViewTasks"]

log = logging.getLogger(__name__)


class ViewTasks:
    """The view task and the load task (a load also stands as the view task)."""

    def __init__(self, presenter: Presenter) -> None:
        self.presenter = presenter
        self._view: asyncio.Task[Any] | None = None
        self._load: asyncio.Task[Any] | None = None

    @property
    def idle(self) -> bool:
        """No view or load in flight (what a window waits for before it is "ready")."""
        return self._view is None or self._view.done()

    def schedule(self, coro: Awaitable[Any]) -> None:
        """Run a viewing coroutine; a newer one replaces one still loading (but never
        cancels a graph file's import: the view runs after it)."""
        task = self._view
        if task is not None and not task.done() and task is not self._load:
            task.cancel()
        self._view = asyncio.ensure_future(self._viewing(coro))

    def schedule_if_idle(self, make: Callable[[], Awaitable[Any]]) -> bool:
        """Run `make()` as the view unless one is in flight (then nothing is started)."""
        if not self.idle:
            return False
        self._view = asyncio.ensure_future(make())
        return True

    async def _viewing(self, coro: Awaitable[Any]) -> None:
        try:
            await self.wait_for_load()
            await coro
        except asyncio.CancelledError:
            pass
        except Exception as exc:
            log.debug("viewing failed", exc_info=True)
            self.presenter.set_error(ErrorReport(kind="database", title="Could not read the checkpoint",
                                               message=f"{type(exc).__name__}: {exc}"))

    def start_load(self, coro: Awaitable[Any]) -> None:
        """Run `coro` (an import, then whatever needs the graph) as the load task, after
        any load still running; it also stands as the view task, so "ready" waits for it."""
        previous = self._load

        async def load() -> None:
            if previous is not None and not previous.done():
                await asyncio.wait({previous})
            await self._viewing(coro)

        view = self._view
        if view is not None and view is not previous and not view.done():
            view.cancel()  # a view of the old graph: no longer wanted
        self._load = self._view = asyncio.ensure_future(load())
        self.presenter.state.status = "loading"
        self.presenter.emit_status()

    async def wait_for_load(self) -> None:
        """Let a load in flight finish first (never cancelling it from here)."""
        task = self._load
        if task is not None and not task.done() and task is not asyncio.current_task():
            await asyncio.shield(task)

    def cancel(self) -> None:
        for task in (self._view, self._load):
            if task is not None and not task.done():
                task.cancel()
