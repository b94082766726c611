"""A store search's filter runs in SQL (SQLite and PostgreSQL) and keeps exactly the items
the Python matcher keeps: random values and random filters ($eq, $ne, $gt, $gte, $lt,
$lte, plain equality, dotted keys, literal dotted keys, None, booleans, mixed types), and
a filter with an exact SQL form pages in SQL (the statement carries LIMIT and the JSON
tests; only the page's rows come back)."""
from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from engine.store import PostgresStore, SqliteStore
from engine.store.items import matches_filter
from engine.store.sql_filter import translate

SCALARS: list[Any] = [None, True, False, 0, 1, 2, 2.5, -1, 10**12, "a", "b", "ab", "B", "é", "1", ""]
NS = ("docs",)


def _value(rng: random.Random) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for key in ("x", "y"):
        roll = rng.random()
        if roll < 0.7:
            value[key] = rng.choice(SCALARS)
        elif roll < 0.8:
            value[key] = [rng.choice(SCALARS)]
        elif roll < 0.9:
            value[key] = {"z": rng.choice(SCALARS)}
    if rng.random() < 0.6:
        value["m"] = {"k": rng.choice(SCALARS)} if rng.random() < 0.8 else rng.choice(SCALARS)
    if rng.random() < 0.2:
        value["m.k"] = rng.choice(SCALARS)  # a literal dotted key: read before the nested one
    return value


def _filter(rng: random.Random) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for _ in range(rng.randint(1, 2)):
        key = rng.choice(["x", "y", "m.k", "nothere"])
        if rng.random() < 0.4:
            out[key] = rng.choice(SCALARS)
        else:
            ops = rng.sample(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"], rng.randint(1, 2))
            out[key] = {op: rng.choice(SCALARS) for op in ops}
    return out


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    if request.param == "sqlite":
        made: Any = SqliteStore(str(tmp_path / "store.sqlite"))
    else:
        made = PostgresStore(request.getfixturevalue("pg_url"))
    made.setup()
    yield made
    made.close()


def test_random_filters_keep_exactly_what_python_keeps(store):
    rng = random.Random(20261203)
    values = {f"k{i}": _value(rng) for i in range(120)}
    store.batch([_put(key, value) for key, value in values.items()])
    checked = 0
    for _ in range(300):
        filt = _filter(rng)
        assert translate(filt, store.dialect.name).exact
        want = {key for key, value in values.items() if matches_filter(value, filt)}
        got = {item.key for item in store.search(NS, filter=filt, limit=1000)}
        assert got == want, f"filter {filt!r}: SQL kept {sorted(got - want)} too many, {sorted(want - got)} too few"
        checked += bool(want)
    assert checked > 100  # most filters keep something: the comparison is not vacuous


def test_a_filter_with_no_exact_sql_form_is_checked_in_python(store):
    store.batch([_put("a", {"tags": ["x"], "n": 1}), _put("b", {"tags": ["y"], "n": 1}),
                 _put("c", {"m": {"k": 1, "j": 2}}), _put("d", {"m": {"k": 2}})])
    assert not translate({"tags": ["x"]}, store.dialect.name).exact
    assert [i.key for i in store.search(NS, filter={"tags": ["x"], "n": 1})] == ["a"]
    assert [i.key for i in store.search(NS, filter={"m": {"k": 1}})] == ["c"]
    assert [i.key for i in store.search(NS, filter={"n": {"$gte": 1}}, limit=1, offset=1)] in (["a"], ["b"])


def test_an_exact_filter_pages_in_sql_and_reads_only_the_page(tmp_path):
    with SqliteStore(str(tmp_path / "store.sqlite")) as store:
        store.setup()
        store.batch([_put(f"k{i:03}", {"n": i, "kind": "even" if i % 2 == 0 else "odd"}) for i in range(200)])
        statements: list[str] = []
        store.conn.set_trace_callback(statements.append)
        found = store.search(NS, filter={"kind": "even", "n": {"$gte": 100}}, limit=5, offset=3)
        store.conn.set_trace_callback(None)
        assert [i.value["n"] for i in found] == [106, 108, 110, 112, 114]  # one batch, one stamp: key order
        select = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
        assert len(select) == 1 and "json_extract" in select[0] and "LIMIT 5 OFFSET 3" in select[0]


def test_an_unknown_operator_in_a_batch_search_is_one_clear_error(tmp_path):
    from engine.store import SearchOp

    with SqliteStore(str(tmp_path / "store.sqlite")) as store:
        store.setup()
        with pytest.raises(ValueError, match=r"unknown filter operator '\$in'"):
            store.batch([SearchOp(NS, filter={"n": {"$in": [1]}})])


def _put(key: str, value: dict[str, Any]) -> Any:
    from engine.store import PutOp

    return PutOp(NS, key, value)
