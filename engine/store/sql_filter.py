"""A search filter as SQL: the `WHERE` part that keeps the items `matches_filter` keeps.

`{"kind": "note", "score": {"$gte": 3}, "meta.lang": "en"}`: each condition becomes a
test on the JSON value (`json_type`/`json_extract` on SQLite, `jsonb_typeof` and `->`
on PostgreSQL), with Python's semantics kept exactly: a string equals only a string, a
number (or a boolean, as `True == 1`) only a number or boolean, `None` an absent key or a
JSON null; `$gt`/`$gte`/`$lt`/`$lte` compare strings with strings (code point order) and
numbers with numbers, anything else is no match; `$ne` is the negation of `$eq` (so an
absent key is `$ne` anything but None). A dotted key reads the literal key when the value
has one, else the nested path, as `value_at` does. So the store pages in SQL (`LIMIT`,
`OFFSET`) and reads only the rows it returns.

A condition with no exact SQL form (a dict or list to compare with, an integer beyond 64
bits) is left to Python: `translate` says the SQL is then only a narrowing, and the store
checks each row it reads against the whole filter.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .items import check_filter, check_operator, is_operator_dict

__all__ = ["SqlFilter", "translate"]

_INT64 = 2**63


@dataclass(frozen=True)
class SqlFilter:
    """`where` (None: no condition), its parameters in order, and whether it is exact."""

    where: str | None
    params: tuple[Any, ...]
    exact: bool


def _scalar_kind(arg: Any) -> str | None:
    """"str", "num", "none", or None for an argument with no exact SQL form."""
    if arg is None:
        return "none"
    if isinstance(arg, str):
        return "str"
    if isinstance(arg, bool):
        return "num"
    if isinstance(arg, int):
        return "num" if -_INT64 <= arg < _INT64 else None
    if isinstance(arg, float):
        return "num" if arg == arg and abs(arg) != float("inf") else None
    return None


class _Sqlite:
    """Conditions on `s.value` (JSON text) at a JSON path given as a parameter."""

    @staticmethod
    def paths(key: str) -> tuple[str, str]:
        literal = '$."' + key + '"'
        return literal, "$" + "".join('."' + part + '"' for part in key.split("."))

    @staticmethod
    def present(path: str) -> tuple[str, list[Any]]:
        return "json_type(s.value, ?) IS NOT NULL", [path]

    @staticmethod
    def test(path: str, op: str, kind: str, arg: Any) -> tuple[str, list[Any]]:
        if kind == "none":
            if op == "=":
                return "(json_type(s.value, ?) IS NULL OR json_type(s.value, ?) = 'null')", [path, path]
            return "0", []
        types = "= 'text'" if kind == "str" else "IN ('integer', 'real', 'true', 'false')"
        value = int(arg) if isinstance(arg, bool) else arg
        return f"(json_type(s.value, ?) {types} AND json_extract(s.value, ?) {op} ?)", [path, path, value]


class _Postgres:
    """Conditions on `s.value` (jsonb) at a path given as a text[] parameter."""

    @staticmethod
    def paths(key: str) -> tuple[list[str], list[str]]:
        return [key], key.split(".")

    @staticmethod
    def present(path: list[str]) -> tuple[str, list[Any]]:
        return "(s.value #> ?::text[]) IS NOT NULL", [path]

    @staticmethod
    def test(path: list[str], op: str, kind: str, arg: Any) -> tuple[str, list[Any]]:
        at = "(s.value #> ?::text[])"
        if kind == "none":
            if op == "=":
                return f"({at} IS NULL OR jsonb_typeof({at}) = 'null')", [path, path]
            return "false", []
        if kind == "str":
            return (f"(jsonb_typeof({at}) = 'string' AND ({at} #>> '{{}}') COLLATE \"C\" {op} ?::text)",
                    [path, path, arg])
        number = (f"(CASE jsonb_typeof({at}) WHEN 'number' THEN ({at} #>> '{{}}')::numeric "
                  f"WHEN 'boolean' THEN CASE WHEN {at} = 'true'::jsonb THEN 1 ELSE 0 END END)")
        value = int(arg) if isinstance(arg, bool) else arg
        return f"({number} {op} ?::numeric)", [path, path, path, str(value)]


_SQL_OPS = {"$eq": "=", "$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


def _condition(d: Any, path: Any, want: Any) -> tuple[str, list[Any]] | None:
    """The exact SQL of one filter entry at one path, or None."""
    if is_operator_dict(want):
        parts, params = [], []
        for op, arg in want.items():
            if op != "$ne" and op not in _SQL_OPS:
                check_operator(op)  # raises, naming the operators there are
            kind = _scalar_kind(arg)
            if kind is None:
                return None
            if op == "$ne":
                sql, ps = d.test(path, "=", kind, arg)
                sql = f"NOT COALESCE({sql}, {'0' if d is _Sqlite else 'false'})"
            else:
                sql, ps = d.test(path, _SQL_OPS[op], kind, arg)
            parts.append(sql)
            params += ps
        return " AND ".join(parts), params
    if isinstance(want, Mapping):
        return None  # a nested match: Python's
    kind = _scalar_kind(want)
    if kind is None:
        return None
    sql, params = d.test(path, "=", kind, want)
    return str(sql), list(params)


def _entry(d: Any, key: str, want: Any) -> tuple[str, list[Any]] | None:
    literal, nested = d.paths(key)
    on_literal = _condition(d, literal, want)
    if on_literal is None:
        return None
    if "." not in key:
        return on_literal
    on_nested = _condition(d, nested, want)
    assert on_nested is not None
    has, has_params = d.present(literal)
    return (f"(({has} AND {on_literal[0]}) OR (NOT ({has}) AND {on_nested[0]}))",
            [*has_params, *on_literal[1], *has_params, *on_nested[1]])


def translate(filter: Mapping[str, Any] | None, dialect: str) -> SqlFilter:
    """The filter's SQL for `dialect` ("sqlite" or "postgres"); placeholders are "?"."""
    if not filter:
        return SqlFilter(None, (), True)
    check_filter(filter)  # a batch's SearchOp comes here unchecked
    d = _Sqlite if dialect == "sqlite" else _Postgres
    parts: list[str] = []
    params: list[Any] = []
    exact = True
    for key, want in filter.items():
        got = _entry(d, key, want)
        if got is None:
            exact = False
            continue
        parts.append(got[0])
        params += got[1]
    return SqlFilter(" AND ".join(f"({p})" for p in parts) if parts else None, tuple(params), exact)
