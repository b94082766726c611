"""An Interrupt built as older LangGraph versions did (ns=, resumable=, when=) gets the id
that namespace had, equals the modern form, and a misspelt keyword is refused by name."""
import pytest

from engine.checkpoint.serde import Serializer
from engine.types import Interrupt


def test_a_namespace_gives_the_id_of_its_first_interrupt():
    old = Interrupt(value="q", resumable=True, when="during", ns=["outer:1", "inner:2"])
    assert old == Interrupt.from_ns("q", "outer:1|inner:2")
    assert len(old.id) == 32 and old.id != Interrupt.from_ns("q", "outer:1").id


def test_an_explicit_id_wins_over_the_namespace():
    assert Interrupt("q", "given", ns=["a:1"]).id == "given"


def test_a_misspelt_keyword_is_named():
    with pytest.raises(TypeError, match="'resumeable'"):
        Interrupt("q", resumeable=True)


def test_the_response_schema_survives_a_checkpoint_round_trip():
    i = Interrupt("q", "i1", response_schema={"type": "string"})
    assert Serializer().loads(Serializer().dumps(i)) == i
    assert Serializer().loads(Serializer().dumps(Interrupt(value=2))) == Interrupt(value=2)
