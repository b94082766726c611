"""`PostgresSaver`: checkpoints in a PostgreSQL database, for runs spread over processes
and machines (psycopg 3, a psycopg_pool pool; many checkpoints read by pages: postgres_history).
One statement, hence one transaction, per superstep: the checkpoint row and its changed
values go in together (a data-modifying CTE), so a crash leaves either all of it or none.
Under durability="async", when the run's writer falls behind, the saves waiting in its queue go in one transaction, sent
as one pipeline (`engine_save_many`): every checkpoint is still stored, in order. Values are the serializer's bytes (never pickles). An appended list is stored as its new items naming the version it
extends, the same segment storage as the SQLite store, so size grows with what changed.

The saver remembers what it stored for the last checkpoints it wrote, so a put usually reads
nothing back; another process writing the same database is always safe (ids are unique per
thread, the order of puts is the database's sequence).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
import builtins
from typing import Any, NamedTuple, cast

import orjson

from ..errors import CheckpointDecodeError, CheckpointError
from .base import NS_SEP, BaseCheckpointSaver, Checkpoint, CheckpointHeader, PendingWrite, ThreadInfo
from .encoding import dumps_extras, encode_writes, exists_error, join_list_segments, loads_extras, no_checkpoint_error
from .jobs import PutJob, SaveJob, WritesJob, save_each
from .postgres_run import Tuples, count_rows
from .postgres_state import StateReads, generic_plans
from .postgres_sql import FIND, FIRST_CHILD, FULL, INFO, INSERT_WRITES, LOAD, PUT_SQL, ROW, VALUE_COLUMNS, put_many
from .postgres_conns import OneConnection, PerCallConnections, migrate_pending_sends
from .postgres_schema import MIGRATIONS, connect_error, ensure_schema, is_postgres_url, safe_url
from .serde import DEFAULT_MAX_BYTES, TAG_BYTES, Serializer
from .serde_typed_store import store_serializer
from .transactions import postgres_maintenance
from .storage_plan import ABSENT, APPEND, INLINE, LIST, UNCHANGED, VALUE, ListBase, plan_storage, relied_on

__all__ = ["PostgresSaver"]

_MB = 1024 * 1024
_VALUE, _LIST, _APPEND = 0, 1, 2
_INLINE = 256  # a changed value this small (not a list) is kept in its checkpoint's row
_MAX_CHAIN = 1_000_000  # appends followed back from one version; a cycle in a tampered table stops here

class _Info(NamedTuple):
    """What a put needs to know of a stored value (a `INFO` row, or one it stored)."""

    version: str
    kind: int  # _VALUE, _LIST or _APPEND
    count: Any  # items of a list (None for a value)
    size: int
    tagged: bool


class _Row(NamedTuple):
    """A checkpoint row read with `ROW` (the header) or `FULL` (all of it)."""

    seq: int
    id: Any
    parent_id: Any
    step: Any
    source: Any
    created_at: Any
    next: Any
    nodes_ran: Any
    versions: Any = None
    extras: Any = None


class _Part(NamedTuple):
    """One stored piece of a channel's value, a `LOAD` row: a value, or the list and
    the appends on it (depth 0 the newest)."""

    channel: str
    depth: int
    kind: int
    data: Any
    size: int
    tagged: bool | None


_NO_INFO = _Info("", _VALUE, None, 0, False)


def _list_base(info: _Info) -> ListBase | None:
    """What an append needs of a stored version (None: not a list)."""
    return ListBase(info.count, info.size, bool(info.tagged)) if info.kind != _VALUE else None


class PostgresSaver(StateReads, BaseCheckpointSaver):
    """Checkpoints in PostgreSQL; safe to share between threads and processes.

    `PostgresSaver("postgresql://user:pw@host:5432/db")`. Creates its `retrograph_*`
    tables on first use. History is listed in the order checkpoints were put, newest
    first; `before` names a checkpoint of the thread (an unknown one lists nothing)."""

    _row_of = staticmethod(lambda raw: _Row(*raw))  # what PageReads and StateReads build rows with
    _part_of, _versions_of = staticmethod(lambda raw: _Part._make(raw)), staticmethod(lambda d: _parse_versions(d))
    _max_chain = _MAX_CHAIN
    MIGRATIONS = MIGRATIONS  # the statements that create the tables (setup() runs them once)
    lists_by_id = True  # LangGraph's list over threads or namespaces: newest id first
    null_seed_is_no_seed = True  # LangGraph's delta channel history on PostgreSQL

    def __init__(
        self,
        conn: Any,
        *,
        serde: Serializer | None = None,
        max_value_bytes: int = DEFAULT_MAX_BYTES,
        pool_size: int = 4,
        pipe: Any = None,
    ) -> None:
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError:  # pragma: no cover - psycopg is a dependency
            raise CheckpointError(
                "PostgresSaver needs psycopg 3 and psycopg_pool: pip install 'retrograph[postgres]'"
            ) from None
        self.serde = store_serializer(serde, max_value_bytes)
        self._psycopg = psycopg
        self._owned = isinstance(conn, str)
        if isinstance(conn, str):
            if not is_postgres_url(conn):
                raise TypeError(f"PostgresSaver takes a postgresql:// URL, a psycopg Connection or a "
                                f"ConnectionPool, not {conn!r}")
            self.url = conn
            try:
                with psycopg.connect(conn, autocommit=True, connect_timeout=10) as first:
                    ensure_schema(Tuples(first), conn)
            except psycopg.Error as e:
                raise connect_error(conn, e) from None
            self._pool: Any = ConnectionPool(
                conn, min_size=1, max_size=max(1, pool_size), open=True, name="retrograph-pg",
                kwargs={"autocommit": True, "prepare_threshold": 2}, configure=generic_plans,
            )
        elif isinstance(conn, (psycopg.Connection, ConnectionPool, PerCallConnections)):  # as LangGraph's saver
            self._pool = OneConnection(conn) if isinstance(conn, psycopg.Connection) else conn
            with self._pool.connection() as given:
                info = given.info
                self.url = f"postgresql://{info.user}@{info.host}:{info.port}/{info.dbname}"
                ensure_schema(Tuples(given), self.url)
        else:
            raise TypeError(f"PostgresSaver takes a postgresql:// URL, a psycopg Connection or a "
                            f"ConnectionPool, not {type(conn).__name__}")
        self.pipe = pipe  # LangGraph's `pipe=`: the caller's pipeline on `conn`, which statements go through
        self._lock = threading.Lock()
        self._pinned = threading.local()  # .conn: this thread's maintenance transaction
        self._known: OrderedDict[tuple[str, str], dict[str, _Info]] = OrderedDict()

    @classmethod
    def from_conn_string(cls, url: str, **kwargs: Any) -> PostgresSaver:
        """`with PostgresSaver.from_conn_string(url) as saver:` (closed at the end)."""
        return cls(url, **kwargs)

    def setup(self) -> None:
        """LangGraph's saver creates its tables here; this one did when it was made."""

    def __repr__(self) -> str:
        return f"PostgresSaver({safe_url(self.url)!r})"

    @contextmanager
    def connection(self) -> Iterator[Any]:
        """A pooled connection giving tuples (the maintenance call's own inside one); ShallowPostgresSaver's too."""
        pinned = getattr(self._pinned, "conn", None)
        if pinned is not None:  # this thread is inside a maintenance call: its transaction
            yield pinned
            return
        if self._pool is None:
            raise CheckpointError(f"{self!r} is closed; create a new saver to use the database")
        pool = self._pool
        try:
            if self._owned:  # autocommit connections of its own: no transaction to end on the way back
                conn = pool.getconn(timeout=30)
                try:
                    yield Tuples(conn)
                finally:
                    pool.putconn(conn)
            else:
                with pool.connection(timeout=30) as conn:
                    yield Tuples(conn)
        except self._psycopg.OperationalError as e:
            raise connect_error(self.url, e) from None

    def maintenance_transaction(self) -> AbstractContextManager[None]:
        """prune, delete_for_runs and copy_thread run in this: one connection and one
        transaction for the whole call (transactions.py), rolled back when it raises."""
        return postgres_maintenance(self._pinned, self.connection, self._forget_all)

    def _forget_all(self) -> None:
        with self._lock:
            self._known.clear()

    def close(self) -> None:
        """Close the pool this saver made (a connection or pool it was given stays open)."""
        pool, self._pool = self._pool, None
        if pool is not None and self._owned:
            pool.close()

    # -- what this saver remembers ---------------------------------------------------------
    def _remember(self, thread_id: str, checkpoint_id: str, info: dict[str, _Info]) -> None:
        with self._lock:
            self._known[(thread_id, checkpoint_id)] = info
            while len(self._known) > 64:
                self._known.popitem(last=False)

    def _recall(self, thread_id: str, checkpoint_id: str | None) -> dict[str, _Info] | None:
        if checkpoint_id is None:
            return None
        with self._lock:
            return self._known.get((thread_id, checkpoint_id))

    def forget_thread(self, thread_id: str) -> None:
        """Drop what is remembered of `thread_id`'s checkpoints (after deleting its rows outside `save`)."""
        with self._lock:
            for key in [k for k in self._known if k[0] == thread_id]:
                del self._known[key]

    # -- writing ---------------------------------------------------------------------------
    def save(self, checkpoint: Checkpoint, *, appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None) -> None:
        sql, params, info = self._prepare_put(checkpoint, appended)
        try:
            with self.connection() as conn:
                conn.execute(sql, params)
        except self._psycopg.errors.UniqueViolation:
            raise exists_error(checkpoint) from None
        except self._psycopg.DataError as e:
            raise CheckpointError(f"{self!r}: checkpoint `{checkpoint.id}` was not stored: {e}") from None
        self._remember(checkpoint.thread_id, checkpoint.id, info)

    def _fetch_unknown(self, c: Checkpoint, appended: Mapping[str, tuple[str, Sequence[Any]]] | None,
                       pmap: Mapping[str, _Info]) -> dict[tuple[str, str], _Info | None]:
        """What is stored of the values this put relies on that the saver does not remember
        (one round trip; None where the database holds none)."""
        needed: dict[tuple[str, str], _Info | None] = {
            pair: None for pair in relied_on(c, appended) if pmap.get(pair[0], _NO_INFO).version != pair[1]
        }
        if needed:
            with self.connection() as conn:
                pairs = list(needed)
                for ch, ver, kind, count, size, tagged in conn.execute(
                    INFO, {"ch": [p[0] for p in pairs], "ver": [p[1] for p in pairs], "t": c.thread_id}
                ):
                    needed[(ch, ver)] = _Info(ver, kind, count, size, tagged)
        return needed

    def _prepare_put(self, c: Checkpoint, appended: Mapping[str, tuple[str, Sequence[Any]]] | None,
                     batch: Mapping[tuple[str, str], dict[str, _Info]] | None = None,
                     ) -> tuple[str, dict[str, Any], dict[str, _Info]]:
        """The statement storing `c`, its parameters, and what to remember once it is
        stored. `batch`: what the puts before it in the same transaction store."""
        own, serde = c.id, self.serde
        recalled = batch.get((c.thread_id, c.parent_id or "")) if batch else None
        if recalled is None:
            recalled = self._recall(c.thread_id, c.parent_id)
        pmap = recalled or {}
        needed = self._fetch_unknown(c, appended, pmap)

        def find(key: str, version: str) -> _Info | None:
            known = pmap.get(key)
            return known if known is not None and known.version == version else needed.get((key, version))

        info: dict[str, _Info] = {}
        rows: list[tuple[str, str | None, int, bytes, Any, int, bool]] = []
        inline: dict[str, str] = {}
        for p in plan_storage(c, appended, serde, find, _list_base, _INLINE):
            kind, key = p.kind, p.key
            if kind == UNCHANGED:
                info[key] = p.held
                continue
            if kind == ABSENT:
                continue
            data = cast(bytes, p.data)
            if kind == INLINE:
                inline[key] = data.decode()
                code = _VALUE
            else:
                code = _VALUE if kind == VALUE else _LIST if kind == LIST else _APPEND
                rows.append((key, p.held.version if kind == APPEND else None, code, data, p.n_items, p.size, p.tagged))
            info[key] = _Info(own, code, p.n_items, p.size, p.tagged)
        extras = dumps_extras(serde, c)
        params: dict[str, Any] = {
            "t": c.thread_id, "id": own, "parent": c.parent_id, "step": c.step, "source": c.source,
            "at": c.created_at, "next": orjson.dumps([t.name for t in c.tasks]), "ran": orjson.dumps(list(c.nodes_ran)),
            "versions": orjson.dumps(dict(c.versions)), "extras": extras,
            "inline": orjson.dumps(inline).decode() if inline else None,
        }
        if rows:
            for i, name in enumerate(VALUE_COLUMNS):
                params[name] = [r[i] for r in rows]
        return PUT_SQL[bool(rows)], params, info

    def _tuple(self, ckpt: Any, with_writes: bool = True, memo: Any = None) -> Any:
        """As LangGraph's PostgreSQL savers: a format-1..3 checkpoint shows its parent's pending sends."""
        return migrate_pending_sends(self, ckpt, super()._tuple(ckpt, with_writes, memo))

    def save_writes(self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite]) -> None:
        sql, params, expected = self._prepare_writes(thread_id, checkpoint_id, writes)
        with self.connection() as conn:
            cur = conn.execute(sql, params)
            if count_rows(cur, sql) != expected:
                raise no_checkpoint_error(thread_id, checkpoint_id)

    def _prepare_writes(self, thread_id: str, checkpoint_id: str,
                        writes: Sequence[PendingWrite]) -> tuple[str, Any, int]:
        """The statement keeping `writes`, its parameters, and the row count it gives when
        the checkpoint is there (no writes: a look-up of the checkpoint)."""
        rows = encode_writes(self.serde, writes)
        if not rows:
            return FIND, (thread_id, checkpoint_id), 1
        return INSERT_WRITES, {
            "t": thread_id, "c": checkpoint_id, "ids": [r[0] for r in rows], "names": [r[1] for r in rows],
            "chs": [r[2] for r in rows], "vals": [r[3] for r in rows],
        }, len(rows)

    def engine_save_many(self, jobs: Sequence[SaveJob]) -> None:
        """Store the saves a durability="async" run queued, in order and in ONE
        transaction sent as a pipeline (one round trip): `PutJob`s and `WritesJob`s. If anything goes wrong, nothing
        of it was committed, and the saves are redone one by one, so those before the
        culprit are stored and its own error is raised (none after it is tried)."""
        cls = type(self)
        if cls.save is not PostgresSaver.save or cls.save_writes is not PostgresSaver.save_writes:
            save_each(self, jobs)  # a subclass's own save or save_writes is called, as inline
            return
        stored: dict[tuple[str, str], dict[str, _Info]] = {}
        try:
            statements: list[tuple[str, Any, int]] = []
            puts: list[dict[str, Any]] = []  # consecutive puts: one statement
            for job in jobs:
                if type(job) is PutJob:
                    c = job.checkpoint
                    _, params, info = self._prepare_put(c, job.appended, stored)
                    stored[(c.thread_id, c.id)] = info
                    puts.append(params)
                    continue
                if puts:
                    statements.append((*put_many(puts), -1))
                    puts = []
                assert type(job) is WritesJob
                sql, params, expected = self._prepare_writes(job.thread_key, job.checkpoint_id, job.writes)
                if (job.thread_key, job.checkpoint_id) in stored:
                    expected = -1  # its checkpoint is stored by this transaction: nothing to check
                statements.append((sql, params, expected))
            if puts:
                statements.append((*put_many(puts), -1))
            with self.connection() as conn:
                conn.execute_many_in_one(statements)
        except Exception:  # noqa: BLE001 - redone one by one, which raises the culprit's own error
            save_each(self, jobs)
            return
        for (thread_id, checkpoint_id), info in stored.items():
            self._remember(thread_id, checkpoint_id, info)

    def delete_thread(self, thread_id: str) -> None:
        keys = [thread_id, *(thread_id + NS_SEP + ns for ns in self.namespaces(thread_id))]
        with self.connection() as conn, conn.transaction():
            for key in keys:  # the thread and its subgraphs' namespaces
                conn.execute("DELETE FROM retrograph_checkpoints WHERE thread_id = %s", (key,))
                conn.execute("DELETE FROM retrograph_values WHERE thread_id = %s", (key,))
                conn.execute("DELETE FROM retrograph_writes WHERE thread_id = %s", (key,))
        for key in keys:
            self.forget_thread(key)

    def namespaces(self, thread_id: str) -> Sequence[str]:
        prefix = thread_id + NS_SEP
        with self.connection() as conn:
            rows = conn.execute(
                "SELECT thread_id FROM retrograph_checkpoints WHERE left(thread_id, %s) = %s"
                " GROUP BY thread_id ORDER BY min(seq)",
                (len(prefix), prefix),
            ).fetchall()
        return [name[len(prefix):] for (name,) in rows]

    # -- reading ---------------------------------------------------------------------------
    def load(self, thread_id: str, checkpoint_id: str | None = None) -> Checkpoint | None:
        with self.connection() as conn:
            if checkpoint_id is None:
                row = conn.execute(
                    f"SELECT {FULL} FROM retrograph_checkpoints WHERE thread_id = %s ORDER BY seq DESC LIMIT 1",
                    (thread_id,),
                ).fetchone()
            else:
                row = conn.execute(
                    f"SELECT {FULL} FROM retrograph_checkpoints WHERE thread_id = %s AND id = %s",
                    (thread_id, checkpoint_id),
                ).fetchone()
            if row is None:
                return None
            row = _Row(*row)
            versions = self._check(row, _parse_versions, row.versions)
            found = [_Part._make(r) for r in conn.execute(LOAD, {
                "t": thread_id, "ch": list(versions), "ver": list(versions.values()), "max_depth": _MAX_CHAIN,
            })] if versions else []
        return self._decode(thread_id, row, versions, found)

    def _decode(self, thread_id: str, row: _Row, versions: dict[str, str], found: list[_Part]) -> Checkpoint:
        step, nodes_ran = self._check(row, _step_and_ran, row)  # (`next` is the plan's, in `extras`)
        cid = row.id
        tasks, barriers, metadata = self._check(row, loads_extras, self.serde, row.extras, cid)
        chains: dict[str, list[_Part]] = {}
        for part in found:
            chains.setdefault(part.channel, []).append(part)
        values = {}
        for key, parts in chains.items():
            if len(parts) > 1:
                parts.sort(key=_depth)
            top = parts[0]
            if top.size > self.serde.max_bytes:
                raise CheckpointDecodeError(
                    f"{self!r}: channel `{key}` of checkpoint `{cid}` takes {top.size / _MB:.1f} MB, over the "
                    f"{self.serde.max_bytes / _MB:.0f} MB limit; it was not loaded. If you trust the database, "
                    "create the saver with `max_value_bytes=...`."
                )
            if top.kind == _VALUE:
                blob = bytes(top.data)
            else:
                if parts[-1].kind != _LIST or any(p.kind != _APPEND for p in parts[:-1]):
                    raise CheckpointDecodeError(
                        f"{self!r}: the stored value of channel `{key}` of checkpoint `{cid}` is missing or "
                        "malformed (the database was edited by hand?)"
                    )
                blob = join_list_segments(bytes(p.data) for p in reversed(parts))
            tagged = top.tagged if top.tagged is not None else TAG_BYTES in blob
            try:
                values[key] = self.serde.loads(blob, plain=not tagged)
            except CheckpointDecodeError as e:
                raise CheckpointDecodeError(f"{self!r}, checkpoint {cid!r}, channel `{key}`: {e}") from None
        return Checkpoint(
            id=cid, thread_id=thread_id, parent_id=row.parent_id, step=step, source=row.source,
            created_at=row.created_at, values=values, versions=versions, barriers=barriers, tasks=tasks,
            nodes_ran=nodes_ran, metadata=metadata,
        )

    def _check(self, row: _Row, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except CheckpointDecodeError as e:
            raise CheckpointDecodeError(f"{self!r}, checkpoint {str(row.id)[:60]!r}: {e}") from None

    def first_child(self, thread_id: str, checkpoint_id: str) -> str | None:
        with self.connection() as conn:  # one read of retrograph_checkpoints_by_parent
            row = conn.execute(FIRST_CHILD, (thread_id, checkpoint_id)).fetchone()
        return str(row[0]) if row is not None else None

    def pending_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        with self.connection() as conn:
            rows = conn.execute(
                "SELECT task_id, task_name, channel, value FROM retrograph_writes"
                " WHERE thread_id = %s AND checkpoint = %s ORDER BY wid",
                (thread_id, checkpoint_id),
            ).fetchall()
        return self._writes_of(checkpoint_id, rows)

    def _pages(self, thread_id: str, before: str | None, limit: int | None, size: int = 200) -> Iterator[_Row]:
        """Header rows newest first, a page per query (a half-read iterator holds no connection)."""
        left = max(limit, 0) if limit is not None else -1
        bound = None
        if before is not None:
            with self.connection() as conn:
                row = conn.execute(
                    "SELECT seq FROM retrograph_checkpoints WHERE thread_id = %s AND id = %s", (thread_id, before)
                ).fetchone()
            if row is None:
                return
            (bound,) = row
        while left != 0:
            page = size if left < 0 else min(left, size)
            with self.connection() as conn:
                rows = conn.execute(
                    f"SELECT {ROW} FROM retrograph_checkpoints WHERE thread_id = %s AND seq < %s"
                    " ORDER BY thread_id DESC, seq DESC LIMIT %s",  # as retrograph_checkpoints_by_thread: read by it
                    (thread_id, bound if bound is not None else 2**63 - 1, page),
                ).fetchall()
            yield from (_Row(*r) for r in rows)
            if len(rows) < page:
                return
            bound, left = _Row(*rows[-1]).seq, (left - len(rows) if left > 0 else left)

    def history(self, thread_id: str, *, before: str | None = None, limit: int | None = None) -> Iterator[Checkpoint]:
        return self._listing(thread_id, (row.id for row in self._pages(thread_id, before, limit, size=100)))

    def list_headers(self, thread_id: str, *, before: str | None = None, limit: int | None = None) -> Iterator[CheckpointHeader]:
        for row in self._pages(thread_id, before, limit):
            yield self._check(row, _header, thread_id, row)

    def threads(self) -> builtins.list[ThreadInfo]:
        with self.connection() as conn:
            rows = conn.execute(
                "SELECT c.thread_id, c.id, c.created_at, n.cnt FROM (SELECT thread_id, max(seq) AS top, count(*) AS cnt"
                " FROM retrograph_checkpoints WHERE strpos(thread_id, chr(31)) = 0"  # a namespace is part of its thread
                " GROUP BY thread_id) AS n JOIN retrograph_checkpoints AS c ON c.seq = n.top"
                " ORDER BY c.created_at DESC, c.seq DESC"
            ).fetchall()
        return [ThreadInfo(thread_id=t, checkpoints=n, latest_id=i, updated_at=at) for t, i, at, n in rows]


def _names(data: Any) -> tuple[str, ...]:
    got = orjson.loads(bytes(data))
    if type(got) is not list or not all(type(s) is str for s in got):
        raise ValueError("not a list of names")
    return tuple(got)


def _header(thread_id: str, row: _Row) -> CheckpointHeader:
    try:
        return CheckpointHeader(
            id=row.id, thread_id=thread_id, parent_id=row.parent_id, step=int(row.step), source=row.source,
            created_at=row.created_at, next=_names(row.next), nodes_ran=_names(row.nodes_ran),
        )
    except (ValueError, TypeError, orjson.JSONDecodeError) as e:
        raise CheckpointDecodeError(f"its record is malformed ({e})") from None


def _step_and_ran(row: _Row) -> tuple[int, tuple[str, ...]]:
    """What a Checkpoint takes of its row's header fields (checked as `_header` does)."""
    try:
        return int(row.step), _names(row.nodes_ran)
    except (ValueError, TypeError, orjson.JSONDecodeError) as e:
        raise CheckpointDecodeError(f"its record is malformed ({e})") from None


def _depth(part: _Part) -> int:
    return part.depth


def _parse_versions(data: Any) -> dict[str, str]:
    try:
        got = orjson.loads(bytes(data))
    except (orjson.JSONDecodeError, TypeError):
        got = None
    if type(got) is not dict or not all(type(v) is str for v in got.values()):
        raise CheckpointDecodeError("its versions record is malformed")
    return got
