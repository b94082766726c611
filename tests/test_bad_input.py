"""Bad input at the engine level, beyond tests/test_engine_errors.py: what the user sees
(the exception and its message) and that the thread's history stays as it was.

LangGraph 1.2's behaviour, observed with the installed `langgraph`, is noted where it
decides the expected answer.
"""
from __future__ import annotations

import operator
import threading
import time
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from engine import (
    END,
    START,
    GraphRecursionError,
    InMemorySaver,
    InvalidUpdateError,
    MissingThreadIdError,
    SqliteSaver,
    StateGraph,
)

CFG = {"configurable": {"thread_id": "t"}}
MISSING_ID = "01a2ffffffff-000000-000000"


class S(TypedDict):
    log: Annotated[list, operator.add]
    n: int


class QuotaExceeded(RuntimeError):
    pass


def _ids(graph, config=CFG) -> list[str]:
    return [s.config["configurable"]["checkpoint_id"] for s in graph.get_state_history(config)]


def _fork_join(runs: list[str] | None = None):
    """START -> a, b (in parallel); a -> c."""
    def node(name):
        def fn(state):
            if runs is not None:
                runs.append(name)
            return {"log": [name]}
        return fn

    g = StateGraph(S)
    for name in "abc":
        g.add_node(name, node(name))
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("a", "c")
    return g


def _paused_after_a_and_b(saver=None):
    graph = _fork_join().compile(checkpointer=saver or InMemorySaver())
    graph.invoke({"log": [], "n": 0}, CFG, interrupt_before=["c"])
    return graph


# -- a node raising ------------------------------------------------------------------
def _charging_graph(raised: list[BaseException]):
    def charge(state):
        error = QuotaExceeded("card 4242 declined: quota of 3 calls used up")
        raised.append(error)
        raise error

    g = StateGraph(S)
    g.add_node("plan", lambda s: {"log": ["plan"]})
    g.add_node("charge", charge)
    g.add_edge(START, "plan")
    g.add_edge("plan", "charge")
    return g


def test_node_error_propagates_unchanged_and_history_stays(tmp_path: Path):
    raised: list[BaseException] = []
    db = tmp_path / "runs.sqlite"
    with SqliteSaver(db) as saver:
        graph = _charging_graph(raised).compile(checkpointer=saver)
        with pytest.raises(QuotaExceeded) as info:
            graph.invoke({"log": [], "n": 0}, CFG)
        assert info.value is raised[0], "the node's own exception object, not a wrapper"
        assert str(info.value) == "card 4242 declined: quota of 3 calls used up"
        before = _ids(graph)
        with pytest.raises(QuotaExceeded):
            graph.invoke(None, CFG)  # trying again fails again and adds nothing
        assert _ids(graph) == before
    with SqliteSaver(db) as reopened:  # what the studio sees when it opens the file
        state = _charging_graph([]).compile(checkpointer=reopened).get_state(CFG)
    assert state.values == {"log": ["plan"], "n": 0}
    assert state.next == ("charge",)
    assert state.tasks[0].name == "charge"
    assert "card 4242 declined: quota of 3 calls used up" in state.tasks[0].error


def test_task_error_names_the_exception_type_as_langgraph_does():
    graph = _charging_graph([]).compile(checkpointer=InMemorySaver())
    with pytest.raises(QuotaExceeded):
        graph.invoke({"log": [], "n": 0}, CFG)
    assert graph.get_state(CFG).tasks[0].error == "QuotaExceeded('card 4242 declined: quota of 3 calls used up')"


def test_after_a_parallel_failure_only_the_failed_node_runs_again():
    runs: list[str] = []
    attempts = iter([QuotaExceeded("try later"), None])

    async def quick(state):
        runs.append("quick")
        return {"log": ["quick"]}

    async def flaky(state):
        runs.append("flaky")
        error = next(attempts)
        if error is not None:
            raise error
        return {"log": ["flaky"]}

    g = StateGraph(S)
    g.add_node("quick", quick)
    g.add_node("flaky", flaky)
    g.add_edge(START, "quick")
    g.add_edge(START, "flaky")
    graph = g.compile(checkpointer=InMemorySaver())
    with pytest.raises(QuotaExceeded, match="try later"):
        graph.invoke({"log": [], "n": 0}, CFG)
    assert sorted(runs) == ["flaky", "quick"]
    assert graph.get_state(CFG).next == ("flaky",)
    assert graph.invoke(None, CFG) == {"log": ["flaky", "quick"], "n": 0}
    assert sorted(runs) == ["flaky", "flaky", "quick"], "quick ran once: its writes were saved"


