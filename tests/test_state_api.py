"""The state API as LangGraph 1.2 has it: bulk_update_state, update_state's special
as_node values, Commands given at a static breakpoint, task results in history, and the
checkpointer object API (list/get_tuple/put/put_writes/delete_thread and async twins)."""
from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from engine import (
    END,
    START,
    Command,
    InMemorySaver,
    InvalidUpdateError,
    Send,
    SqliteSaver,
    StateGraph,
    StateUpdate,
)
from engine.checkpoint import CheckpointTuple


class S(TypedDict):
    foo: str
    tasks: Annotated[list[int], operator.add]


def _graph(saver=None, **kw):
    g = StateGraph(S)
    g.add_node("agent", lambda s: {"foo": "agent"})
    g.add_node("map", lambda s: Command(goto=[Send("task", {"index": i}) for i in range(2)], update={"foo": "map"}))
    g.add_node("task", lambda s: {"tasks": [s["index"]]})
    g.add_edge(START, "agent")
    g.add_edge("agent", "map")
    return g.compile(checkpointer=saver if saver is not None else InMemorySaver(), **kw)


def _shape(graph, cfg):
    return [(s.metadata["source"], s.metadata["step"], s.next, s.values, [(t.name, t.result) for t in s.tasks])
            for s in graph.get_state_history(cfg)]


def cfg(thread="1"):
    return {"configurable": {"thread_id": thread}}


@pytest.fixture(params=["memory", "sqlite"])
def saver(request, tmp_path):
    if request.param == "memory":
        yield InMemorySaver()
    else:
        s = SqliteSaver(tmp_path / "runs.sqlite")
        yield s
        s.close()


def test_bulk_update_state_rebuilds_a_run_superstep_by_superstep(saver):
    graph = _graph(saver)
    graph.invoke({"foo": "in"}, cfg("run"))
    graph.bulk_update_state(cfg("bulk"), [
        [StateUpdate({"foo": "in"}, "__input__")],
        [StateUpdate({"foo": "in"}, START)],
        [StateUpdate({"foo": "agent"}, "agent")],
        [StateUpdate(Command(goto=[Send("task", {"index": 0}), Send("task", {"index": 1})],
                             update={"foo": "map"}), "map")],
        [StateUpdate({"tasks": [0]}, "task"), StateUpdate({"tasks": [1]}, "task")],
    ])
    ran, rebuilt = _shape(graph, cfg("run")), _shape(graph, cfg("bulk"))
    assert [r[1:4] for r in rebuilt] == [r[1:4] for r in ran]
    assert [r[0] for r in rebuilt] == ["update", "update", "update", "update", "input"]
    assert graph.get_state(cfg("bulk")).values == {"foo": "map", "tasks": [0, 1]}


def test_bulk_update_state_refuses_what_langgraph_refuses():
    graph = _graph()
    with pytest.raises(ValueError, match="No supersteps provided"):
        graph.bulk_update_state(cfg(), [])
    with pytest.raises(ValueError, match="No updates provided"):
        graph.bulk_update_state(cfg(), [[], []])
    with pytest.raises(InvalidUpdateError, match="as_node is required"):
        graph.bulk_update_state(cfg(), [[StateUpdate({"foo": "a"}), StateUpdate({"foo": "b"})]])
    with pytest.raises(InvalidUpdateError, match="clearing state"):
        graph.bulk_update_state(cfg(), [[StateUpdate(None, END), StateUpdate(None, "__copy__")]])
    with pytest.raises(InvalidUpdateError, match="non-existent checkpoint"):
        graph.update_state(cfg(), None, as_node="__copy__")


def test_one_superstep_of_two_updates_makes_one_checkpoint():
    graph = _graph()
    graph.bulk_update_state(cfg(), [[StateUpdate({"foo": "x"}, "agent"), StateUpdate({"tasks": [7]}, "task")]])
    history = list(graph.get_state_history(cfg()))
    assert len(history) == 1
    assert history[0].values == {"foo": "x", "tasks": [7]}


