"""The SQL of the SQLite and PostgreSQL stores, one logic for both dialects.

Tables are LangGraph's (`store`, `store_vectors`, `store_migrations`; a namespace is its
labels joined by "."), so a store file or database written by LangGraph opens here and
the other way round. Values are JSON text (orjson), never pickled. The store calls
`run_batch` inside one transaction with the vectors already computed, so a batch is
written whole or not at all.

A search's filter is SQL too (sql_filter.py), so it pages in SQL; a filter condition with
no exact SQL form is checked in Python on the rows the rest of the filter lets through. Semantic search ranks in SQL with
pgvector's `<=>` on PostgreSQL; on SQLite the stored vectors are read and cosine is
computed in Python, because this machine's Python cannot load extensions (sqlite-vec).
"""
from __future__ import annotations

import struct
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import orjson

from .base import namespace_matches
from .embed import cosine
from .items import Item, SearchItem, matches_filter
from .sql_filter import SqlFilter, translate
from .ops import GetOp, ListNamespacesOp, MatchCondition, Op, PutOp, Result, SearchOp
from .ttl import current, expiry

__all__ = ["Dialect", "SQLITE", "POSTGRES", "run_batch", "sweep", "encode_puts", "ItemTooLargeError",
           "MAX_ITEM_BYTES", "to_namespace", "from_namespace", "like_prefix", "ItemValueError",
           "NS_MATCH_FUNCTION", "ns_match"]

MAX_ITEM_BYTES = 32 * 1024 * 1024
"""The largest JSON value a SQL store accepts by default (`max_item_bytes=` changes it)."""

_COLUMNS = "prefix, key, value, created_at, updated_at, expires_at, ttl_minutes"


class ItemValueError(ValueError):
    """A value a SQL store cannot keep: not JSON, or too large."""


class ItemTooLargeError(ItemValueError):
    """A value whose JSON passes the store's `max_item_bytes`."""


@dataclass(frozen=True, kw_only=True)
class Dialect:
    """What differs between SQLite and PostgreSQL in the store's SQL."""

    name: str
    placeholder: str
    value_param: str
    value_column: str
    vector_param: str
    score: str = "1 - (v.embedding <=> {q})"
    stamp: Callable[[datetime], Any]
    read_stamp: Callable[[Any], datetime]
    encode_vector: Callable[[list[float]], Any]
    decode_vector: Callable[[Any], list[float]]
    ns_match: str | None = None
    """The SQL function `(prefix, condition JSON) -> 0/1` a suffix or wildcard namespace
    condition is tested with (registered on the store's connection); None: tested in Python."""

    def sql(self, text: str) -> str:
        return text.replace("?", self.placeholder) if self.placeholder != "?" else text


def _sqlite_stamp(at: datetime) -> str:
    return at.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")


def _read_stamp(value: Any) -> datetime:
    at = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return at if at.tzinfo is not None else at.replace(tzinfo=timezone.utc)


def _pack(vec: list[float]) -> bytes:
    return struct.pack(f"<{len(vec)}f", *vec)


def _unpack(blob: Any) -> list[float]:
    if isinstance(blob, (bytes, memoryview)):
        data = bytes(blob)
        return list(struct.unpack(f"<{len(data) // 4}f", data))
    if isinstance(blob, str):
        return [float(x) for x in orjson.loads(blob)]
    return [float(x) for x in blob]


NS_MATCH_FUNCTION = "retrograph_ns_match"
"""The SQLite function the store registers to test a namespace condition in SQL."""


def ns_match(prefix: str, condition: str) -> int:
    """NS_MATCH_FUNCTION: whether the namespace stored as `prefix` meets `condition`
    (JSON `[match_type, [labels]]`, "*" any one label)."""
    match_type, path = orjson.loads(condition)
    return int(namespace_matches(to_namespace(prefix), (MatchCondition(match_type=match_type, path=tuple(path)),)))


