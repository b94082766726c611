"""One read protocol for every checkpoint store, Retrograph's or LangGraph's, and
`open_store(path_or_url)` that recognises which one a file or database holds.

The studio and `retrograph history` read through `CheckpointStore` only: threads, a
thread's checkpoint namespaces (the root graph "" and its subgraphs), headers newest
first, one checkpoint with its values, its pending writes. Every store answers with the
engine's records (`ThreadInfo`, `CheckpointHeader`, `Checkpoint`, `PendingWrite`).
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

from ..errors import CheckpointDecodeError, CheckpointError, NotARetrographDatabase
from .base import BaseCheckpointSaver, Checkpoint, CheckpointHeader, PendingWrite, ThreadInfo, ns_thread_key
from .postgres_schema import connect_error, has_retrograph_tables, is_postgres_url, safe_url

__all__ = ["CheckpointStore", "OwnStore", "open_store", "is_postgres_url", "describe_target", "skipping"]


def skipping(lister: Any, on_unreadable: Any) -> dict[str, Any]:
    """The keyword arguments that make `lister.list_headers(...)` / `lister.history(...)` skip
    a checkpoint whose row cannot be decoded, telling `on_unreadable(checkpoint_id, reason)`,
    instead of failing the whole listing: `{}` for a store that cannot (it still raises).
    Retrograph's SQLite files can (a damaged row is the usual culprit there)."""
    return {"on_unreadable": on_unreadable} if getattr(lister, "skips_unreadable", False) is True else {}


@runtime_checkable
class CheckpointStore(Protocol):
    """What a store answers to a reader (the studio, `retrograph history`)."""

    read_only: bool
    kind: str

    def describe(self) -> str: ...

    def threads(self) -> list[ThreadInfo]: ...

    def namespaces(self, thread_id: str) -> list[str]: ...

    def list_headers(self, thread_id: str, *, before: str | None = None, limit: int | None = None,
                     checkpoint_ns: str = "") -> Iterator[CheckpointHeader]: ...

    def load(self, thread_id: str, checkpoint_id: str | None = None, *, checkpoint_ns: str = "") -> Checkpoint | None: ...

    def pending_writes(self, thread_id: str, checkpoint_id: str, *, checkpoint_ns: str = "") -> list[PendingWrite]: ...

    def close(self) -> None: ...


class OwnStore:
    """A Retrograph saver seen through the read protocol (its checkpoints are the root
    graph's; `saver` is there for the studio to run on)."""

    read_only = False

    def __init__(self, saver: BaseCheckpointSaver, kind: str, where: str) -> None:
        self.saver, self.kind, self._where = saver, kind, where

    def describe(self) -> str:
        return f"{self.kind} {self._where}"

    def __repr__(self) -> str:
        return f"OwnStore({self.saver!r})"

    def threads(self) -> list[ThreadInfo]:
        return self.saver.threads()

    def namespaces(self, thread_id: str) -> list[str]:
        return ["", *self.saver.namespaces(thread_id)]

    @property
    def skips_unreadable(self) -> bool:
        return getattr(self.saver, "skips_unreadable", False) is True

    def list_headers(self, thread_id: str, *, before: str | None = None, limit: int | None = None,
                     checkpoint_ns: str = "", **skip: Any) -> Iterator[CheckpointHeader]:
        """`**skip`: what `skipping(self, ...)` gives (nothing else is taken)."""
        if set(skip) - {"on_unreadable"}:
            raise TypeError(f"list_headers() got unexpected keyword arguments: {sorted(set(skip) - {'on_unreadable'})}")
        return self.saver.list_headers(ns_thread_key(thread_id, checkpoint_ns), before=before, limit=limit, **skip)

    def load(self, thread_id: str, checkpoint_id: str | None = None, *, checkpoint_ns: str = "") -> Checkpoint | None:
        return self.saver.load(ns_thread_key(thread_id, checkpoint_ns), checkpoint_id)

    def pending_writes(self, thread_id: str, checkpoint_id: str, *, checkpoint_ns: str = "") -> list[PendingWrite]:
        return self.saver.pending_writes(ns_thread_key(thread_id, checkpoint_ns), checkpoint_id)

    def get_many(self, thread_id: str, ids: list[str], *, checkpoint_ns: str = "") -> dict[str, Any]:
        """Checkpoints `ids` with their values (one that cannot be decoded: its
        CheckpointDecodeError), read together where the saver can (PostgreSQL: two
        queries a page), else one by one."""
        key = ns_thread_key(thread_id, checkpoint_ns)
        many = getattr(self.saver, "get_many", None)
        if callable(many):
            return dict(many(key, ids))
        out: dict[str, Any] = {}
        for cid in ids:
            try:
                found = self.saver.load(key, cid)
            except CheckpointDecodeError as e:
                out[cid] = e
                continue
            if found is not None:
                out[cid] = found
        return out

    def close(self) -> None:
        self.saver.close()

    def __enter__(self) -> OwnStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def describe_target(target: Any) -> str:
    return safe_url(target) if is_postgres_url(target) else os.fspath(target)


