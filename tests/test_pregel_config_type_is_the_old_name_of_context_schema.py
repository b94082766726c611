"""`Pregel(..., config_type=X)`: LangGraph 0.x's name of `context_schema`, which warns
(LangGraphDeprecatedSinceV10, naming `context_schema`) and is used as it (the helper
`Pregel.__init__` calls: engine/pregel_api/legacy_kwargs.py)."""
from __future__ import annotations

import inspect
import warnings

import pytest
from typing_extensions import TypedDict

from engine.pregel_api.legacy_kwargs import context_schema_from_legacy
from engine.warnings import LangGraphDeprecatedSinceV10


class Ctx(TypedDict):
    user: str


class Other(TypedDict):
    org: str


def test_config_type_warns_and_becomes_the_context_schema() -> None:
    with pytest.warns(LangGraphDeprecatedSinceV10,
                      match="`config_type` is deprecated and will be removed. Please use `context_schema` instead."):
        assert context_schema_from_legacy(None, {"config_type": Ctx}) is Ctx


def test_the_warning_points_at_the_callers_caller() -> None:
    def pregel_init(**kwargs: object) -> object:  # stands for Pregel.__init__
        return context_schema_from_legacy(None, kwargs)

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1  # type: ignore[union-attr]
        pregel_init(config_type=Ctx)
    assert [(w.filename, w.lineno) for w in seen] == [(__file__, line)]


def test_context_schema_wins_over_config_type() -> None:
    with pytest.warns(LangGraphDeprecatedSinceV10):
        assert context_schema_from_legacy(Other, {"config_type": Ctx}) is Other


def test_without_config_type_nothing_warns() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert context_schema_from_legacy(Ctx, {"trigger_to_nodes": {}}) is Ctx
        assert context_schema_from_legacy(None, {}) is None


def test_a_pregel_built_with_config_type_warns_at_the_users_line() -> None:
    from engine.compat.channels import LastValue
    from engine.pregel_api import NodeBuilder, Pregel

    node = NodeBuilder().subscribe_only("a").do(lambda x: x + 1).write_to("b")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1  # type: ignore[union-attr]
        app = Pregel(nodes={"one": node}, channels={"a": LastValue(int), "b": LastValue(int)},
                     input_channels="a", output_channels="b", config_type=Ctx)
    deprecations = [w for w in seen if issubclass(w.category, LangGraphDeprecatedSinceV10)]
    assert [(w.filename, w.lineno) for w in deprecations] == [(__file__, line)]
    assert app.invoke(1) == 2
