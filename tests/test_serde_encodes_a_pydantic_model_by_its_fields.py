"""A registered pydantic model is stored as its fields, in the class's field order, plus
its extra fields; whatever else the instance carries in its `__dict__` is not stored.
The serializer reads the instance's `__dict__` directly when it holds exactly the fields
(the usual case: a message of a 10,000-message state), else field by field."""
from __future__ import annotations

import dataclasses
from typing import Any

import orjson
import pydantic

from engine import AIMessage, HumanMessage
from engine.checkpoint.serde import Serializer, register_type


class Card(pydantic.BaseModel):
    title: str
    tags: list[str] = []
    score: float | None = None
    meta: dict[str, Any] = {}


class Open(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")
    name: str


register_type(Card, Open)


def _stored_fields(data: bytes) -> list[tuple[str, Any]]:
    return list(orjson.loads(data)["v"].items())


def test_a_model_is_stored_as_its_fields_in_class_order() -> None:
    s = Serializer()
    card = Card(score=2.5, title="t", meta={"k": [1, (2, 3)]}, tags=["a"])
    assert [k for k, _ in _stored_fields(s.dumps(card))] == ["title", "tags", "score", "meta"]
    back = s.loads(s.dumps(card))
    assert back == card and type(back) is Card
    assert back.meta["k"][1] == (2, 3)  # a nested tuple is still tagged and rebuilt


def test_extra_fields_are_stored_and_rebuilt() -> None:
    s = Serializer()
    item = Open(name="n", colour="red", size=(1, 2))
    assert [k for k, _ in _stored_fields(s.dumps(item))] == ["name", "colour", "size"]
    back = s.loads(s.dumps(item))
    assert back.name == "n" and back.colour == "red" and back.size == (1, 2)  # type: ignore[attr-defined]


def test_an_attribute_outside_the_fields_is_not_stored() -> None:
    s = Serializer()
    card = Card(title="t")
    object.__setattr__(card, "scratch", object())  # not a field: not stored (and not encodable)
    assert [k for k, _ in _stored_fields(s.dumps(card))] == ["title", "tags", "score", "meta"]
    assert s.loads(s.dumps(card)) == Card(title="t")


def test_a_model_built_without_a_field_is_stored_field_by_field() -> None:
    s = Serializer()
    card = Card.model_construct(tags=["x"])  # no title in its __dict__
    assert "title" not in card.__dict__
    # the field-by-field path asks the model for each field, as before: pydantic raises for
    # the missing one, so such a model cannot be stored (it is not a valid instance)
    try:
        s.dumps(card)
    except AttributeError:
        pass
    else:  # pragma: no cover - a pydantic that answers for a missing field
        raise AssertionError("a model missing a field was stored")


def test_messages_round_trip_with_ids_and_their_order_of_fields() -> None:
    s = Serializer()
    msgs = [HumanMessage(content=f"m{i}", id=f"h{i}") if i % 2 else AIMessage(content=f"r{i}") for i in range(50)]
    data = s.dumps(msgs)
    back = s.loads(data)
    assert back == msgs and [type(m) for m in back] == [type(m) for m in msgs]
    first = orjson.loads(data)[0]["v"]
    assert list(first) == list(type(msgs[0]).model_fields)


@dataclasses.dataclass
class Box:
    empty_list: list[Any]
    empty_dict: dict[str, Any]
    empty_tuple: tuple[Any, ...]
    tagged_key: dict[str, Any]


register_type(Box)


def test_empty_containers_of_an_object_keep_their_kind() -> None:
    s = Serializer()
    box = Box([], {}, (), {"$t": "not a tag"})
    v = orjson.loads(s.dumps(box))["v"]
    assert v["empty_list"] == [] and v["empty_dict"] == {}
    assert v["empty_tuple"] == {"$t": "tuple", "v": []}  # an empty tuple is still a tuple
    assert v["tagged_key"] == {"$t": "dict", "v": {"$t": "not a tag"}}
    back = s.loads(s.dumps(box))
    assert back == box and type(back.empty_tuple) is tuple
