"""Time travel into subgraphs: replaying or forking a parent checkpoint takes each subgraph
back to its state as of that checkpoint; a subgraph's own checkpoint config (with its
`checkpoint_map`) replays from inside the subgraph, and a resume with it finishes the
parent; a resume value no paused task takes goes to the next interrupt()."""
from __future__ import annotations

import operator
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

import pytest

from engine import START, Command, InMemorySaver, SqliteSaver, StateGraph, interrupt


class Tally(TypedDict):
    marks: Annotated[list, operator.add]


class Top(TypedDict):
    steps: Annotated[list, operator.add]
    n: int


class Log(TypedDict):
    log: Annotated[list, operator.add]


@pytest.fixture(params=["memory", "sqlite"])
def saver(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    store = InMemorySaver() if request.param == "memory" else SqliteSaver(tmp_path / "tt.db")
    yield store
    store.close()


def _cfg(tid: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": tid}}


def _counter(seen: list[list[str]], *, stateful: bool = True) -> Any:
    def mark(state: Tally) -> dict:
        seen.append(list(state["marks"]))
        return {"marks": ["m"]}

    g = StateGraph(Tally)
    g.add_node("mark", mark)
    g.add_edge(START, "mark")
    return g.compile(checkpointer=True if stateful else None)


def _looping_top(sub: Any, saver: Any, rounds: int = 1) -> Any:
    """first -> count (the subgraph) -> back to first while n < rounds."""
    g = StateGraph(Top)
    g.add_node("first", lambda s: {"steps": ["first"], "n": s.get("n", 0) + 1})
    g.add_node("count", sub)
    g.add_edge(START, "first")
    g.add_edge("first", "count")
    g.add_conditional_edges("count", lambda s: "first" if s["n"] < rounds else "__end__", ["first", "__end__"])
    return g.compile(checkpointer=saver)


def test_parent_replay_takes_a_stateful_subgraph_back_and_a_new_call_continues_the_replay(saver: Any) -> None:
    seen: list[list[str]] = []
    g = _looping_top(_counter(seen), saver)
    for _ in range(3):
        g.invoke({"steps": [], "n": 0}, _cfg())
    assert seen == [[], ["m"], ["m", "m"]]
    second_call = [s for s in g.get_state_history(_cfg()) if s.next == ("first",)][1]
    seen.clear()
    g.invoke(None, second_call.config)
    assert seen == [["m"]]  # as it was when the 2nd call started, not its latest ["m", "m", "m"]
    g.invoke({"steps": [], "n": 0}, _cfg())
    assert seen == [["m"], ["m", "m"]]  # the replay's branch is now the subgraph's latest


def test_only_the_first_call_in_a_replay_is_taken_back(saver: Any) -> None:
    seen: list[list[str]] = []
    g = _looping_top(_counter(seen), saver, rounds=2)
    g.invoke({"steps": [], "n": 0}, _cfg())
    g.invoke({"steps": [], "n": 0}, _cfg())
    assert seen == [[], ["m"], ["m", "m"], ["m", "m", "m"]]
    start_of_second = [s for s in g.get_state_history(_cfg()) if s.next == ("first",) and s.values["n"] == 0][0]
    seen.clear()
    g.invoke(None, start_of_second.config)
    assert seen == [["m", "m"], ["m", "m", "m"]]  # the loop's 2nd call continues the 1st


def test_replay_before_any_subgraph_call_starts_it_empty_and_fork_uses_the_edited_checkpoint(saver: Any) -> None:
    seen: list[list[str]] = []
    g = _looping_top(_counter(seen), saver)
    g.invoke({"steps": [], "n": 0}, _cfg())
    g.invoke({"steps": [], "n": 0}, _cfg())
    history = list(g.get_state_history(_cfg()))
    seen.clear()
    g.invoke(None, [s for s in history if s.next == ("count",)][-1].config)
    assert seen == [[]]
    edited = g.update_state([s for s in history if s.next == ("count",)][0].config, {"steps": ["edit"]})
    seen.clear()
    g.invoke(None, edited)
    assert seen == [["m"]]  # the subgraph as of the checkpoint that was edited


def test_a_stateless_subgraph_starts_empty_on_every_replay(saver: Any) -> None:
    seen: list[list[str]] = []
    g = _looping_top(_counter(seen, stateful=False), saver)
    g.invoke({"steps": [], "n": 0}, _cfg())
    g.invoke(None, [s for s in g.get_state_history(_cfg()) if s.next == ("count",)][0].config)
    assert seen == [[], []]


def _asker(calls: list[str]) -> Any:
    def prep(state: Log) -> dict:
        calls.append("prep")
        return {"log": ["prep"]}

    def ask(state: Log) -> dict:
        calls.append("ask")
        return {"log": [f"ask={interrupt('ask?')}"]}

    def done(state: Log) -> dict:
        calls.append("done")
        return {"log": ["done"]}

    g = StateGraph(Log)
    g.add_node("prep", prep)
    g.add_node("ask", ask)
    g.add_node("done", done)
    g.add_edge(START, "prep")
    g.add_edge("prep", "ask")
    g.add_edge("ask", "done")
    return g.compile(checkpointer=True)


def _parent(calls: list[str], saver: Any, inner: Any = None) -> Any:
    g = StateGraph(Log)
    g.add_node("pre", lambda s: {"log": ["pre"]})
    g.add_node("sub", inner if inner is not None else _asker(calls))
    g.add_node("post", lambda s: {"log": ["post"]})
    g.add_edge(START, "pre")
    g.add_edge("pre", "sub")
    g.add_edge("sub", "post")
    return g.compile(checkpointer=saver)


def test_subgraph_checkpoints_lead_back_to_the_parent_checkpoint_that_ran_them(saver: Any) -> None:
    g = _parent([], saver)
    g.invoke({"log": []}, _cfg())
    top = g.get_state(_cfg(), subgraphs=True)
    sub = top.tasks[0].state
    conf = sub.config["configurable"]
    assert conf["checkpoint_ns"] == "sub"
    assert conf["checkpoint_map"] == {"": top.config["configurable"]["checkpoint_id"], "sub": conf["checkpoint_id"]}
    assert sub.metadata["parents"] == {"": top.config["configurable"]["checkpoint_id"]}
    assert top.metadata["parents"] == {}


def test_replay_and_resume_from_a_subgraph_checkpoint(saver: Any) -> None:
    calls: list[str] = []
    g = _parent(calls, saver)
    g.invoke({"log": []}, _cfg())
    at_ask = g.get_state(_cfg(), subgraphs=True).tasks[0].state.config
    assert g.invoke(Command(resume="first"), _cfg())["log"] == ["pre", "pre", "prep", "ask=first", "done", "post"]
    calls.clear()
    replayed = g.invoke(None, at_ask)
    assert calls == ["ask"]  # prep ran before that checkpoint: not again
    assert [i.value for i in replayed["__interrupt__"]] == ["ask?"]
    fork = next(iter(g.get_state_history(_cfg())))
    assert (fork.metadata["source"], fork.next) == ("fork", ("sub",))
    assert fork.parent_config["configurable"]["checkpoint_id"] == at_ask["configurable"]["checkpoint_map"][""]
    calls.clear()
    out = g.invoke(Command(resume="second"), at_ask)
    assert calls == ["ask", "done"]
    assert out["log"] == ["pre", "pre", "prep", "ask=second", "done", "post"]


def test_edit_a_subgraph_checkpoint_then_run_and_resume_from_the_edit(saver: Any) -> None:
    calls: list[str] = []
    g = _parent(calls, saver)
    g.invoke({"log": []}, _cfg())
    at_ask = g.get_state(_cfg(), subgraphs=True).tasks[0].state.config
    edited = g.update_state(at_ask, {"log": ["edited"]})
    assert edited["configurable"]["checkpoint_ns"] == "sub"
    assert edited["configurable"]["checkpoint_map"][""] == at_ask["configurable"]["checkpoint_map"][""]
    calls.clear()
    assert "__interrupt__" in g.invoke(None, edited)
    out = g.invoke(Command(resume="late"), edited)
    assert calls == ["ask", "ask", "done"]
    assert out["log"] == ["pre", "pre", "prep", "edited", "ask=late", "done", "post"]


def test_a_subgraph_checkpoint_unknown_to_the_thread_is_named_in_the_error(saver: Any) -> None:
    g = _parent([], saver)
    g.invoke({"log": []}, _cfg())
    bad = {"configurable": {"thread_id": "t", "checkpoint_ns": "sub", "checkpoint_id": "nope"}}
    with pytest.raises(ValueError, match=r"no checkpoint 'nope' in subgraph namespace 'sub'"):
        g.invoke(None, bad)
    with pytest.raises(ValueError, match="no checkpoint_id"):
        g.invoke(None, {"configurable": {"thread_id": "t", "checkpoint_ns": "sub"}})


def test_each_resume_of_a_subgraph_goes_to_its_current_interrupt(saver: Any) -> None:
    def ask(name: str) -> Any:
        return lambda s: {"log": [f"{name}={interrupt(name)}"]}

    sub = StateGraph(Log)
    sub.add_node("one", ask("one"))
    sub.add_node("two", ask("two"))
    sub.add_edge(START, "one")
    sub.add_edge("one", "two")
    g = _parent([], saver, inner=sub.compile(checkpointer=True))
    g.invoke({"log": []}, _cfg())
    assert [i.value for i in g.invoke(Command(resume="A"), _cfg())["__interrupt__"]] == ["two"]
    assert g.invoke(Command(resume="B"), _cfg())["log"] == ["pre", "pre", "one=A", "two=B", "post"]


def test_a_resume_at_a_static_breakpoint_is_taken_by_the_next_interrupt(saver: Any) -> None:
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("ask", lambda s: {"log": [f"ask={interrupt('q')}"]})
    g.add_edge(START, "a")
    g.add_edge("a", "ask")
    app = g.compile(checkpointer=saver, interrupt_before=["ask"])
    assert app.invoke({"log": []}, _cfg()) == {"log": ["a"]}
    assert app.invoke(Command(resume="given"), _cfg()) == {"log": ["a", "ask=given"]}
    app.invoke({"log": []}, _cfg("other"))
    app.invoke(None, _cfg("other"))  # no value given: the interrupt pauses as usual
    assert [i.value for i in app.get_state(_cfg("other")).interrupts] == ["q"]


def test_an_object_answering_every_attribute_is_a_plain_node_not_a_subgraph(saver: Any) -> None:
    from unittest.mock import Mock

    node = Mock(side_effect=lambda state: {"log": ["mocked"]})
    g = StateGraph(Log)
    g.add_node("m", node)
    g.add_edge(START, "m")
    assert g.compile(checkpointer=saver).invoke({"log": []}, _cfg()) == {"log": ["mocked"]}
    assert node.call_count == 1


def test_a_stateful_subgraph_keeps_its_state_under_exit_durability(saver: Any) -> None:
    seen: list[list[str]] = []
    g = _looping_top(_counter(seen), saver, rounds=2)
    g.invoke({"steps": [], "n": 0}, _cfg(), durability="exit")
    g.invoke({"steps": [], "n": 0}, _cfg(), durability="exit")
    assert seen == [[], ["m"], ["m", "m"], ["m", "m", "m"]]  # within a run and across runs
    assert len(list(g.get_state_history(_cfg()))) == 2  # the parent saved only where each run ended


def test_a_malformed_checkpoint_map_is_a_type_error_naming_it(saver: Any) -> None:
    g = _parent([], saver)
    g.invoke({"log": []}, _cfg())
    with pytest.raises(TypeError, match="checkpoint_map"):
        g.invoke(None, {"configurable": {"thread_id": "t", "checkpoint_ns": "sub", "checkpoint_id": "x",
                                         "checkpoint_map": "not a map"}})
