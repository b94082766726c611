"""`StateGraph(x)` with a value where a schema type belongs (a dict, a list, a model or
TypedDict instance) warns with a UserWarning naming it, as LangGraph does; real schemas
(classes, `Annotated[type, reducer]`) do not warn."""
from __future__ import annotations

import operator
import warnings
from typing import Annotated

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from engine import StateGraph
from engine.graph.schema_warning import warn_invalid_state_schema


class Model(BaseModel):
    foo: str


class Typed(TypedDict):
    foo: str


@pytest.mark.parametrize("value", [{"foo": "bar"}, ["hi", operator.add], Model(foo="a"), Typed(foo="a"), 3])
def test_a_value_as_schema_warns_naming_it(value: object) -> None:
    with pytest.warns(UserWarning, match=r"Invalid state_schema: .* is a value, not a type"):
        warn_invalid_state_schema(value)


@pytest.mark.parametrize("schema", [Annotated[list, operator.add], dict, Model, Typed])
def test_a_real_schema_does_not_warn(schema: object) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_invalid_state_schema(schema)
        StateGraph(schema)


def test_state_graph_warns_before_its_own_error() -> None:
    with pytest.warns(UserWarning, match=r"Invalid state_schema: 'abc'"), \
            pytest.raises(TypeError, match="cannot read the state schema 'abc'"):
        StateGraph("abc")


def test_the_output_schema_is_checked_too() -> None:
    with pytest.warns(UserWarning, match=r"Invalid state_schema: Model\(foo='a'\)"):
        StateGraph(Typed, output_schema=Model(foo="a"))


def test_served_as_langgraphs_private_name_under_compat() -> None:
    import engine.compat

    already = engine.compat.installed()
    engine.compat.install()
    try:
        from langgraph.graph.state import _warn_invalid_state_schema
    finally:
        if not already:
            engine.compat.uninstall()
    assert _warn_invalid_state_schema is warn_invalid_state_schema