def test_a_sibling_still_running_when_another_task_fails_runs_once():
    """As LangGraph: the sibling finishes, its writes are saved, and it never runs twice
    (it once ran a second time in the same invoke, while the first run went on)."""
    runs: list[str] = []
    slow_started = threading.Event()

    def slow(state):
        runs.append("slow")
        slow_started.set()
        time.sleep(0.2)  # setup: still running when `failing` raises
        return {"log": ["slow"]}

    def failing(state):
        slow_started.wait(5)
        raise QuotaExceeded("try later")

    g = StateGraph(S)
    g.add_node("slow", slow)
    g.add_node("failing", failing)
    g.add_edge(START, "slow")
    g.add_edge(START, "failing")
    graph = g.compile(checkpointer=InMemorySaver())
    with pytest.raises(QuotaExceeded):
        graph.invoke({"log": [], "n": 0}, CFG)
    assert runs == ["slow"]
    assert graph.get_state(CFG).next == ("failing",), "slow's writes were saved"


# -- recursion limit with a checkpointer ---------------------------------------------
def _counter(target: int):
    g = StateGraph(S)
    g.add_node("count", lambda s: {"n": s["n"] + 1, "log": [s["n"]]})
    g.add_edge(START, "count")
    g.add_conditional_edges("count", lambda s: END if s["n"] >= target else "count", ["count", END])
    return g


def test_recursion_limit_keeps_the_history_and_the_run_continues_with_a_higher_limit():
    graph = _counter(12).compile(checkpointer=InMemorySaver())
    with pytest.raises(GraphRecursionError) as info:
        graph.invoke({"log": [], "n": 0}, {**CFG, "recursion_limit": 5})
    assert str(info.value).startswith(
        "Recursion limit of 5 reached without hitting a stop condition. You can increase the limit "
        "by setting the `recursion_limit` config key."
    )
    kept = _ids(graph)
    history = list(graph.get_state_history(CFG))
    assert [s.metadata["step"] for s in history] == list(range(len(history) - 2, -2, -1))
    latest = history[0]
    assert latest.values["n"] == latest.metadata["step"] and latest.next == ("count",)
    assert graph.invoke(None, {**CFG, "recursion_limit": 50}) == {"log": list(range(12)), "n": 12}
    after = _ids(graph)
    assert after[-len(kept):] == kept, "the run went on from where it stopped; nothing was lost"
    assert graph.get_state(CFG).metadata["step"] == 12


def test_recursion_limit_saves_as_many_supersteps_as_langgraph():
    graph = _counter(50).compile(checkpointer=InMemorySaver())
    with pytest.raises(GraphRecursionError):
        graph.invoke({"log": [], "n": 0}, {**CFG, "recursion_limit": 5})
    state = graph.get_state(CFG)
    assert (state.metadata["step"], state.values["n"]) == (5, 5)


# -- update_state ----------------------------------------------------------------------
def test_update_state_drops_unknown_keys_as_langgraph_does():
    graph = _paused_after_a_and_b()
    graph.update_state(CFG, {"log": ["human"], "colour": "red"}, as_node="a")
    state = graph.get_state(CFG)
    assert state.values == {"log": ["a", "b", "human"], "n": 0}
    assert state.metadata["source"] == "update" and state.next == ("c",)
    graph.update_state(CFG, {"colour": "blue"}, as_node="a")  # only unknown keys: a no-op update
    state = graph.get_state(CFG)
    assert state.values == {"log": ["a", "b", "human"], "n": 0}
    assert (state.metadata["source"], state.metadata["step"]) == ("update", 3)


