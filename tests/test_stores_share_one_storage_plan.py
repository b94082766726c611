"""Every store keeps a checkpoint by one plan (engine/checkpoint/storage_plan.py): the same
kinds per channel, the same sizes, the same limit at the same byte, on real stores."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from engine.checkpoint import Checkpoint, InMemorySaver, SqliteSaver
from engine.checkpoint.serde import Serializer
from engine.checkpoint.storage_plan import (
    ABSENT,
    APPEND,
    INLINE,
    LIST,
    UNCHANGED,
    VALUE,
    ListBase,
    plan_storage,
    relied_on,
)
from engine.errors import SerializationError

LIMIT = 4096


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def saver(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    if request.param == "postgres":  # a real server (tests/pg_server.py), a fresh schema per test
        from engine.checkpoint.postgres import PostgresSaver

        store: Any = PostgresSaver(request.getfixturevalue("pg_url"), max_value_bytes=LIMIT)
    elif request.param == "memory":
        store = InMemorySaver(max_value_bytes=LIMIT)
    else:
        store = SqliteSaver(tmp_path / "plan.db", max_value_bytes=LIMIT)
    yield store
    store.close()


def _checkpoint(n: int, parent: Checkpoint | None, changes: dict[str, Any]) -> Checkpoint:
    cid = f"c{n:04d}"
    values = {**(parent.values if parent else {}), **changes}
    versions = {**(parent.versions if parent else {}), **{k: cid for k in changes}}
    return Checkpoint(
        id=cid, thread_id="t", parent_id=parent.id if parent else None, step=n, source="loop",
        created_at=f"2026-01-01T00:00:{n:09d}", values=values, versions=versions,
    )


def _append_until(saver: Any, item: str) -> tuple[Checkpoint, int, Checkpoint]:
    """Append `item` to a list, one checkpoint per item, while the list's encoding fits
    LIMIT; returns the last stored checkpoint, the encoded size of the list it holds, and
    the next checkpoint (one item more, over the limit)."""
    c = _checkpoint(0, None, {"log": []})
    saver.save(c)
    n = 0
    while True:
        items = c.values["log"] + [item]
        nxt = _checkpoint(n + 1, c, {"log": items})
        if len(orjson.dumps(items)) > LIMIT:
            return c, len(orjson.dumps(c.values["log"])), nxt
        saver.save(nxt, appended={"log": (c.versions["log"], [item])})
        c, n = nxt, n + 1


def test_an_appended_list_is_refused_at_the_same_byte_by_every_store(saver: Any) -> None:
    # an item of 60 characters encodes as 62 bytes plus a comma: the list reaches the
    # limit after a few dozen appends, each counted exactly as a load would read it
    last, size, too_big = _append_until(saver, "x" * 60)
    assert size <= LIMIT < size + 63
    assert saver.load("t").values["log"] == last.values["log"]  # everything up to the limit is stored
    with pytest.raises(SerializationError, match="Cannot checkpoint `log`"):
        saver.save(too_big, appended={"log": (last.versions["log"], ["x" * 60])})
    assert saver.load("t").id == last.id  # the refused checkpoint left nothing behind


def test_a_list_that_fills_the_limit_exactly_is_stored_by_every_store(saver: Any) -> None:
    # items whose whole encoding is exactly LIMIT bytes: ["a...", "b..."]
    first = "a" * ((LIMIT - 7) // 2)
    second = "b" * (LIMIT - 7 - len(first))
    c0 = _checkpoint(0, None, {"log": [first]})
    saver.save(c0)
    c1 = _checkpoint(1, c0, {"log": [first, second]})
    assert len(orjson.dumps(c1.values["log"])) == LIMIT
    saver.save(c1, appended={"log": (c0.versions["log"], [second])})
    assert saver.load("t").values["log"] == [first, second]


def test_a_value_that_fills_the_limit_exactly_is_stored_by_every_store(saver: Any) -> None:
    text = "v" * (LIMIT - 2)  # the JSON string with its quotes: LIMIT bytes
    c0 = _checkpoint(0, None, {"note": text})
    saver.save(c0)
    assert saver.load("t").values["note"] == text


def test_the_plan_names_each_channel_in_version_order_with_exact_sizes() -> None:
    serde = Serializer(max_bytes=LIMIT)
    parent = _checkpoint(0, None, {"kept": "old", "log": ["a"], "gone": 1})
    c = _checkpoint(1, parent, {"log": ["a", "b"], "n": 7, "big": "z" * 300, "fresh": [1, 2]})
    c = Checkpoint(**{**c.__dict__, "values": {k: v for k, v in c.values.items() if k != "gone"}})
    held = {("kept", "c0000"): "handle of kept", ("log", "c0000"): "handle of log"}
    asked: list[tuple[str, str]] = []

    def find(key: str, version: str) -> Any:
        asked.append((key, version))
        return held.get((key, version))

    def base_of(h: Any) -> ListBase | None:
        return ListBase(1, len(b'["a"]'), False) if h == "handle of log" else None

    plan = plan_storage(c, {"log": ("c0000", ["b"])}, serde, find, base_of, inline_limit=256)
    assert [(p.key, p.kind) for p in plan] == [
        ("kept", UNCHANGED), ("log", APPEND), ("gone", ABSENT), ("n", INLINE), ("big", VALUE), ("fresh", LIST),
    ]
    by = {p.key: p for p in plan}
    assert by["kept"].held == "handle of kept"
    assert by["log"].held == "handle of log" and by["log"].data == b'"b"' and by["log"].n_items == 2
    assert by["log"].size == len(b'["a","b"]')  # exact: the base, a comma, the new item
    assert by["n"].size == 1 and by["big"].size == 302 and by["fresh"].size == len(b"[1,2]")
    assert asked == relied_on(c, {"log": ("c0000", ["b"])}) == [("kept", "c0000"), ("log", "c0000")]


def test_a_kept_version_the_store_does_not_hold_is_refused_by_the_plan() -> None:
    parent = _checkpoint(0, None, {"kept": "old"})
    c = _checkpoint(1, parent, {"n": 1})
    with pytest.raises(ValueError, match="kept"):
        plan_storage(c, None, Serializer(), lambda key, version: None, lambda h: None)