def test_copy_forks_a_sibling_that_runs_the_same_next_tasks(saver):
    graph = _graph(saver)
    graph.invoke({"foo": "in"}, cfg())
    at_map = next(s for s in graph.get_state_history(cfg()) if s.next == ("map",))
    copied = graph.update_state(at_map.config, None, as_node="__copy__")
    copy = graph.get_state(copied)
    assert copy.metadata["source"] == "fork"
    assert copy.metadata["step"] == at_map.metadata["step"] + 1
    assert copy.parent_config == at_map.parent_config  # a sibling, not a child
    assert (copy.next, copy.values) == (at_map.next, at_map.values)
    assert graph.invoke(None, copied) == {"foo": "map", "tasks": [0, 1]}


def test_end_with_no_values_clears_the_next_tasks():
    graph = _graph(interrupt_before=["map"])
    graph.invoke({"foo": "in"}, cfg())
    assert graph.get_state(cfg()).next == ("map",)
    graph.update_state(cfg(), None, as_node=END)
    state = graph.get_state(cfg())
    assert (state.next, state.values, state.metadata["source"]) == ((), {"foo": "agent", "tasks": []}, "update")


def test_history_shows_what_each_task_wrote(saver):
    graph = _graph(saver)
    graph.invoke({"foo": "in"}, cfg())
    results = [[(t.name, t.result) for t in s.tasks] for s in graph.get_state_history(cfg())]
    assert results[-1] == [(START, {"foo": "in"})]
    assert results[-2] == [("agent", {"foo": "agent"})]
    assert results[-3] == [("map", {"foo": "map"})]


def test_task_records_have_langgraph_pregel_task_fields(saver):
    graph = _graph(saver, interrupt_before=["map"])
    graph.invoke({"foo": "in"}, cfg())
    task = graph.get_state(cfg()).tasks[0]
    assert task._fields == ("id", "name", "path", "error", "interrupts", "state", "result")
    assert (task.name, task.path, task.error, task.interrupts, task.result) == ("map", ("__pregel_pull", "map"),
                                                                                None, (), None)


class Foo(TypedDict):
    foo: Annotated[str, operator.add]


def _chain(**kw):
    g = StateGraph(Foo)
    g.add_node("node1", lambda s: {"foo": "|1"})
    g.add_node("node2", lambda s: {"foo": "|2"})
    g.add_edge(START, "node1")
    g.add_edge("node1", "node2")
    return g.compile(checkpointer=InMemorySaver(), **kw)


def test_resume_at_a_static_breakpoint_goes_on():
    graph = _chain(interrupt_before=["node1"])
    graph.invoke({"foo": "abc"}, cfg())
    assert graph.invoke(Command(resume="anything"), cfg()) == {"foo": "abc|1|2"}


def test_goto_at_a_static_breakpoint_adds_to_the_pending_step():
    graph = _chain(interrupt_before=["node1"])
    graph.invoke({"foo": "abc"}, cfg())
    assert graph.invoke(Command(goto=["node2"]), cfg()) == {"foo": "abc|1|2|2"}
    assert [s.metadata["step"] for s in graph.get_state_history(cfg())] == [2, 1, 0, -1]


def test_update_at_a_static_breakpoint_applies_before_the_pending_step():
    graph = _chain(interrupt_before=["node1"])
    graph.invoke({"foo": "abc"}, cfg())
    assert graph.invoke(Command(update={"foo": "|up"}), cfg()) == {"foo": "abc|up|1|2"}


def test_a_command_input_survives_until_its_step_commits():
    graph = _chain(interrupt_before=["node1", "node2"])
    graph.invoke({"foo": "abc"}, cfg())
    graph.invoke(Command(update={"foo": "|up"}, goto="node2"), cfg())  # runs node1+node2, stops before node2
    state = graph.get_state(cfg())
    assert (state.values, state.next) == ({"foo": "abc|up|1|2"}, ("node2",))