def test_update_state_with_an_unknown_as_node_names_it_and_the_nodes():
    graph = _paused_after_a_and_b()
    before = _ids(graph)
    with pytest.raises(InvalidUpdateError) as info:
        graph.update_state(CFG, {"log": ["x"]}, as_node="ghost")
    assert str(info.value) == "update_state(as_node='ghost'): no such node (nodes: a, b, c)"
    with pytest.raises(InvalidUpdateError, match=r"update_state\(as_node='__end__'\): no such node"):
        graph.update_state(CFG, {"log": ["x"]}, as_node=END)
    assert _ids(graph) == before


def test_ambiguous_update_state_says_to_pass_as_node():
    graph = _paused_after_a_and_b()
    before = _ids(graph)
    with pytest.raises(InvalidUpdateError) as info:
        graph.update_state(CFG, {"log": ["x"]})
    assert str(info.value) == (
        "Ambiguous update, specify as_node: a, b all ran in the last superstep, so pass "
        "as_node='<one of them>' to say whose update this is."
    )
    assert _ids(graph) == before
    graph.update_state(CFG, {"log": ["x"]}, as_node="b")
    assert graph.get_state(CFG).values["log"] == ["a", "b", "x"]


def test_update_state_with_a_value_that_is_not_a_dict():
    graph = _paused_after_a_and_b()
    before = _ids(graph)
    with pytest.raises(InvalidUpdateError, match=r"update_state\(values='hello'\): expected a dict"):
        graph.update_state(CFG, "hello", as_node="a")
    assert _ids(graph) == before


def test_update_state_non_dict_message_names_update_state():
    graph = _paused_after_a_and_b()
    with pytest.raises(InvalidUpdateError) as info:
        graph.update_state(CFG, "hello", as_node="a")
    assert "update_state" in str(info.value) and "returned" not in str(info.value)


# -- threads and checkpoints that do not exist -----------------------------------------
def test_get_state_of_an_unknown_thread_is_empty_and_creates_nothing(tmp_path: Path):
    with SqliteSaver(tmp_path / "runs.sqlite") as saver:
        graph = _fork_join().compile(checkpointer=saver)
        graph.invoke({"log": [], "n": 0}, CFG)
        nobody = {"configurable": {"thread_id": "nobody"}}
        state = graph.get_state(nobody)
        assert (state.values, state.next, state.created_at, state.tasks) == ({}, (), None, ())
        assert list(graph.get_state_history(nobody)) == []
        assert [t.thread_id for t in saver.threads()] == ["t"]


def test_a_config_naming_a_missing_checkpoint():
    graph = _paused_after_a_and_b()
    before = _ids(graph)
    bogus = {"configurable": {"thread_id": "t", "checkpoint_id": MISSING_ID}}
    assert graph.get_state(bogus).values == {}  # as LangGraph: an empty snapshot, no error
    message = f"thread 't' has no checkpoint '{MISSING_ID}'; pick one from get_state_history()"
    with pytest.raises(ValueError) as info:
        graph.invoke(None, bogus)
    assert str(info.value) == message
    with pytest.raises(ValueError) as info:  # LangGraph would silently start from an empty state
        graph.invoke({"log": ["z"]}, bogus)
    assert str(info.value) == message
    with pytest.raises(ValueError, match=f"thread 't' has no checkpoint '{MISSING_ID}'"):
        graph.update_state(bogus, {"log": ["x"]}, as_node="a")
    assert _ids(graph) == before


def test_update_state_naming_a_missing_checkpoint_says_what_to_do():
    graph = _paused_after_a_and_b()
    bogus = {"configurable": {"thread_id": "t", "checkpoint_id": MISSING_ID}}
    with pytest.raises(ValueError, match="pick one from get_state_history"):
        graph.update_state(bogus, {"log": ["x"]}, as_node="a")


def test_state_calls_without_a_thread_or_without_a_checkpointer():
    graph = _paused_after_a_and_b()
    with pytest.raises(MissingThreadIdError) as info:
        graph.get_state({"configurable": {}})
    assert str(info.value) == "config needs a thread: {'configurable': {'thread_id': 'some-id'}}"
    with pytest.raises(MissingThreadIdError):
        graph.update_state({}, {"log": ["x"]}, as_node="a")
    plain = _fork_join().compile()
    with pytest.raises(ValueError) as info:
        plain.get_state(CFG)
    assert str(info.value) == "No checkpointer set: compile(checkpointer=InMemorySaver()) to keep state"
