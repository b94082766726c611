"""The saver base class takes a version type, as LangGraph's does (`BaseCheckpointSaver[str]`
is how langchain's tests annotate their checkpointer fixtures)."""
from __future__ import annotations

import typing

from engine import END, START, InMemorySaver, StateGraph
from engine.checkpoint.base import BaseCheckpointSaver


def test_the_saver_base_is_subscriptable_by_its_version_type():
    alias = BaseCheckpointSaver[str]
    assert typing.get_origin(alias) is BaseCheckpointSaver
    assert typing.get_args(alias) == (str,)


def test_a_saver_subclassing_the_subscripted_base_runs_a_graph():
    class Saver(InMemorySaver, BaseCheckpointSaver[str]):
        pass

    g = StateGraph(dict)
    g.add_node("a", lambda s: {"x": 1})
    g.add_edge(START, "a")
    g.add_edge("a", END)
    saver = Saver()
    app = g.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    assert app.invoke({"x": 0}, cfg) == {"x": 1}
    assert app.get_state(cfg).values == {"x": 1}
    assert isinstance(saver, BaseCheckpointSaver)


def test_the_compat_import_is_the_same_generic_class():
    from engine import compat

    compat.install()
    from langgraph.checkpoint.base import BaseCheckpointSaver as Compat

    assert Compat[str] == BaseCheckpointSaver[str]
