"""The SQLite checkpoint file: its tables, how it is opened and verified, and what its
errors mean to a user.

Opening never writes to a file that is not Retrograph's: a file that is not SQLite, is
cut short, belongs to another program or to a newer Retrograph is refused untouched. The
schema is created only in an empty file, under a write lock, so two processes opening a
new file at once create it once.
"""
from __future__ import annotations

import os
import sqlite3
import urllib.parse

from ..errors import (
    CheckpointDecodeError,
    CheckpointError,
    NotARetrographDatabase,
    UnsupportedSchemaVersion,
)

__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "N_BITS",
    "N_MASK",
    "open_database",
    "open_read_only",
    "file_stamp",
    "adopt_connection",
    "connection_path",
    "translate_error",
    "missing_value_error",
    "sqlite_verdict",
    "needs_wal",
]

APPLICATION_ID = 0x52477068  # "RGph" in PRAGMA application_id: the file is Retrograph's
SCHEMA_VERSION = 1  # PRAGMA user_version; a newer one is refused, never rewritten

N_BITS = 32
"""A checkpoint's row number is `cid = tid << 32 | n`, n counting the thread's puts, so a
thread's history is one range of the checkpoints table (no extra index to update)."""
N_MASK = (1 << N_BITS) - 1

_SCHEMA = (
    "CREATE TABLE threads(tid INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT NULL UNIQUE)",
    # cid = tid << 32 | n; parent: the parent's cid when in this thread, else its id.
    """CREATE TABLE checkpoints(
        cid INTEGER PRIMARY KEY, tid INTEGER NOT NULL, id TEXT NOT NULL, parent,
        step INTEGER NOT NULL, source TEXT NOT NULL, created_at TEXT NOT NULL,
        next BLOB NOT NULL, nodes_ran BLOB NOT NULL, versions BLOB NOT NULL, extras BLOB, inline BLOB)""",
    "CREATE UNIQUE INDEX checkpoints_by_id ON checkpoints(tid, id)",
    # sid = chain << 20 | seq; every 64 segments of a chain move into one row of chunks.
    "CREATE TABLE segments(sid INTEGER PRIMARY KEY, tid INTEGER NOT NULL, data BLOB NOT NULL)",
    # sid = chain << 20 | j: segments j*64 .. j*64+63 joined; ends: where each one ends.
    "CREATE TABLE chunks(sid INTEGER PRIMARY KEY, tid INTEGER NOT NULL, data BLOB NOT NULL, ends BLOB NOT NULL)",
    "CREATE TABLE origins(chain INTEGER PRIMARY KEY, tid INTEGER NOT NULL, origin INTEGER NOT NULL)",
    """CREATE TABLE writes(
        wid INTEGER PRIMARY KEY, tid INTEGER NOT NULL, checkpoint TEXT NOT NULL,
        task_id TEXT NOT NULL, task_name TEXT NOT NULL, channel TEXT NOT NULL, value BLOB NOT NULL)""",
    "CREATE INDEX writes_by_checkpoint ON writes(tid, checkpoint)",
)
_TABLES = frozenset({"threads", "checkpoints", "segments", "chunks", "origins", "writes"})
_MB = 1024 * 1024


def file_stamp(path: str) -> tuple[bool, bool, int, int]:
    """What changes when another process writes the file: its `-wal`/`-shm`, size and time."""
    try:
        st = os.stat(path)
    except OSError:
        return (False, False, -1, -1)
    return (os.path.exists(path + "-wal"), os.path.exists(path + "-shm"), st.st_size, st.st_mtime_ns)


def open_read_only(path: str, max_bytes: int) -> sqlite3.Connection:
    """A connection to an existing Retrograph file that changes nothing: no schema, no
    `journal_mode`, no checkpointing of a `-wal` into the file, and no `-wal`/`-shm`
    created. Without a `-wal` beside it the file is opened `immutable=1` (the saver
    reopens it when `file_stamp` changes); with one (a live writer), `mode=ro`, which
    reads the WAL and never writes it back."""
    if path == ":memory:" or path.startswith("file:"):
        raise CheckpointError(f"`{path}`: only a file path can be opened read-only")
    if not os.path.isfile(path):
        raise CheckpointError(f"`{path}`: no such file (opening read-only creates nothing).")
    _check_file_header(path)
    if os.path.getsize(path) == 0:
        raise NotARetrographDatabase(
            f"`{path}` is an empty file, not a Retrograph checkpoint file. Retrograph left it untouched."
        )
    # `mode=ro` reads a -wal through its -shm; without the -shm it would create one, so
    # the file alone is read then (a writer's -shm outlives even its crash)
    # (a file whose newest pages are only in its -wal, after a full disk, is read through it
    # all the same: SQLite then makes the -shm, its index, and changes neither file)
    live = os.path.exists(path + "-wal") and (os.path.exists(path + "-shm") or needs_wal(path))
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + ("?mode=ro" if live else "?immutable=1")
    try:
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None, timeout=10.0)
    except sqlite3.Error as e:
        raise CheckpointError(f"Cannot open `{path}` read-only: {e}") from None
    try:
        try:
            conn.execute("PRAGMA query_only = 1")
            app_id, version, tables = _identify(conn)
            _verify(path, app_id, version, tables)
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max_bytes + 1024)
        except sqlite3.Error as e:
            raise translate_error(e, path, max_bytes) from None
    except BaseException:
        conn.close()
        raise
    return conn