def open_store(target: str | os.PathLike[str]) -> Any:
    """The store at `target` (a file path or a postgresql:// URL), read through
    `CheckpointStore`: a Retrograph SQLite file or PostgreSQL tables (`OwnStore`), or
    LangGraph's SQLite file or PostgreSQL tables (read-only readers). Raises the engine's
    CheckpointError kinds with a message naming the target and what to do."""
    if is_postgres_url(target):
        return _open_postgres(str(target))
    path = os.fspath(target)
    if not os.path.exists(path):
        raise CheckpointError(f"`{path}`: no such file. Give a checkpoint file or a postgresql:// URL.")
    if os.path.isdir(path):
        raise CheckpointError(f"`{path}` is a folder, not a checkpoint file.")
    if not os.path.isfile(path):  # reading a pipe's header would wait forever
        raise CheckpointError(f"`{path}` is not a regular file (a device, a pipe or a socket), so it is not a "
                              "checkpoint file. Check the path.")
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError as e:
        raise CheckpointError(f"Cannot read `{path}`: {e}") from None
    if not head.startswith(b"SQLite format 3\x00"):
        raise NotARetrographDatabase(
            f"`{path}` is not a SQLite database (it starts with {head[:16]!r}), so it is not a Retrograph "
            "checkpoint file, nor a LangGraph one. Check the path."
        )
    from .sqlite_schema import APPLICATION_ID

    if len(head) == 100 and int.from_bytes(head[68:72], "big") == APPLICATION_ID:
        from .sqlite import SqliteSaver

        # read-only until something is written (a run the user starts), so opening a file
        # to look at it changes no byte and checkpoints no foreign -wal into it
        return OwnStore(SqliteSaver(path, read_only="until_write"), "Retrograph SQLite file", path)
    from .foreign.langgraph_sqlite import LangGraphSqliteReader, is_langgraph_sqlite, open_readonly

    try:
        conn = open_readonly(path)
        try:
            langgraph = is_langgraph_sqlite(conn)
            tables = sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
        finally:
            conn.close()
    except Exception as e:  # sqlite3.Error: corrupt, truncated, encrypted...
        raise CheckpointError(f"`{path}` cannot be read as SQLite ({e}). Nothing was changed.") from None
    if not langgraph:
        raise NotARetrographDatabase(
            f"`{path}` is a SQLite database but not a Retrograph checkpoint file, nor a LangGraph one "
            f"(its tables: {', '.join(tables[:8]) or 'none'}). Nothing was changed."
        )
    return LangGraphSqliteReader(path)


def _exists(conn: Any, table: str) -> bool:
    """Whether `table` (a name of ours, never the user's) holds a row."""
    row = conn.execute(f"SELECT EXISTS (SELECT 1 FROM {table})").fetchone()
    return row is not None and bool(row[0])


def _open_postgres(url: str) -> Any:
    try:
        import psycopg
    except ImportError:
        raise CheckpointError(
            "Reading PostgreSQL needs psycopg 3: pip install 'retrograph[postgres]'"
        ) from None
    from .foreign.langgraph_postgres import LangGraphPostgresReader, has_langgraph_tables

    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
            ours = has_retrograph_tables(conn)
            theirs = has_langgraph_tables(conn)
            if ours and theirs:  # both: the one that holds checkpoints
                ours = _exists(conn, "retrograph_checkpoints") or not _exists(conn, "checkpoints")
    except psycopg.Error as e:
        raise connect_error(url, e) from None
    if ours:
        from .postgres import PostgresSaver

        return OwnStore(PostgresSaver(url), "Retrograph PostgreSQL", safe_url(url))
    if theirs:
        return LangGraphPostgresReader(url)
    raise NotARetrographDatabase(
        f"`{safe_url(url)}` holds no checkpoints: neither Retrograph's tables (retrograph_checkpoints) nor "
        "LangGraph's (checkpoints, checkpoint_blobs, checkpoint_writes). Check the database name and "
        "search_path (options=-csearch_path=SCHEMA)."
    )
