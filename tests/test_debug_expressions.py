"""The expression language of watches, breakpoints, field history and search (Qt-free),
and field history over a real recorded SQLite history (search: test_debug_search.py)."""
from __future__ import annotations

import pytest

from engine import END, START, MessagesState, SqliteSaver, StateGraph
from engine.messages import AIMessage
from studio.core.conditions import BreakCondition, Conditions
from studio.core.expressions import MISSING_VALUE, Expression, ExpressionError
from studio.core.fieldhistory import field_history

STATE = {"messages": [AIMessage(content="hi", id="m1")], "plan": {"steps": [1, 2]}, "n": 3}


@pytest.mark.parametrize("text, value", [
    ("len(messages) > 0", True),
    ("messages[-1].content", "hi"),
    ("plan.steps", [1, 2]),
    ("plan['steps'][1] * n", 6),
    ("[s * 2 for s in plan.steps if s > 1]", [4]),
    ("state['n'] == n", True),
    ("messages[5].content", MISSING_VALUE),
    ("nothing_here", MISSING_VALUE),
])
def test_values(text: str, value: object) -> None:
    assert Expression.parse(text).evaluate(STATE) == value


@pytest.mark.parametrize("text, message", [
    ("", "the expression is empty"),
    ("len(messages", "`len(messages` is not a valid expression"),
    ("messages.clear()", "`messages.clear(...)` cannot be called"),
    ("__import__('os').system('true')", "cannot be called"),
    ("n.__class__", "private attributes such as `__class__`"),
    ("(lambda: 1)", "lambda is not allowed"),
    ("x" * 3000, "at most 2000"),
])
def test_refused_at_parse_time(text: str, message: str) -> None:
    with pytest.raises(ExpressionError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")
                       .replace("[", r"\[")):
        Expression.parse(text)


def test_evaluation_errors_name_the_expression_and_never_change_the_state() -> None:
    with pytest.raises(ExpressionError, match=r"`n \+ 'a'`: TypeError"):
        Expression.parse("n + 'a'").evaluate(STATE)
    with pytest.raises(ExpressionError, match="9 \\*\\* 9 \\*\\* 9"):
        Expression.parse("9 ** 9 ** 9").evaluate(STATE)
    assert STATE["plan"] == {"steps": [1, 2]} and len(STATE["messages"]) == 1


def test_conditions_become_true_once_and_check_nodes() -> None:
    c = Conditions()
    c.add(BreakCondition.make("expression", "n > 2", when="after"))
    c.prime({"n": 1})
    assert c.after_commit({"n": 1}, {"n": 3}, ["a"], {"n": ["a"]}) == "Conditional breakpoint: `n > 2` became true"
    assert c.after_commit({"n": 3}, {"n": 4}, ["a"], {"n": ["a"]}) is None  # still true: no second stop
    with pytest.raises(ValueError, match="no node `zz` in this graph \\(nodes: a, b\\)"):
        BreakCondition.make("change", "n", node="zz", nodes=["a", "b"])
    with pytest.raises(ExpressionError, match="not a path into the state"):
        BreakCondition.make("change", "len(n)")
    only_b = Conditions()
    only_b.add(BreakCondition.make("change", "n", node="b"))
    assert only_b.after_commit({"n": 1}, {"n": 2}, ["a"], {"n": ["a"]}) is None
    assert "written by `b`" in only_b.after_commit({"n": 1}, {"n": 2}, ["b"], {"n": ["b"]})


def _chat_history(tmp_path):
    def bot(s):
        n = len(s["messages"])
        return {"messages": [AIMessage(content=f"reply {n}")]}

    g = StateGraph(MessagesState)
    g.add_node("bot", bot)
    g.add_edge(START, "bot")
    g.add_edge("bot", END)
    saver = SqliteSaver(str(tmp_path / "chat.sqlite"))
    app = g.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "c"}, "record": True}
    for text in ("hello", "again", "third"):
        app.invoke({"messages": [("user", text)]}, cfg)
    ids = [h.id for h in saver.list_headers("c")][::-1]
    return saver, ids


def test_field_history_of_a_message_path(tmp_path) -> None:
    saver, ids = _chat_history(tmp_path)
    changes = field_history("messages[3].content", ids, lambda cid: saver.load("c", cid))
    assert [(c.nodes, c.before, c.after) for c in changes] == [(("bot",), MISSING_VALUE, "reply 3")]
    whole = field_history("messages", ids, lambda cid: saver.load("c", cid))
    assert [len(c.after) for c in whole] == [0, 1, 2, 3, 4, 5, 6]
    assert [c.nodes for c in whole[1:]] == [("__start__",), ("bot",)] * 3  # who wrote each change
    with pytest.raises(ExpressionError, match="not a path"):
        field_history("1 + 1", ids, lambda cid: saver.load("c", cid))


def test_before_conditions_check_the_state_the_node_will_read() -> None:
    c = Conditions()
    c.add(BreakCondition.make("expression", "n >= 2", node="b", when="before"))
    c.prime({"n": 0})
    assert c.before_tasks({"n": 2}, ["a"]) is None  # true, but `b` is not about to run
    c2 = Conditions()
    c2.add(BreakCondition.make("expression", "n >= 2", node="b", when="before"))
    c2.prime({"n": 0})
    assert c2.before_tasks({"n": 2}, ["b"]) == "Conditional breakpoint: `n >= 2` became true, before `b` runs"
    pending = Conditions()
    pending.add(BreakCondition.make("change", "plan.steps", node="b", when="before"))
    assert pending.before_commit([("a", "plan")]) is None
    assert "`b` is about to write `plan`" in pending.before_commit([("a", "plan"), ("b", "plan")])


def test_a_change_of_type_is_a_change_everywhere_the_studio_compares() -> None:
    # True -> 1 are equal in Python; field history, conditional breakpoints and edits all
    # use one comparison (valuediff.same), for which they differ
    from typing import TypedDict

    from engine import END, START, InMemorySaver, StateGraph

    class F(TypedDict):
        flag: object

    g = StateGraph(F)
    g.add_node("a", lambda s: {"flag": True})
    g.add_node("b", lambda s: {"flag": 1})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    saver = InMemorySaver()
    g.compile(checkpointer=saver).invoke({"flag": None}, {"configurable": {"thread_id": "f"}})
    ids = [c.id for c in saver.history("f")][::-1]
    changes = field_history("flag", ids, lambda cid: saver.load("f", cid))
    assert [(c.nodes, c.before, c.after) for c in changes][-2:] == [(("a",), None, True), (("b",), True, 1)]
