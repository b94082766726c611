"""Reading the checkpoint database off the UI thread.

`CheckpointReader` owns one worker thread and its own connection to the store (opened on
that thread): a Retrograph SQLite file or PostgreSQL database, or LangGraph's own SQLite
file or PostgreSQL tables (read-only; see engine.checkpoint.reading), so listing 100,000 headers or decoding a big state never blocks the
window, and reads see a consistent snapshot while the run (or another process) writes
through another connection. Only reads go through here; the run writes through the
session's saver on the UI thread, one small transaction per superstep.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["CheckpointReader", "open_saver", "db_target", "store_label", "store_read_only"]

T = TypeVar("T")


def db_target(target: str | Path) -> str | Path:
    """A postgresql:// URL stays text; anything else is a file path."""
    from engine.checkpoint.reading import is_postgres_url

    return str(target) if is_postgres_url(str(target)) else Path(target)


def open_saver(target: str | Path, *, browse: bool = False) -> Any:
    """The store at `target`. To run graphs (`browse=False`): Retrograph's saver, SQLite or
    PostgreSQL (its tables are created beside any others). To browse: whatever the target
    holds, Retrograph's or LangGraph's (read-only). Raises the engine's CheckpointError kinds."""
    from engine.checkpoint.reading import OwnStore, is_postgres_url, open_store
    from engine.errors import NotARetrographDatabase

    if not browse:
        from engine.checkpoint import PostgresSaver, SqliteSaver

        return PostgresSaver(str(target)) if is_postgres_url(str(target)) else SqliteSaver(str(target))
    if not is_postgres_url(str(target)) and (not Path(target).exists() or Path(target).stat().st_size == 0):
        from engine import SqliteSaver  # a new (or empty) file: created when a run starts

        return SqliteSaver(str(target), read_only="until_write")
    try:
        store = open_store(str(target))
    except NotARetrographDatabase:
        if not is_postgres_url(str(target)):
            raise
        from engine.checkpoint.postgres import PostgresSaver  # a database with no checkpoints yet

        return PostgresSaver(str(target))
    return store.saver if isinstance(store, OwnStore) else store


def store_label(saver: Any) -> str:
    """Which store the window reads, in words ("LangGraph SQLite file x.db (read-only)")."""
    describe = getattr(saver, "describe", None)
    if callable(describe):
        return str(describe())
    from engine.checkpoint.postgres_schema import safe_url

    url = getattr(saver, "url", None)
    if url:
        return f"Retrograph PostgreSQL {safe_url(url)}"
    return f"Retrograph SQLite file {getattr(saver, 'path', '')}"


def store_read_only(saver: Any) -> bool:
    return getattr(saver, "read_only", False) is True  # "until_write": runs may start there


class CheckpointReader:
    """Runs read queries against the database on one dedicated worker thread."""

    def __init__(self, path: str | Path, *, types: Iterable[type] = (), browse: bool = False) -> None:
        self.path = db_target(path)
        self.browse = browse
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="retrograph-io")
        self._saver: Any = None
        self._types: list[type] = list(types)
        self._closed = False

    def register(self, types: Iterable[type]) -> None:
        """Types of the graph's state schema, so the reader rebuilds them (else inert data)."""
        self._types.extend(t for t in types if t not in self._types)
        if self._saver is not None:
            self._executor.submit(self._register_now)

    def _register_now(self) -> None:
        serde = getattr(self._saver, "serde", None)
        if serde is not None and hasattr(serde, "register") and self._types:
            serde.register(*self._types)

    def _get_saver(self) -> Any:
        if self._saver is None:
            self._saver = open_saver(self.path, browse=self.browse)
            self._register_now()
        return self._saver

    async def call(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(saver, *args)` on the reader's thread."""
        if self._closed:
            raise RuntimeError("the checkpoint reader is closed")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: fn(self._get_saver(), *args))

    async def threads(self) -> list[Any]:
        return await self.call(lambda s: list(s.threads()))

    async def headers(self, thread_id: str, *, limit: int | None = None) -> list[Any]:
        return await self.call(lambda s: list(s.list_headers(thread_id, limit=limit)))

    async def new_headers(self, thread_id: str, known: Callable[[str], bool]) -> list[Any]:
        """Every header of the thread newer than the newest one `known` (newest first):
        a live tail misses nothing, however many checkpoints another process wrote
        between two polls. Reads pages until it meets a known checkpoint."""

        def read(s: Any) -> list[Any]:
            out = []
            for h in s.list_headers(thread_id):
                if known(h.id):
                    break
                out.append(h)
            return out

        return await self.call(read)

    async def triggers(self, thread_id: str, checkpoint_ids: Iterable[str]) -> dict[str, list[tuple[str, str]]]:
        """(task name, trigger) of the tasks each checkpoint planned: why each ran, which
        names its sources (an observed graph's edges without a cross product)."""
        wanted = list(checkpoint_ids)

        def read(s: Any) -> dict[str, list[tuple[str, str]]]:
            out = {}
            for cid in wanted:
                ckpt = s.load(thread_id, cid)
                if ckpt is not None:
                    out[cid] = [(t.name, str(getattr(t, "trigger", "") or "")) for t in ckpt.tasks]
            return out

        return await self.call(read)

    async def checkpoint(self, thread_id: str, checkpoint_id: str | None = None) -> Any:
        return await self.call(lambda s: s.load(thread_id, checkpoint_id))

    async def checkpoint_and_parent(self, thread_id: str, checkpoint_id: str) -> tuple[Any, Any, list[Any]]:
        """A checkpoint, its parent (None when unreadable) and its pending writes, in one
        trip to the thread."""

        def read(s: Any) -> tuple[Any, Any, list[Any]]:
            from engine.errors import CheckpointDecodeError

            ckpt = s.load(thread_id, checkpoint_id)
            try:  # a damaged parent (skipped by the timeline) leaves the diff without a "before"
                parent = s.load(thread_id, ckpt.parent_id) if ckpt is not None and ckpt.parent_id else None
            except CheckpointDecodeError:
                parent = None
            pending = list(s.pending_writes(thread_id, checkpoint_id)) if ckpt is not None else []
            return ckpt, parent, pending

        return await self.call(read)

    def close(self, *, wait: bool = True) -> None:
        """Close the connection on its own thread, then stop the thread."""
        if self._closed:
            return
        self._closed = True

        def shut() -> None:
            if self._saver is not None:
                try:
                    self._saver.close()
                finally:
                    self._saver = None

        self._executor.submit(shut)
        self._executor.shutdown(wait=wait)
