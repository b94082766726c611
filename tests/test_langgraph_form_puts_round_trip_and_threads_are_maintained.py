"""A checkpoint put in LangGraph's dict form reads back as it was put, on every saver;
prune, delete_for_runs, copy_thread and the delta channel history work on them."""
from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

import engine.compat  # noqa: F401  (serves langgraph.*)
from engine.checkpoint import InMemorySaver, SqliteSaver


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def saver(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    if request.param == "postgres":
        from engine.checkpoint.postgres import PostgresSaver

        store = PostgresSaver(request.getfixturevalue("pg_url"))
    else:
        store = InMemorySaver() if request.param == "memory" else SqliteSaver(tmp_path / "checkpoints.db")
    yield store
    store.close()


def cfg(thread: str, checkpoint_id: str | None = None, ns: str = "", **extra: Any) -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": thread, "checkpoint_ns": ns}
    if checkpoint_id is not None:
        conf["checkpoint_id"] = checkpoint_id
    return {"configurable": conf, **extra}


def lg_checkpoint(values: dict[str, Any], versions: dict[str, Any], seen: dict[str, Any] | None = None) -> Any:
    from langgraph.checkpoint.base import Checkpoint, empty_checkpoint

    base = empty_checkpoint()
    return Checkpoint(v=1, id=base["id"], ts=base["ts"], channel_values=values, channel_versions=versions,
                      versions_seen=seen or {}, updated_channels=None)


def chain(saver: Any, thread: str, n: int, run: str = "r") -> list[dict[str, Any]]:
    made: list[dict[str, Any]] = []
    for i in range(n):
        parent = made[-1]["configurable"]["checkpoint_id"] if made else None
        cp = lg_checkpoint({"step": i}, {"step": i + 1})
        made.append(saver.put(cfg(thread, parent), cp, {"source": "loop", "step": i, "run_id": f"{run}{i}"},
                              {"step": i + 1}))
        saver.put_writes(made[-1], [("ch", i)], f"task{i}")
    return made


def test_a_put_dict_reads_back_with_its_versions_seen_format_and_metadata(saver):
    cp = lg_checkpoint({"a": "x", "b": [1, 2]}, {"a": 3, "b": 1}, {"node": {"a": 2}})
    made = saver.put(cfg("t", metadata={"run_id": "run-1", "who": "me\x00"}), cp,
                     {"source": "input", "step": -1, "note": "a\x00b"}, {"a": 3, "b": 1})
    found = saver.get_tuple(made)
    assert found.checkpoint == cp
    assert found.metadata == {"source": "input", "step": -1, "note": "ab", "run_id": "run-1", "who": "me"}
    assert found.parent_config is None


def test_an_unmoved_channel_is_loaded_from_the_parent_and_a_dropped_one_is_gone(saver):
    first = saver.put(cfg("t"), lg_checkpoint({"a": "v1", "b": "v2"}, {"a": 1, "b": 1}), {"step": 0}, {"a": 1, "b": 1})
    second = saver.put(cfg("t", first["configurable"]["checkpoint_id"]),
                       lg_checkpoint({"a": "v1b"}, {"a": 2, "b": 1}), {"step": 1}, {"a": 2})
    third = saver.put(cfg("t", second["configurable"]["checkpoint_id"]),
                      lg_checkpoint({"a": "v1b"}, {"a": 2}), {"step": 2}, {})
    assert saver.get_tuple(second).checkpoint["channel_values"] == {"a": "v1b", "b": "v2"}
    assert saver.get_tuple(third).checkpoint["channel_values"] == {"a": "v1b"}
    assert saver.get_tuple(first).checkpoint["channel_values"] == {"a": "v1", "b": "v2"}


def test_a_repeated_put_writes_is_kept_once_and_a_special_channel_keeps_its_last_write(saver):
    made = saver.put(cfg("t"), lg_checkpoint({}, {}), {"step": 0}, {})
    saver.put_writes(made, [("ch", "v"), ("other", 1)], "task")
    saver.put_writes(made, [("ch", "v"), ("other", 1)], "task")
    saver.put_writes(made, [("__error__", "first")], "task")
    saver.put_writes(made, [("__error__", "second"), ("__interrupt__", {"why": "ask"})], "task")
    assert saver.get_tuple(made).pending_writes == [
        ("task", "ch", "v"), ("task", "other", 1), ("task", "__error__", "second"),
        ("task", "__interrupt__", {"why": "ask"})]


def test_copy_thread_copies_every_checkpoint_and_write_and_leaves_the_source(saver):
    made = chain(saver, "src", 3)
    before = list(saver.list(cfg("src")))
    saver.copy_thread("src", "dst")
    copied = list(saver.list(cfg("dst")))
    assert [t.checkpoint for t in copied] == [t.checkpoint for t in before]
    assert [(t.metadata, t.pending_writes) for t in copied] == [(t.metadata, t.pending_writes) for t in before]
    assert [t.config["configurable"]["thread_id"] for t in copied] == ["dst"] * 3
    assert [t.checkpoint for t in saver.list(cfg("src"))] == [t.checkpoint for t in before]
    assert saver.get_tuple(made[-1]).checkpoint["channel_values"] == {"step": 2}


def test_prune_keeps_the_latest_of_each_namespace_with_its_values_and_writes(saver):
    made = chain(saver, "t", 4)
    chain(saver, "other", 2)
    sub = saver.put(cfg("t", ns="child:1"), lg_checkpoint({"s": 1}, {"s": 1}), {"step": 0}, {"s": 1})
    asyncio.run(saver.aprune(["t"], strategy="keep_latest"))
    kept = list(saver.list(cfg("t", ns="")))
    assert [t.config["configurable"]["checkpoint_id"] for t in kept] == [made[-1]["configurable"]["checkpoint_id"]]
    assert (kept[0].checkpoint["channel_values"], kept[0].pending_writes) == ({"step": 3}, [("task3", "ch", 3)])
    assert saver.get_tuple(sub).checkpoint["channel_values"] == {"s": 1}
    assert len(list(saver.list(cfg("other")))) == 2
    saver.prune(["t"], strategy="delete")
    assert list(saver.list(cfg("t"))) == []
    with pytest.raises(ValueError, match="strategy='newest'"):
        saver.prune(["other"], strategy="newest")


def test_delete_for_runs_forgets_only_those_runs_checkpoints(saver):
    chain(saver, "t", 3)
    saver.delete_for_runs(["r1"])
    left = list(saver.list(cfg("t")))
    assert [t.metadata["run_id"] for t in left] == ["r2", "r0"]
    assert [t.checkpoint["channel_values"] for t in left] == [{"step": 2}, {"step": 0}]
    saver.delete_for_runs([])


def test_the_delta_channel_history_walks_the_ancestry_to_the_nearest_stored_value(saver):
    made = []
    for i in range(4):
        parent = made[-1]["configurable"]["checkpoint_id"] if made else None
        values, versions = ({"ch": [10]}, {"ch": 1}) if i == 1 else ({}, {})
        made.append(saver.put(cfg("t", parent), lg_checkpoint(values, versions), {"step": i}, versions))
        saver.put_writes(made[-1], [("ch", i)], f"task{i}")
    found = saver.get_delta_channel_history(config=made[-1], channels=["ch", "none"])
    assert found == {"ch": {"writes": [("task1", "ch", 1), ("task2", "ch", 2)], "seed": [10]},
                     "none": {"writes": []}}
    assert saver.get_delta_channel_history(config=made[-1], channels=[]) == {}


def test_a_none_seed_is_no_seed_on_postgres_and_a_seed_elsewhere(saver):
    made = []
    for i, values in enumerate(({"ch": [1]}, {"ch": None}, {})):
        parent = made[-1]["configurable"]["checkpoint_id"] if made else None
        versions = {"ch": i + 1} if values else {}
        made.append(saver.put(cfg("t", parent), lg_checkpoint(values, versions), {"step": i}, versions))
        saver.put_writes(made[-1], [("ch", i)], f"task{i}")
    found = saver.get_delta_channel_history(config=made[-1], channels=["ch"])["ch"]
    if type(saver).__name__ == "PostgresSaver":  # as LangGraph's: a JSON null is no value there
        assert found == {"writes": [("task0", "ch", 0), ("task1", "ch", 1)], "seed": [1]}
    else:
        assert found == {"writes": [("task1", "ch", 1)], "seed": None}


def test_list_over_threads_and_namespaces_is_newest_id_first_on_the_sql_savers(saver):
    a = saver.put(cfg("t"), lg_checkpoint({}, {}), {"step": 0}, {})
    b = saver.put(cfg("t", ns="sub:1"), lg_checkpoint({}, {}), {"step": 0}, {})
    c = saver.put(cfg("t", a["configurable"]["checkpoint_id"]), lg_checkpoint({}, {}), {"step": 1}, {})
    ids = [t.config["configurable"]["checkpoint_id"] for t in saver.list({"configurable": {"thread_id": "t"}})]
    by_id = [x["configurable"]["checkpoint_id"] for x in (c, b, a)]
    if isinstance(saver, InMemorySaver):  # as LangGraph's memory saver: each namespace in turn
        assert ids == [by_id[0], by_id[2], by_id[1]]
    else:  # as LangGraph's SQL savers: ORDER BY checkpoint_id DESC
        assert ids == by_id
    with pytest.raises(ValueError, match="Invalid filter key"):
        list(saver.list(None, filter={"x') OR 1=1 --": 1}))


def test_list_before_spans_threads_by_id_and_a_dotted_filter_reads_nested_metadata(saver):
    older = chain(saver, "a", 1)
    newer = chain(saver, "b", 2)
    saver.put(cfg("c"), lg_checkpoint({}, {}), {"user": {"access-level": "x"}, "access-level": "top"}, {})
    found = [t.config["configurable"]["checkpoint_id"] for t in saver.list(None, before=newer[1])]
    assert found == [newer[0]["configurable"]["checkpoint_id"], older[0]["configurable"]["checkpoint_id"]]
    assert len(list(saver.list(None, filter={"user.access-level": "x"}))) == 1
    assert len(list(saver.list(None, filter={"access-level": "top"}))) == 1
    assert list(saver.list(None, filter={"user.access-level": "y"})) == []
