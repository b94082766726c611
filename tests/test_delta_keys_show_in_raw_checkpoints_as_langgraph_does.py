"""A DeltaChannel key in the saver's raw LangGraph-form checkpoints: the record says which keys
are delta keys, so any saver (one opened afresh on a file included) leaves the value out
between snapshots; get_state keeps the whole value; a record from before this (no entry)
still opens, lists the value, and is not rewritten by reading; patching LangGraph's
snapshot bound through the compat module bounds the engine's and is undone after."""
from __future__ import annotations

import sqlite3
from typing import Annotated
from unittest.mock import patch

import pytest
from typing_extensions import TypedDict

import engine
from engine import START, SqliteSaver, StateGraph, compat
from engine.checkpoint import delta_record
from engine.checkpoint.delta_record import DELTA_KEY, DeltaSnapshot
from engine.compat.channels import DeltaChannel


def _concat(state: list, writes: list) -> list:
    out = list(state)
    for w in writes:
        out.extend(w if isinstance(w, list) else [w])
    return out


def _app(saver, freq: int = 1000, steps: int = 1):
    State = TypedDict("State", {"items": Annotated[list, DeltaChannel(_concat, list, snapshot_frequency=freq)],  # noqa: UP013
                                "other": str})
    builder = StateGraph(State)
    for i in range(steps):
        builder.add_node(f"s{i}", lambda s, i=i: {"other": f"o{i}"})
        builder.add_edge(START if i == 0 else f"s{i - 1}", f"s{i}")
    return builder.compile(checkpointer=saver)


CFG = {"configurable": {"thread_id": "t"}}


@pytest.fixture(params=["sqlite", "postgres"])
def reopen(request, tmp_path):
    """A function making a new saver object on one store (a file, a database) each call."""
    if request.param == "sqlite":
        path = str(tmp_path / "d.sqlite")
        return lambda: SqliteSaver(path)
    from engine.checkpoint.postgres import PostgresSaver

    url = request.getfixturevalue("pg_url")
    return lambda: PostgresSaver(url)


def test_a_saver_opened_afresh_leaves_the_delta_value_out_and_get_state_keeps_it(reopen):
    _app(reopen()).invoke({"items": ["a", "b"], "other": ""}, CFG)
    fresh = reopen()
    head = fresh.get_tuple(CFG)
    assert "items" not in head.checkpoint["channel_values"]
    assert head.checkpoint["channel_values"]["other"] == "o0"
    assert "items" in head.checkpoint["channel_versions"]
    assert head.metadata["counters_since_delta_snapshot"] == {"items": [1, 3]}
    assert DELTA_KEY not in head.metadata
    state = _app(fresh).get_state(CFG)
    assert state.values["items"] == ["a", "b"]
    assert DELTA_KEY not in state.metadata
    history = fresh.get_delta_channel_history(config=head.config, channels=["items"])
    seeded = _concat(history["items"].get("seed", []), [w[2] for w in history["items"]["writes"]])
    assert seeded == ["a", "b"]


def test_a_snapshot_shows_the_whole_value_in_the_raw_checkpoint():
    saver = engine.InMemorySaver()
    _app(saver, freq=1).invoke({"items": ["a"], "other": ""}, CFG)
    shown = saver.get_tuple(CFG).checkpoint["channel_values"]["items"]
    assert isinstance(shown, DeltaSnapshot) and shown.value == ["a"]


def test_a_record_from_before_delta_entries_opens_lists_the_value_and_is_not_rewritten(tmp_path):
    path = str(tmp_path / "old.sqlite")
    saver = SqliteSaver(path)
    _app(saver).invoke({"items": ["a"], "other": ""}, CFG)
    head = saver.load("t")
    old = type(head)(**{**{f: getattr(head, f) for f in head.__dataclass_fields__},
                        "id": head.id + "1", "parent_id": head.id,
                        "metadata": {k: v for k, v in head.metadata.items() if k != DELTA_KEY}})
    saver.save(old)  # a record as an older Retrograph wrote it: no delta entry
    with sqlite3.connect(path) as conn:
        before = conn.execute("SELECT * FROM checkpoints ORDER BY 1").fetchall()
    fresh = SqliteSaver(path)
    raw = fresh.get_tuple(CFG)
    assert raw.checkpoint["id"] == old.id
    assert raw.checkpoint["channel_values"]["items"] == ["a"]  # kind not known: listed as any key
    assert _app(fresh).get_state(CFG).values["items"] == ["a"]
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT * FROM checkpoints ORDER BY 1").fetchall() == before


@pytest.fixture
def compat_on():
    compat.install()
    yield
    compat.uninstall()