SQLITE = Dialect(name="sqlite", placeholder="?", value_param="?", value_column="value", vector_param="?",
                 stamp=_sqlite_stamp, read_stamp=_read_stamp, encode_vector=_pack, decode_vector=_unpack,
                 ns_match=NS_MATCH_FUNCTION)
POSTGRES = Dialect(name="postgres", placeholder="%s", value_param="%s::jsonb", value_column="value::text",
                   vector_param="%s::vector", stamp=lambda at: at, read_stamp=_read_stamp,
                   encode_vector=lambda v: "[" + ",".join(repr(float(x)) for x in v) + "]",
                   decode_vector=_unpack)


def to_namespace(prefix: str) -> tuple[str, ...]:
    return tuple(prefix.split("."))


def from_namespace(namespace: Sequence[str]) -> str:
    return ".".join(namespace)


def like_prefix(namespace: Sequence[str]) -> str:
    """A LIKE pattern (escape "\\") for the namespaces under `namespace`."""
    text = from_namespace(namespace)
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + ".%"


def encode_puts(ops: Sequence[Op], max_bytes: int) -> dict[int, str]:
    """The JSON of each put's value by position; raises before anything is written."""
    out: dict[int, str] = {}
    for i, op in enumerate(ops):
        if not isinstance(op, PutOp) or op.value is None:
            continue
        where = f"{op.namespace!r}/{op.key!r}"
        try:
            text = orjson.dumps(dict(op.value)).decode()
        except TypeError as exc:
            raise ItemValueError(f"store value at {where} is not JSON ({exc}); store plain data: "
                                 "dicts, lists, strings, numbers, booleans, None") from None
        if len(text) > max_bytes:
            raise ItemTooLargeError(f"store value at {where} is {len(text):,} bytes of JSON, more than this "
                                    f"store's max_item_bytes={max_bytes:,}; store less, or split it over keys")
        out[i] = text
    return out


