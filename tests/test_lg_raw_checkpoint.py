"""The raw checkpoint dicts the saver API hands out are laid out as LangGraph 1.2 keeps
them (engine/checkpoint/lg_projection.py): trigger channels, versions of every channel
ever written, versions_seen per node, updated_channels, and LangGraph's pending writes.
The layouts below were read off real LangGraph runs of the same graphs."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from engine import END, START, InMemorySaver, SqliteSaver, StateGraph


class S(TypedDict):
    total: Annotated[int, operator.add]
    note: str


def cfg(thread: str = "t") -> dict:
    return {"configurable": {"thread_id": thread}}


@pytest.fixture(params=["memory", "sqlite"])
def saver(request, tmp_path):
    if request.param == "memory":
        yield InMemorySaver()
    else:
        s = SqliteSaver(tmp_path / "raw.sqlite")
        yield s
        s.close()


def _fan_in(saver, **kw):
    g = StateGraph(S)
    g.add_node("left", lambda s: {"total": 1})
    g.add_node("right", lambda s: {"total": 2, "note": "r"})
    g.add_node("merge", lambda s: {"note": "m"})
    g.add_node("again", lambda s: {"total": 10})
    g.add_edge(START, "left")
    g.add_edge(START, "right")
    g.add_edge(["left", "right"], "merge")
    g.add_conditional_edges("merge", lambda s: "again" if s["total"] < 20 else END)
    g.add_edge("again", "merge")
    return g.compile(checkpointer=saver, **kw)


def _ranked(tuples):
    """Each checkpoint's versions replaced by their rank in the thread (1 = oldest)."""
    every = sorted({v for t in tuples for v in t.checkpoint["channel_versions"].values()})
    rank = {v: i + 1 for i, v in enumerate(every)}
    return [({k: rank[v] for k, v in t.checkpoint["channel_versions"].items()},
             {n: {k: rank[v] for k, v in seen.items()} for n, seen in t.checkpoint["versions_seen"].items()})
            for t in tuples]


def test_fan_in_join_and_router_loop_have_langgraph_trigger_channels(saver):
    graph = _fan_in(saver)
    graph.invoke({"total": 0}, cfg())
    tuples = list(saver.list(cfg()))[::-1]
    values = [t.checkpoint["channel_values"] for t in tuples]
    assert values[0] == {"__start__": {"total": 0}}
    assert values[1] == {"total": 0, "branch:to:left": None, "branch:to:right": None}
    assert values[2] == {"total": 3, "note": "r", "join:left+right:merge": {"left", "right"}}
    assert values[3] == {"total": 3, "note": "m", "join:left+right:merge": set(), "branch:to:again": None}
    assert values[4] == {"total": 13, "note": "m", "join:left+right:merge": set(), "branch:to:merge": None}
    assert values[-1] == {"total": 23, "note": "m", "join:left+right:merge": set()}
    assert [t.checkpoint["updated_channels"] for t in tuples[:4]] == [
        ["__start__"], ["branch:to:left", "branch:to:right", "total"],
        ["join:left+right:merge", "note", "total"], ["branch:to:again", "note"]]
    ranked = _ranked(tuples)
    versions, seen = ranked[3]
    assert versions == {"__start__": 2, "branch:to:left": 3, "branch:to:right": 3, "total": 3,
                        "note": 4, "join:left+right:merge": 4, "branch:to:again": 4}
    assert seen == {"__input__": {}, "__start__": {"__start__": 1}, "left": {"branch:to:left": 2},
                    "right": {"branch:to:right": 2}, "merge": {"join:left+right:merge": 3}}
    # merge ran again from its router edge: it saw both of its trigger channels
    assert ranked[-1][1]["merge"] == {"join:left+right:merge": 4, "branch:to:merge": 7}
    # the pending writes are LangGraph's: a route is a write to the target's trigger channel,
    # a join source's arrival a write to the barrier channel
    first_step = sorted((c, v) for _, c, v in tuples[1].pending_writes)
    assert first_step == [("join:left+right:merge", "left"), ("join:left+right:merge", "right"),
                          ("note", "r"), ("total", 1), ("total", 2)]
    assert sorted((c, v) for _, c, v in tuples[0].pending_writes) == [
        ("branch:to:left", None), ("branch:to:right", None), ("total", 0)]