def test_a_goto_to_no_node_names_it():
    graph = _chain(interrupt_before=["node1"])
    graph.invoke({"foo": "abc"}, cfg())
    with pytest.raises(ValueError, match="'nowhere'.*node1, node2"):
        graph.invoke(Command(goto="nowhere"), cfg())


# -- the checkpointer object API --------------------------------------------------------
def _failing(saver):
    def fail(s):
        raise ValueError("boom")

    g = StateGraph(S)
    g.add_node("a", lambda s: {"foo": "a"})
    g.add_node("b", lambda s: {"tasks": [1]})
    g.add_node("c", fail)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    graph = g.compile(checkpointer=saver)
    with pytest.raises(ValueError, match="boom"):
        graph.invoke({"foo": ""}, {**cfg(), "metadata": {"who": "me"}})
    return graph


def test_get_tuple_and_get_return_langgraph_records(saver):
    _failing(saver)
    found = saver.get_tuple(cfg())
    assert isinstance(found, CheckpointTuple)
    # as LangGraph: the channels that trigger the next tasks, no never-written reducer key
    assert found.checkpoint["channel_values"] == {"foo": "a", "branch:to:b": None, "branch:to:c": None}
    assert found.metadata == {"source": "loop", "step": 1, "parents": {}, "who": "me"}
    assert found.parent_config["configurable"]["thread_id"] == "1"
    assert sorted((c, v) for _, c, v in found.pending_writes) == [("__error__", "ValueError('boom')"),
                                                                   ("tasks", [1])]
    assert saver.get(cfg())["id"] == found.config["configurable"]["checkpoint_id"]
    assert saver.get_tuple(cfg("nobody")) is None


def test_list_takes_langgraph_filter_before_and_limit(saver):
    _failing(saver)
    every = list(saver.list(cfg()))
    assert [t.metadata["step"] for t in every] == [1, 0, -1]
    assert [t.metadata["step"] for t in saver.list(cfg(), limit=2)] == [1, 0]
    assert [t.metadata["step"] for t in saver.list(cfg(), before=every[1].config)] == [-1]
    assert [t.metadata["source"] for t in saver.list(cfg(), filter={"source": "input"})] == ["input"]
    assert len(list(saver.list(None))) == 3


def test_put_and_put_writes_in_langgraph_form_round_trip(saver):
    made = saver.put(cfg("t"), {"id": "c1", "ts": "2026-01-01T00:00:00+00:00", "channel_values": {"a": 1}},
                     {"source": "input", "step": -1, "who": "me"}, {})
    assert made == {"configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": "c1"}}
    saver.put_writes(made, [("a", 2)], "task-1")
    found = saver.get_tuple(made)
    assert (found.checkpoint["channel_values"], found.metadata["who"], found.pending_writes) == (
        {"a": 1}, "me", [("task-1", "a", 2)])
    assert saver.load("t") is not None  # the store's own form still works beside it


def test_async_twins_and_delete_thread(saver, tmp_path):
    graph = _failing(saver)
    if isinstance(saver, SqliteSaver):  # as LangGraph's: the sync saver points at AsyncSqliteSaver
        from engine.checkpoint.sqlite_aio import AsyncSqliteSaver

        with pytest.raises(NotImplementedError, match="AsyncSqliteSaver"):
            asyncio.run(saver.aget_tuple(cfg()))
        saver = AsyncSqliteSaver(tmp_path / "runs.sqlite")

    async def read():
        one = await saver.aget_tuple(cfg())
        some = [t async for t in saver.alist(cfg(), limit=2)]
        first = await saver.aget(cfg())
        await saver.adelete_thread("1")
        return one, some, first

    one, some, first = asyncio.run(read())
    assert one.config == some[0].config and first["id"] == one.checkpoint["id"] and len(some) == 2
    assert saver.get_tuple(cfg()) is None and list(graph.get_state_history(cfg())) == []
