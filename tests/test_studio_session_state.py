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


def _channels():
    g = StateGraph(S)
    g.add_node("a", lambda s: {})
    g.add_edge(START, "a")
    g.add_edge("a", END)
    return g.compile().schema.channels


def test_edit_updates_sees_true_to_one_as_a_change():
    from studio.session.travel import edit_updates

    update = edit_updates(_channels(), {"flag": True, "log": ["x"]}, {"flag": 1, "log": ["x"]})
    assert update == {"flag": 1} and type(update["flag"]) is int


def test_edit_updates_appends_the_tail_through_the_reducer():
    from engine import Overwrite
    from studio.session.travel import edit_updates

    channels = _channels()
    assert edit_updates(channels, {"log": ["x"]}, {"log": ["x", "y"]}) == {"log": ["y"]}
    replaced = edit_updates(channels, {"log": ["x"]}, {"log": ["z"]})["log"]
    assert isinstance(replaced, Overwrite) and replaced.value == ["z"]
    with pytest.raises(ValueError, match="`nope` not in the state schema"):
        edit_updates(channels, {}, {"nope": 1})


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


def test_edit_updates_turns_typed_dicts_into_messages_for_any_add_messages():
    from engine import AIMessage, Overwrite, add_messages
    from studio.session.travel import edit_updates

    for reducer in (add_messages, add_messages(format="langchain-openai")):
        g = StateGraph(TypedDict("M", {"messages": Annotated[list, reducer]}))
        g.add_node("a", lambda s: {})
        g.add_edge(START, "a")
        channels = g.compile().schema.channels
        old = {"messages": [AIMessage(content="before", id="1")]}
        update = edit_updates(channels, old, {"messages": [{"role": "ai", "content": "hi"}]})  # not an append
        value = update["messages"]
        assert isinstance(value, Overwrite), reducer
        assert [type(m) for m in value.value] == [AIMessage], reducer