class _Batch:
    """One batch on one cursor: the operations in order, each answered."""

    def __init__(self, cur: Any, d: Dialect, indexed: bool, ranked_in_sql: bool, omit_expired: bool = True) -> None:
        self.cur, self.d, self.indexed, self.ranked_in_sql = cur, d, indexed, ranked_in_sql
        self.at = current()
        # ttl={"omit_expired": False}: an expired item is still read until the sweep deletes it (LangGraph's
        # PostgresStore default); by default Retrograph's stores never hand back an expired item
        self.alive = (f"(expires_at IS NULL OR expires_at > {d.placeholder})" if omit_expired
                      else f"({d.placeholder} IS NOT NULL)")

    def q(self, text: str, params: Sequence[Any] = ()) -> Any:
        self.cur.execute(self.d.sql(text), tuple(params))
        return self.cur

    def _item(self, row: Sequence[Any], namespace: tuple[str, ...] | None = None) -> Item:
        return Item(value=orjson.loads(row[2]), key=row[1], namespace=namespace or to_namespace(row[0]),
                    created_at=self.d.read_stamp(row[3]), updated_at=self.d.read_stamp(row[4]))

    def refresh(self, rows: Sequence[Sequence[Any]]) -> None:
        # in key order: two batches refreshing the same items lock them in one order (no deadlock)
        for row in sorted(rows, key=lambda r: (r[0], r[1])):
            if row[6] is not None:
                self.q("UPDATE store SET expires_at = ? WHERE prefix = ? AND key = ?",
                       (self.d.stamp(expiry(float(row[6]), self.at) or self.at), row[0], row[1]))

    def get(self, op: GetOp) -> Item | None:
        prefix = from_namespace(op.namespace)
        rows = self.q(f"SELECT prefix, key, {self.d.value_column}, created_at, updated_at, expires_at, ttl_minutes "
                      f"FROM store WHERE prefix = ? AND key = ? AND {self.alive}",
                      (prefix, op.key, self.d.stamp(self.at))).fetchall()
        if not rows:
            return None
        if op.refresh_ttl:
            self.refresh(rows)
        return self._item(rows[0], tuple(op.namespace))

    def put(self, op: PutOp, text: str | None, vectors: list[tuple[str, list[float]]]) -> None:
        prefix = from_namespace(op.namespace)
        if text is None:
            if self.indexed:
                self.q("DELETE FROM store_vectors WHERE prefix = ? AND key = ?", (prefix, op.key))
            self.q("DELETE FROM store WHERE prefix = ? AND key = ?", (prefix, op.key))
            return
        at = self.d.stamp(self.at)
        expires = expiry(op.ttl, self.at)
        self.q(f"INSERT INTO store ({_COLUMNS}) VALUES (?, ?, {self.d.value_param}, ?, ?, ?, ?) "
               "ON CONFLICT (prefix, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, "
               "expires_at = excluded.expires_at, ttl_minutes = excluded.ttl_minutes",
               (prefix, op.key, text, at, at, self.d.stamp(expires) if expires else None, op.ttl))
        if not self.indexed:
            return
        self.q("DELETE FROM store_vectors WHERE prefix = ? AND key = ?", (prefix, op.key))
        for field, vec in vectors:
            self.q("INSERT INTO store_vectors (prefix, key, field_name, embedding, created_at, updated_at) "
                   f"VALUES (?, ?, ?, {self.d.vector_param}, ?, ?)",
                   (prefix, op.key, field, self.d.encode_vector(vec), at, at))

    def _where(self, prefix: Sequence[str]) -> tuple[str, list[Any]]:
        if not prefix:
            return self.alive, [self.d.stamp(self.at)]
        return (f"(s.prefix = ? OR s.prefix LIKE ? ESCAPE '\\') AND {self.alive}",
                [from_namespace(prefix), like_prefix(prefix), self.d.stamp(self.at)])

    def _rows(self, op: SearchOp, query: list[float] | None,
              found: SqlFilter) -> Iterator[tuple[Sequence[Any], float | None]]:
        where, params = self._where(op.namespace_prefix)
        if found.where is not None:
            where, params = f"{where} AND {found.where}", [*params, *found.params]
        cols = f"s.prefix, s.key, s.{self.d.value_column}, s.created_at, s.updated_at, s.expires_at, s.ttl_minutes"
        if query is None:
            page = f" LIMIT {int(op.limit)} OFFSET {int(op.offset)}" if found.exact else ""
            cur = self.q(f"SELECT {cols} FROM store s WHERE {where} "
                         f"ORDER BY s.updated_at DESC, s.prefix, s.key{page}", params)
            for row in cur.fetchall():
                yield row, None
            return
        if self.ranked_in_sql:
            score = f"MAX({self.d.score.format(q=self.d.vector_param)})"
            cur = self.q(f"SELECT {cols}, {score} AS score FROM store s LEFT JOIN store_vectors v "
                         f"ON v.prefix = s.prefix AND v.key = s.key WHERE {where} "
                         "GROUP BY s.prefix, s.key ORDER BY score DESC NULLS LAST, s.updated_at DESC",
                         [self.d.encode_vector(query), *params])
            for row in cur.fetchall():
                yield row[:7], (float(row[7]) if row[7] is not None else None)
            return
        yield from self._ranked_in_python(cols, where, params, query)

    def _ranked_in_python(self, cols: str, where: str, params: list[Any],
                          query: list[float]) -> Iterator[tuple[Sequence[Any], float | None]]:
        rows = self.q(f"SELECT {cols}, v.embedding FROM store s LEFT JOIN store_vectors v "
                      f"ON v.prefix = s.prefix AND v.key = s.key WHERE {where} ORDER BY s.updated_at DESC",
                      params).fetchall()
        best: dict[tuple[str, str], tuple[Sequence[Any], float | None]] = {}
        for row in rows:
            score = cosine(query, self.d.decode_vector(row[7])) if row[7] is not None else None
            have = best.get((row[0], row[1]))
            if have is None or (score is not None and (have[1] is None or score > have[1])):
                best[(row[0], row[1])] = (row[:7], score)
        yield from sorted(best.values(), key=lambda pair: (pair[1] is None, -(pair[1] or 0.0)))

    def search(self, op: SearchOp, query: list[float] | None) -> list[SearchItem]:
        sql_filter = translate(op.filter, self.d.name)
        exact = sql_filter.exact
        paged_in_sql = query is None and exact
        skip = 0 if paged_in_sql else op.offset
        found: list[tuple[Sequence[Any], float | None]] = []
        for row, score in self._rows(op, query, sql_filter):
            if not exact and not matches_filter(orjson.loads(row[2]), op.filter):
                continue
            if skip:
                skip -= 1
                continue
            found.append((row, score))
            if len(found) >= op.limit:
                break
        if op.refresh_ttl:
            self.refresh([row for row, _ in found])
        out = []
        for row, score in found:
            item = self._item(row)
            out.append(SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score))
        return out

    def _namespace_where(self, op: ListNamespacesOp) -> tuple[str, list[Any]]:
        """The SQL of a list_namespaces' conditions: a plain prefix by `=`/`LIKE` (the
        prefix index serves it), a suffix or a "*" by the dialect's match function."""
        parts, params = [self.alive], [self.d.stamp(self.at)]
        for cond in op.match_conditions or ():
            path = tuple(cond.path)
            if cond.match_type == "prefix" and "*" not in path and path:
                parts.append("(prefix = ? OR prefix LIKE ? ESCAPE '\\')")
                params += [from_namespace(path), like_prefix(path)]
            elif self.d.ns_match is not None:
                parts.append(f"{self.d.ns_match}(prefix, ?) = 1")
                params.append(orjson.dumps([cond.match_type, list(path)]).decode())
        return " AND ".join(parts), params

    def list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        where, params = self._namespace_where(op)
        rows = self.q(f"SELECT DISTINCT prefix FROM store WHERE {where}", params).fetchall()
        out: dict[tuple[str, ...], None] = {}
        for namespace in sorted((to_namespace(r[0]) for r in rows), key=from_namespace):
            if namespace_matches(namespace, op.match_conditions):
                out[namespace[:op.max_depth] if op.max_depth is not None else namespace] = None
        return sorted(out, key=from_namespace)[op.offset:op.offset + op.limit]