def open_database(path: str, max_bytes: int) -> sqlite3.Connection:
    """A connection to a verified Retrograph file (created when new): autocommit (the
    saver opens its own transactions), WAL, `synchronous=NORMAL`, and SQLite refusing to
    hand over any value above `max_bytes`."""
    if path != ":memory:" and not path.startswith("file:"):
        _check_file_header(path)
    try:
        conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10.0)
    except sqlite3.Error as e:
        raise CheckpointError(f"Cannot open `{path}`: {e}. Check that its folder exists and is writable.") from None
    try:
        try:
            _validate_or_create(conn, path)
            if path != ":memory:":
                conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max_bytes + 1024)
        except sqlite3.Error as e:
            raise translate_error(e, path, max_bytes) from None
    except BaseException:
        conn.close()
        raise
    return conn


def connection_path(conn: sqlite3.Connection) -> str:
    """The file behind a connection's main database, or ":memory:"."""
    try:
        for _, name, file in conn.execute("PRAGMA database_list"):
            if name == "main":
                return file or ":memory:"
    except sqlite3.Error:
        pass
    return ":memory:"


def adopt_connection(conn: sqlite3.Connection, max_bytes: int) -> sqlite3.Connection:
    """Use a caller's connection as `open_database` would use its own: the file is
    verified (created when empty), the connection switched to autocommit so the saver
    runs its own transactions. The caller keeps ownership (closing it is theirs)."""
    path = connection_path(conn)
    try:
        if conn.in_transaction:
            conn.commit()
        conn.isolation_level = None
        _validate_or_create(conn, path)
        if path != ":memory:":
            conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max_bytes + 1024)
    except sqlite3.ProgrammingError as e:
        raise CheckpointError(f"SqliteSaver cannot use this sqlite3 connection: {e}") from None
    except sqlite3.Error as e:
        raise translate_error(e, path, max_bytes) from None
    return conn


def _validate_or_create(conn: sqlite3.Connection, path: str) -> None:
    """Check the file is ours and readable; create the schema only in an empty file."""
    app_id, version, tables = _identify(conn)
    if app_id == 0 and not tables:
        conn.execute("BEGIN IMMEDIATE")
        try:
            app_id, version, tables = _identify(conn)  # another process may have been first
            if app_id == 0 and not tables:
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID:d}")
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION:d}")
                app_id, version, tables = APPLICATION_ID, SCHEMA_VERSION, set(_TABLES)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    _verify(path, app_id, version, tables)


def _verify(path: str, app_id: int, version: int, tables: set[str]) -> None:
    """Refuse a file that is not a readable Retrograph file, naming what it is."""
    if app_id != APPLICATION_ID:
        raise NotARetrographDatabase(
            f"`{path}` is a SQLite database but not a Retrograph checkpoint file (its tables: "
            f"{', '.join(sorted(tables)[:8]) or 'none'}). Retrograph left it untouched; choose "
            "another file for checkpoints."
        )
    if version > SCHEMA_VERSION:
        raise UnsupportedSchemaVersion(
            f"`{path}` was written by a newer Retrograph (checkpoint schema {version}; this "
            f"version reads schema {SCHEMA_VERSION} and older). Upgrade Retrograph to open it; "
            "the file was left untouched."
        )
    missing = _TABLES - tables
    if version < 1 or missing:
        raise CheckpointError(
            f"`{path}` is a damaged Retrograph checkpoint file (schema {version}, missing tables: "
            f"{', '.join(sorted(missing)) or 'none'}). Restore it from a backup."
        )


def _identify(conn: sqlite3.Connection) -> tuple[int, int, set[str]]:
    """The file's application id, schema version and tables, read in one snapshot: another
    process creating the schema in between must not make the file look foreign."""
    own_transaction = not conn.in_transaction
    if own_transaction:
        conn.execute("BEGIN")
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        if own_transaction:
            conn.execute("COMMIT")
    tables.discard("sqlite_sequence")
    return app_id, version, tables


