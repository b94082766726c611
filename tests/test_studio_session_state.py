"""The session's Qt-free parts: the shared state and the edit -> update rule."""
from __future__ import annotations

import operator
import subprocess
import sys
from typing import Annotated, TypedDict

import pytest

from engine import StateGraph, START, END


class S(TypedDict):
    flag: int
    log: Annotated[list, operator.add]


def _base(values):
    """A graph over S (a -> END) with one saved checkpoint holding `values`."""
    from engine import InMemorySaver

    g = StateGraph(S)
    g.add_node("a", lambda s: {})
    g.add_edge(START, "a")
    g.add_edge("a", END)
    saver = InMemorySaver()
    graph = g.compile(checkpointer=saver)
    graph.update_state({"configurable": {"thread_id": "t"}}, values, as_node="a")
    return graph, saver.load("t")


def test_edit_plan_sees_true_to_one_as_a_change():
    from studio.core.editable import to_editable

    editable = to_editable({"flag": True, "log": ["x"]})
    changed = editable.changed({"flag": 1, "log": ["x"]})
    assert changed == {"flag": 1} and type(changed["flag"]) is int


def test_edit_plan_appends_the_tail_through_the_reducer():
    from engine import Overwrite
    from studio.core.edits import plan_edit

    graph, base = _base({"log": ["x"]})
    assert plan_edit(graph, base, {"log": ["x", "y"]}).update() == {"log": ["y"]}
    replaced = plan_edit(graph, base, {"log": ["z"]}).update()["log"]
    assert isinstance(replaced, Overwrite) and replaced.value == ["z"]
    with pytest.raises(ValueError, match="`nope` not in the state schema"):
        plan_edit(graph, base, {"nope": 1})


def test_session_state_works_without_qt(tmp_path):
    code = (
        "import sys\n"
        "from studio.core.state import SessionState\n"
        f"s = SessionState.new({str(tmp_path / 'x.sqlite')!r}, lambda e: None)\n"
        "v = s.status_view()\n"
        "print(v.status, v.can_step, s.head_id, sorted(s.marks().next))\n"
        "print([m for m in sys.modules if m.startswith('PySide6')])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["no graph False None []", "[]"]


def test_edit_plan_turns_typed_dicts_into_messages_for_any_add_messages():
    from engine import AIMessage, InMemorySaver, Overwrite, add_messages
    from studio.core.edits import plan_edit

    for reducer in (add_messages, add_messages(format="langchain-openai")):
        g = StateGraph(TypedDict("M", {"messages": Annotated[list, reducer]}))
        g.add_node("a", lambda s: {})
        g.add_edge(START, "a")
        saver = InMemorySaver()
        graph = g.compile(checkpointer=saver)
        graph.update_state({"configurable": {"thread_id": "t"}}, {"messages": [AIMessage(content="before", id="1")]},
                           as_node="a")
        plan = plan_edit(graph, saver.load("t"), {"messages": [{"role": "ai", "content": "hi"}]},
                         how={"messages": "replace"})
        value = plan.update()["messages"]
        assert isinstance(value, Overwrite), reducer
        assert [type(m) for m in value.value] == [AIMessage], reducer