def test_a_resumed_failure_records_the_versions_it_resumed_from(saver):
    fail = [True]

    def flaky(s):
        if fail[0]:
            raise RuntimeError("flaky")
        return {"total": 5}

    g = StateGraph(S)
    g.add_node("ok", lambda s: {"total": 1})
    g.add_node("flaky", flaky)
    g.add_edge(START, "ok")
    g.add_edge(START, "flaky")
    graph = g.compile(checkpointer=saver)
    with pytest.raises(RuntimeError):
        graph.invoke({"total": 0}, cfg())
    with pytest.raises(RuntimeError):
        graph.invoke(None, cfg())
    fail[0] = False
    assert graph.invoke(None, cfg())["total"] == 6
    tuples = list(saver.list(cfg()))
    assert len(tuples) == 3
    last, failed = tuples[0], tuples[1]
    assert last.checkpoint["versions_seen"]["__interrupt__"] == failed.checkpoint["channel_versions"]
    assert "__interrupt__" not in failed.checkpoint["versions_seen"]
    # the error is kept once for the task, however often it failed
    assert sorted(c for _, c, _ in failed.pending_writes) == ["__error__", "total", "total"]


def test_get_tuple_of_any_checkpoint_matches_list(saver):
    graph = _fan_in(saver)
    graph.invoke({"total": 0}, cfg())
    for listed in saver.list(cfg()):
        alone = saver.get_tuple(listed.config)
        assert alone.checkpoint == listed.checkpoint
        assert sorted(alone.pending_writes, key=repr) == sorted(listed.pending_writes, key=repr)


def test_exit_durability_first_saved_checkpoint_still_has_the_input_channel(saver):
    graph = _fan_in(saver)
    graph.invoke({"total": 0}, cfg(), durability="exit")
    (only,) = list(saver.list(cfg()))
    assert only.parent_config is None
    assert set(only.checkpoint["channel_versions"]) >= {"__start__", "total", "note"}
    assert set(only.checkpoint["versions_seen"]) >= {"__input__", "__start__"}


def test_a_langgraph_form_put_of_a_listed_checkpoint_keeps_only_state_keys(saver):
    graph = _fan_in(saver)
    graph.invoke({"total": 0}, cfg())
    listed = list(saver.list(cfg()))[-3]
    assert listed.checkpoint["channel_values"] == {"total": 3, "note": "r", "join:left+right:merge": {"left", "right"}}
    other = InMemorySaver()
    made = other.put(cfg("copy"), listed.checkpoint, listed.metadata, {})
    assert dict(other.load("copy", made["configurable"]["checkpoint_id"]).values) == {"total": 3, "note": "r"}


def test_listing_a_long_thread_reads_each_checkpoint_once():
    class Counting(InMemorySaver):
        def get(self, thread_id, checkpoint_id=None):
            self.reads += 1
            return super().get(thread_id, checkpoint_id)

    saver = Counting()
    saver.reads = 0
    g = StateGraph(S)
    g.add_node("step", lambda s: {"total": 1})
    g.add_conditional_edges("step", lambda s: "step" if s["total"] < 200 else END)
    g.add_edge(START, "step")
    g.compile(checkpointer=saver).invoke({"total": 0}, {**cfg(), "recursion_limit": 500})
    saver.reads = 0
    tuples = list(saver.list(cfg()))
    assert len(tuples) == 202
    assert saver.reads <= 3 * len(tuples)  # the ancestry is replayed once for the whole listing, not per row
    assert tuples[0].checkpoint["versions_seen"]["step"] == {"branch:to:step": tuples[1].checkpoint[
        "channel_versions"]["branch:to:step"]}


def test_a_langgraph_form_put_keeps_a_source_that_is_not_one_of_ours_in_the_metadata():
    from engine.checkpoint.data import as_source

    assert [as_source(s) for s in ("input", "loop", "update", "fork", "", "foo", None, 3)] == [
        "input", "loop", "update", "fork", "", "", "", ""]
    saver = InMemorySaver()
    checkpoint = {"v": 4, "id": "1ef4f797-8335-6428-8001-8a1503f9b875", "ts": "2024-07-31T20:14:19+00:00",
                  "channel_values": {"total": 1}, "channel_versions": {"total": 1}, "versions_seen": {}}
    for thread, source in (("ours", "loop"), ("theirs", "replayed-by-hand")):
        made = saver.put(cfg(thread), checkpoint, {"source": source, "step": 2}, {})
        ckpt = saver.load(thread, made["configurable"]["checkpoint_id"])
        assert ckpt.source == (source if thread == "ours" else "")
        assert saver.get_tuple(cfg(thread)).metadata["source"] == source