def _check_file_header(path: str) -> None:
    """Refuse a file that is not SQLite, or is cut short, before SQLite touches it."""
    if os.path.exists(path) and not os.path.isdir(path) and not os.path.isfile(path):
        raise CheckpointError(  # /dev/null, /dev/zero, a pipe: SQLite cannot keep checkpoints there
            f"`{path}` is not a regular file (a device, a pipe or a socket), so it cannot hold checkpoints. "
            "Give a file path (it is created when missing).")
    try:
        size = os.path.getsize(path)
        if size == 0:
            return
        with open(path, "rb") as f:
            head = f.read(100)
    except FileNotFoundError:
        return
    except OSError as e:
        raise CheckpointError(f"Cannot open `{path}`: {e}") from None
    if not head.startswith(b"SQLite format 3\x00"):
        raise NotARetrographDatabase(
            f"`{path}` is not a SQLite database (it starts with {head[:16]!r}), so it is not a Retrograph "
            "checkpoint file. Check the path; Retrograph left the file untouched."
        )
    page_size = int.from_bytes(head[16:18], "big") if len(head) == 100 else 0
    pages = int.from_bytes(head[28:32], "big")
    expected = pages * (65536 if page_size == 1 else page_size)
    if len(head) < 100 or (head[24:28] == head[92:96] and size < expected):
        if len(head) == 100 and _wal_holds_frames(path):
            # after a full disk the newest pages may be in the -wal only: SQLite decides
            verdict = sqlite_verdict(path)
            if verdict == "ok":
                return
            raise CheckpointError(
                f"`{path}` is damaged ({size} bytes, its header says {expected}; SQLite's quick_check of it "
                f"with its -wal says: {verdict}). Retrograph "
                f"changed nothing; restore it from a backup, or salvage what is left with `sqlite3 {path} .recover`."
            )
        raise CheckpointError(
            f"`{path}` is truncated ({size} bytes; its header says {expected}), and no -wal file beside it "
            f"holds the rest. Retrograph changed nothing; restore it from a backup, or salvage what is left with "
            f"`sqlite3 {path} .recover`."
        )


def _wal_holds_frames(path: str) -> bool:
    """A `-wal` beside the file with at least one frame (past its 32-byte header)."""
    try:
        return os.path.getsize(path + "-wal") > 32
    except OSError:
        return False


def needs_wal(path: str) -> bool:
    """The file's header counts pages the file does not hold, and a -wal beside it has
    frames: read it through the WAL (`mode=ro`), never as the file alone."""
    try:
        with open(path, "rb") as f:
            head = f.read(100)
        size = os.path.getsize(path)
    except OSError:
        return False
    if len(head) < 100:
        return False
    page_size = int.from_bytes(head[16:18], "big")
    expected = int.from_bytes(head[28:32], "big") * (65536 if page_size == 1 else page_size)
    return size < expected and _wal_holds_frames(path)


def sqlite_verdict(path: str) -> str:
    """SQLite's `PRAGMA quick_check` of the file with its -wal, read-only: "ok", or what it
    found. Without a -shm beside them (SQLite would create one) a copy of both is checked."""
    import shutil
    import tempfile

    def check(target: str) -> str:
        uri = "file:" + urllib.parse.quote(os.path.abspath(target)) + "?mode=ro"
        try:
            conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=10.0)
            try:
                rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check(20)")]
            finally:
                conn.close()
        except sqlite3.Error as e:
            return str(e)
        return "; ".join(rows) or "no answer"

    if os.path.exists(path + "-shm"):
        return check(path)
    with tempfile.TemporaryDirectory(prefix="retrograph-check-") as folder:
        copy = os.path.join(folder, "check.sqlite")
        try:
            shutil.copyfile(path, copy)
            shutil.copyfile(path + "-wal", copy + "-wal")
        except OSError as e:
            return f"could not copy it to check it ({e})"
        return check(copy)


def translate_error(e: sqlite3.Error, path: str, max_bytes: int, *, closed: bool = False) -> CheckpointError:
    """SQLite's error as one that names the file and says what to do."""
    text = str(e)
    if isinstance(e, sqlite3.DataError) and "too big" in text:
        return CheckpointDecodeError(
            f"`{path}` holds a stored value larger than the {max_bytes / _MB:.0f} MB "
            "limit; it was not loaded. If you trust the file, open it with "
            "`SqliteSaver(path, max_value_bytes=...)`."
        )
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return CheckpointError(
            f"`{path}` is corrupt or truncated (SQLite: {text}). Retrograph changed nothing; "
            f"restore it from a backup, or salvage what is left with `sqlite3 {path} .recover`."
        )
    if "locked" in text or "busy" in text:
        return CheckpointError(
            f"`{path}` is locked by another process that keeps writing to it; try again when that run ends."
        )
    if closed:
        return CheckpointError(f"SqliteSaver({path!r}) is closed; open the file again to use it")
    if "readonly" in text or "unable to open" in text:  # a read-only file, folder or file system
        return CheckpointError(
            f"`{path}` cannot be written (SQLite: {text}): it, its folder or its file system is read-only, "
            "and saving needs to write it and the `-wal` file beside it. Copy it somewhere writable, "
            f"or browse it without writing: `retrograph open {path}`."
        )
    return CheckpointError(f"`{path}`: {text}")


def missing_value_error(path: str, checkpoint_id: str, key: str) -> CheckpointError:
    """A value the checkpoint's record points to is not in the file."""
    return CheckpointError(
        f"`{path}`: the stored value of channel `{key}` of checkpoint `{checkpoint_id}` is missing (the file "
        "was damaged or edited by hand). Restore it from a backup."
    )