def run_batch(cur: Any, d: Dialect, ops: Sequence[Op], texts: dict[int, str],
              vectors: dict[int, list[tuple[str, list[float]]]], queries: dict[int, list[float]],
              *, indexed: bool = False, ranked_in_sql: bool = False, omit_expired: bool = True) -> list[Result]:
    """Answer `ops` on `cur` (the caller holds the transaction): `texts` are the puts' JSON,
    `vectors` their (field, vector) pairs and `queries` the searches' vectors, by position."""
    batch = _Batch(cur, d, indexed, ranked_in_sql, omit_expired)
    results: list[Result] = []
    for i, op in enumerate(ops):
        if isinstance(op, GetOp):
            results.append(batch.get(op))
        elif isinstance(op, PutOp):
            batch.put(op, texts.get(i), vectors.get(i, []))
            results.append(None)
        elif isinstance(op, SearchOp):
            results.append(batch.search(op, queries.get(i)))
        elif isinstance(op, ListNamespacesOp):
            results.append(batch.list_namespaces(op))
        else:
            raise TypeError(f"not a store operation: {op!r:.80}")
    return results


def sweep(cur: Any, d: Dialect, *, indexed: bool) -> int:
    """Delete the expired items (and their vectors); how many items went."""
    at = d.stamp(current())
    if indexed:
        cur.execute(d.sql("DELETE FROM store_vectors WHERE EXISTS (SELECT 1 FROM store s WHERE s.prefix = "
                          "store_vectors.prefix AND s.key = store_vectors.key AND s.expires_at IS NOT NULL "
                          "AND s.expires_at <= ?)"), (at,))
    cur.execute(d.sql("DELETE FROM store WHERE expires_at IS NOT NULL AND expires_at <= ?"), (at,))
    return int(cur.rowcount or 0)
