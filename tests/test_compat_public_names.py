"""LangGraph's public names that libraries import, served by the engine: langgraph.typing,
langgraph.warnings, langgraph.types.Checkpointer, langgraph.errors.NodeInterrupt (which
pauses a run, with LangGraph's deprecation warning), the constants and utils.config."""
from __future__ import annotations

import typing
import warnings
from typing import TypedDict

import pytest

from engine import compat


@pytest.fixture
def compat_on():
    compat.install()
    yield
    compat.uninstall()


def test_typing_warnings_constants_and_config_names_import(compat_on) -> None:
    from langgraph.constants import CONF, TAG_HIDDEN, TAG_NOSTREAM
    from langgraph.types import Checkpointer
    from langgraph.typing import ContextT, InputT, OutputT, StateT
    from langgraph.utils.config import ensure_config, get_config, get_store, patch_configurable  # noqa: F401
    from langgraph.warnings import LangGraphDeprecatedSinceV05, LangGraphDeprecatedSinceV10

    import engine

    assert (CONF, TAG_NOSTREAM, TAG_HIDDEN) == ("configurable", "nostream", "langsmith:hidden")
    assert all(isinstance(t, typing.TypeVar) for t in (StateT, ContextT, InputT, OutputT))
    assert engine.InMemorySaver in typing.get_args(Checkpointer) or any(
        isinstance(a, type) and issubclass(engine.InMemorySaver, a) for a in typing.get_args(Checkpointer))
    w = LangGraphDeprecatedSinceV10("old thing")
    assert isinstance(w, DeprecationWarning) and (w.since, w.expected_removal) == ((1, 0), (2, 0))
    assert str(w) == "old thing. Deprecated in LangGraph V1.0 to be removed in V2.0."
    assert LangGraphDeprecatedSinceV05("x").since == (0, 5)
    assert ensure_config({"tags": ["a"]})["tags"] == ["a"]


def test_node_interrupt_pauses_the_run_and_warns(compat_on) -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.errors import GraphInterrupt, NodeInterrupt
    from langgraph.graph import START, StateGraph
    from langgraph.warnings import LangGraphDeprecatedSinceV10

    class S(TypedDict):
        n: int

    def ask(s):
        raise NodeInterrupt("stop here")

    g = StateGraph(S)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = app.invoke({"n": 1}, cfg)
    assert issubclass(NodeInterrupt, GraphInterrupt)
    assert [i.value for i in out["__interrupt__"]] == ["stop here"]
    assert app.get_state(cfg).next == ("ask",)
    assert any(isinstance(w.message, LangGraphDeprecatedSinceV10) for w in caught)
