"""The store contract: what every store does, on InMemoryStore, SqliteStore (a real file)
and PostgresStore (a real server), through the sync and the async calls."""
from __future__ import annotations

import pytest
from store_kinds import store_factory  # noqa: F401  (the parametrised fixture)

from engine.store import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)


def test_put_then_get_returns_the_value_where_it_was_put(store_factory):
    store = store_factory()
    store.put(("users", "ann"), "profile", {"name": "Ann", "langs": ["en", "fr"], "age": 41})
    item = store.get(("users", "ann"), "profile")
    assert isinstance(item, Item)
    assert (item.namespace, item.key) == (("users", "ann"), "profile")
    assert item.value == {"name": "Ann", "langs": ["en", "fr"], "age": 41}
    assert item.created_at.tzinfo is not None and item.created_at == item.updated_at
    assert store.get(("users", "ann"), "other") is None
    assert store.get(("users",), "profile") is None


def test_put_again_keeps_created_at_and_moves_updated_at(store_factory):
    store = store_factory()
    store.put(("n",), "k", {"v": 1})
    first = store.get(("n",), "k")
    store.put(("n",), "k", {"v": 2})
    second = store.get(("n",), "k")
    assert second.value == {"v": 2}
    assert second.created_at == first.created_at
    assert second.updated_at >= first.updated_at


def test_delete_removes_the_item_and_an_empty_namespace(store_factory):
    store = store_factory()
    store.put(("a", "b"), "k", {"v": 1})
    store.put(("a", "c"), "k", {"v": 1})
    store.delete(("a", "b"), "k")
    assert store.get(("a", "b"), "k") is None
    assert store.list_namespaces() == [("a", "c")]
    store.delete(("a", "b"), "never-there")  # no error


def test_search_finds_items_under_a_prefix(store_factory):
    store = store_factory()
    for i, ns in enumerate([("docs",), ("docs", "x"), ("docs", "x", "y"), ("docsx",), ("other",)]):
        store.put(ns, f"k{i}", {"i": i})
    store.put(("docs",), "k0", {"i": 0, "again": True})
    found = store.search(("docs",))
    assert all(isinstance(r, SearchItem) and r.score is None for r in found)
    # not ("docsx",): a label is not a text prefix. The SQL stores answer newest first (as
    # LangGraph's), the in-memory one in the order items were first put (as LangGraph's)
    order = ["k0", "k2", "k1"] if store_factory.kind != "memory" else ["k0", "k1", "k2"]
    assert [r.key for r in found] == order
    assert len(store.search(())) == 5
    assert sorted(r.key for r in store.search(("docs", "x"))) == ["k1", "k2"]


def test_search_pages_with_limit_and_offset(store_factory):
    store = store_factory()
    for i in range(7):
        store.put(("p",), f"k{i}", {"i": i, "even": i % 2 == 0})
    keys = [r.key for r in store.search(("p",), limit=100)]
    assert len(keys) == 7
    assert [r.key for r in store.search(("p",), limit=3)] == keys[:3]
    assert [r.key for r in store.search(("p",), limit=3, offset=3)] == keys[3:6]
    assert [r.key for r in store.search(("p",), limit=3, offset=6)] == keys[6:]
    evens = [r.key for r in store.search(("p",), filter={"even": True}, limit=100)]
    assert [r.key for r in store.search(("p",), filter={"even": True}, limit=2, offset=1)] == evens[1:3]


def test_search_filters_by_value_with_operators(store_factory):
    store = store_factory()
    store.put(("f",), "a", {"kind": "note", "score": 3, "meta": {"lang": "en"}})
    store.put(("f",), "b", {"kind": "note", "score": 7, "meta": {"lang": "fr"}})
    store.put(("f",), "c", {"kind": "todo", "score": 5})

    def keys(flt):
        return sorted(r.key for r in store.search(("f",), filter=flt))

    assert keys({"kind": "note"}) == ["a", "b"]
    assert keys({"score": {"$gt": 4}}) == ["b", "c"]
    assert keys({"score": {"$gte": 3, "$lt": 7}}) == ["a", "c"]
    assert keys({"kind": {"$ne": "note"}}) == ["c"]
    assert keys({"meta.lang": "fr"}) == ["b"]
    assert keys({"meta": {"lang": "en"}}) == ["a"]
    assert keys({"kind": "note", "score": {"$lte": 3}}) == ["a"]
    with pytest.raises(ValueError, match=r"unknown filter operator '\$regex'"):
        store.search(("f",), filter={"kind": {"$regex": "n.*"}})
    with pytest.raises(ValueError, match="Invalid filter key"):
        store.search(("f",), filter={"kind') OR 1=1 --": "x"})


def test_list_namespaces_matches_prefix_suffix_wildcards_and_cuts_depth(store_factory):
    store = store_factory()
    for ns in [("a", "b", "c"), ("a", "b", "d"), ("a", "x", "c"), ("b", "b", "c"), ("a",)]:
        store.put(ns, "k", {"v": 1})
    assert store.list_namespaces() == [("a",), ("a", "b", "c"), ("a", "b", "d"), ("a", "x", "c"), ("b", "b", "c")]
    assert store.list_namespaces(prefix=("a", "b")) == [("a", "b", "c"), ("a", "b", "d")]
    assert store.list_namespaces(suffix=("c",)) == [("a", "b", "c"), ("a", "x", "c"), ("b", "b", "c")]
    assert store.list_namespaces(prefix=("a", "*", "c")) == [("a", "b", "c"), ("a", "x", "c")]
    assert store.list_namespaces(prefix=("a",), suffix=("*", "c")) == [("a", "b", "c"), ("a", "x", "c")]
    assert store.list_namespaces(max_depth=2) == [("a",), ("a", "b"), ("a", "x"), ("b", "b")]
    assert store.list_namespaces(limit=2, offset=1) == [("a", "b", "c"), ("a", "b", "d")]


def test_batch_runs_operations_in_order_one_result_each(store_factory):
    store = store_factory()
    results = store.batch([
        PutOp(("t",), "k1", {"v": 1}),
        GetOp(("t",), "k1"),
        PutOp(("t", "u"), "k2", {"v": 2}),
        SearchOp(("t",), filter={"v": 2}),
        ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("t",)),)),
        PutOp(("t",), "k1", None),
        GetOp(("t",), "k1"),
    ])
    assert results[0] is None and results[2] is None and results[5] is None
    assert results[1].value == {"v": 1}
    assert [r.key for r in results[3]] == ["k2"]
    assert results[4] == [("t",), ("t", "u")]
    assert results[6] is None


@pytest.mark.parametrize("namespace,culprit", [
    ((), "cannot be empty"),
    (("langgraph", "x"), "'langgraph' is reserved"),
    (("a", ""), "empty strings"),
    (("a.b",), "contains a period"),
    (("a", 3), "label 3 is a int"),
])
def test_bad_namespaces_are_refused_by_name_and_nothing_written(store_factory, namespace, culprit):
    store = store_factory()
    with pytest.raises(InvalidNamespaceError, match=culprit):
        store.put(namespace, "k", {"v": 1})
    assert store.list_namespaces() == []
    store.put(("ok", "langgraph"), "k", {"v": 1})  # reserved only at the root
    assert store.get(("ok", "langgraph"), "k").value == {"v": 1}


def test_values_come_back_as_json_data(store_factory):
    store = store_factory()
    value = {"text": "naïve café ☕", "nested": {"list": [1, 2.5, None, True]}, "empty": {}}
    store.put(("json",), "k", value)
    assert store.get(("json",), "k").value == value
    assert store.search(("json",))[0].value == value