def test_patching_langgraphs_snapshot_bound_bounds_the_engine_and_is_undone(compat_on):
    default = delta_record.DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT
    for touched_first in (False, True):
        import langgraph.pregel._checkpoint as served  # type: ignore[import-not-found]

        if touched_first:
            assert served.DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT == default
        with patch("langgraph.pregel._checkpoint.DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT", 2):
            assert delta_record.DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT == 2
            saver = engine.InMemorySaver()
            _app(saver, steps=3).invoke({"items": ["a"], "other": ""}, CFG)
            sources = [(t.metadata["step"], isinstance(t.checkpoint["channel_values"].get("items"), DeltaSnapshot))
                       for t in saver.list(CFG)]
            assert (0, True) in sources  # two supersteps after the input: a snapshot, written or not
        assert delta_record.DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT == default
        assert served.DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT == default


def test_a_raw_checkpoint_with_a_snapshot_put_into_another_saver_keeps_the_whole_value():
    source = engine.InMemorySaver()
    _app(source, freq=1).invoke({"items": ["a"], "other": ""}, CFG)
    raw = source.get_tuple(CFG)
    assert isinstance(raw.checkpoint["channel_values"]["items"], DeltaSnapshot)
    copy = engine.InMemorySaver()
    copy.put({"configurable": {"thread_id": "c", "checkpoint_ns": ""}}, raw.checkpoint, raw.metadata,
             raw.checkpoint["channel_versions"])
    assert _app(copy).get_state({"configurable": {"thread_id": "c"}}).values["items"] == ["a"]


def test_the_served_snapshot_helpers(compat_on):
    from langgraph.checkpoint.serde.types import _DeltaSnapshot  # type: ignore[import-not-found]
    from langgraph.pregel._checkpoint import (  # type: ignore[import-not-found]
        delta_channels_to_snapshot,
        exit_delta_task_id,
    )

    assert _DeltaSnapshot is DeltaSnapshot
    assert exit_delta_task_id(12, "abcdef01-2222-3333-4444-555566667777") == "00000012-2222-3333-4444-555566667777"
    channels = {"x": DeltaChannel(_concat, list, snapshot_frequency=3), "y": DeltaChannel(_concat, list)}
    assert delta_channels_to_snapshot(channels, {"x": (3, 3), "y": (2, 2)}) == {"x"}
    assert delta_channels_to_snapshot(channels, {"x": (2, 2), "y": (0, 4999)}) == set()
    assert delta_channels_to_snapshot(channels, {"y": (0, 5000)}) == {"y"}


def _put_chain(saver, thread: str, seed_value) -> dict:
    """Four raw puts: `seed_value` stored at step 1, a version bump without a value after;
    each step with one write. Returns the last config."""
    from engine.checkpoint.ids import new_checkpoint_id

    parent = None
    for step in range(4):
        config = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
        if parent is not None:
            config["configurable"]["checkpoint_id"] = parent["configurable"]["checkpoint_id"]
        values = {"items": seed_value} if step == 1 else {}
        checkpoint = {"v": 4, "id": new_checkpoint_id(), "ts": "", "channel_values": values,
                      "channel_versions": {"items": f"v{step}"}, "versions_seen": {}}
        parent = saver.put(config, checkpoint, {"source": "loop", "step": step, "parents": {}},
                           {"items": "v1"} if step == 1 else {})
        saver.put_writes(parent, [("items", f"w{step}")], f"task-{step}")
    return parent


def test_a_snapshot_put_raw_reads_back_as_one_and_seeds_the_delta_history(reopen):
    saver = reopen()
    head = _put_chain(saver, "snap", DeltaSnapshot([10, 20]))
    plain = _put_chain(saver, "plain", True)
    for fresh in (saver, reopen()):  # the same object, and one opened afresh on the store
        seed_row = fresh.get_tuple(fresh.get_tuple(head).parent_config)
        seed_row = fresh.get_tuple(seed_row.parent_config)
        assert seed_row.checkpoint["channel_values"]["items"] == DeltaSnapshot([10, 20])
        assert isinstance(seed_row.checkpoint["channel_values"]["items"], DeltaSnapshot)
        entry = fresh.get_delta_channel_history(config=head, channels=["items"])["items"]
        assert isinstance(entry["seed"], DeltaSnapshot) and entry["seed"].value == [10, 20]
        assert [w[2] for w in entry["writes"]] == ["w1", "w2"]
        plain_entry = fresh.get_delta_channel_history(config=plain, channels=["items"])["items"]
        assert plain_entry["seed"] is True  # a real True is a value, not a snapshot marker
