"""get_input_jsonschema / get_output_jsonschema / get_context_jsonschema of a compiled graph:
the shapes LangGraph gives (checked against it by hand), built with pydantic."""
from __future__ import annotations

import dataclasses
import operator
from typing import Annotated, Optional

import pydantic
import pytest
from typing_extensions import NotRequired, TypedDict

from engine import START, StateGraph


class Order(TypedDict):
    sku: str
    lines: Annotated[list[int], operator.add]
    note: NotRequired[str]


class Done(TypedDict):
    sku: str


@dataclasses.dataclass
class Form:
    name: str
    tags: Annotated[list, operator.add] = dataclasses.field(default_factory=list)
    age: Optional[int] = None
    must: str = dataclasses.field(default=...)


@dataclasses.dataclass
class Ctx:
    user: str
    level: int = 1


class Model(pydantic.BaseModel):
    x: int = 3


def compiled(schema, name="LangGraph", **kw):
    g = StateGraph(schema, **kw)
    g.add_node("n", lambda s: {})
    g.add_edge(START, "n")
    return g.compile(name=name)


def test_typeddict_input_and_output_schemas() -> None:
    graph = compiled(Order, output_schema=Done, context_schema=Ctx)
    schema = graph.get_input_jsonschema()
    assert schema["title"] == "Order" and schema["required"] == ["sku", "lines"]
    assert schema["properties"]["lines"] == {"items": {"type": "integer"}, "title": "Lines", "type": "array"}
    assert graph.get_output_jsonschema() == {
        "properties": {"sku": {"title": "Sku", "type": "string"}}, "required": ["sku"], "title": "Done",
        "type": "object"}
    assert graph.get_context_jsonschema() == {
        "properties": {"level": {"default": 1, "title": "Level", "type": "integer"},
                       "user": {"title": "User", "type": "string"}},
        "required": ["user"], "title": "Ctx", "type": "object"}


def test_dataclass_state_gets_a_model_named_after_the_graph() -> None:
    schema = compiled(Form, name="intake").get_input_jsonschema()
    assert schema["title"] == "intake_input"
    assert schema["required"] == ["name", "must"]
    assert schema["properties"]["tags"] == {"default": [], "items": {}, "title": "Tags", "type": "array"}
    assert schema["properties"]["age"]["default"] is None
    assert compiled(Form).get_output_jsonschema()["title"] == "LangGraphOutput"


def test_pydantic_root_and_no_context() -> None:
    graph = compiled(Model)
    assert graph.get_input_jsonschema() == Model.model_json_schema()
    assert graph.get_context_jsonschema() is None
    root = compiled(Annotated[list, operator.add]).get_input_jsonschema()
    assert root == {"default": None, "items": {}, "title": "LangGraphInput", "type": "array"}


def test_a_context_schema_that_cannot_be_described_names_itself() -> None:
    with pytest.raises(ValueError, match="context_schema .*int.* pydantic model, TypedDict or dataclass"):
        compiled(Order, context_schema=int).get_context_jsonschema()


def test_the_second_positional_argument_is_the_context_schema() -> None:
    g = StateGraph(Order, Ctx)
    assert g.context_schema is Ctx
    with pytest.warns(DeprecationWarning, match=r"`config_schema` is deprecated.*`context_schema`"):
        assert StateGraph(Order, config_schema=Ctx).context_schema is Ctx
