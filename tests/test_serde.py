"""The checkpoint serializer: exact round-trips, registered types only, clear refusals,
and a decoder that turns any garbage into its own error."""
from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import math
import uuid
import warnings
from decimal import Decimal
from typing import Any, NamedTuple

import orjson
import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.checkpoint import (
    Serializer,
    UnknownTypeWarning,
    UnknownValue,
    register_type,
)
from engine.checkpoint.encoding import join_list_segments
from engine.errors import CheckpointDecodeError, SerializationError
from engine.types import Interrupt, Send


class Color(enum.Enum):
    RED = "r"
    BLUE = "b"


class Mood(str, enum.Enum):
    HAPPY = "happy"


@dataclasses.dataclass(frozen=True, kw_only=True)
class Note:
    text: str
    tags: tuple[str, ...] = ()
    length: int = dataclasses.field(init=False, default=0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "length", len(self.text))


@dataclasses.dataclass
class Box:
    payload: Any
    items: list[Any] = dataclasses.field(default_factory=list)


class Point(NamedTuple):
    x: int
    y: int


class Profile(pydantic.BaseModel):
    name: str
    notes: list[Note] = []
    when: dt.datetime | None = None


register_type(Color, Mood, Note, Box, Point, Profile)

serde = Serializer()


def roundtrip(value: Any) -> Any:
    return serde.loads(serde.dumps(value))


VALUES = [
    None, True, False, 0, -7, 2**63 - 1, 2**64 - 1, 2**64, -(2**63) - 1, 10**40, 1.5, -0.0, math.inf, -math.inf,
    "", "ünïcødé ✓", [], [1, "a", None], {}, {"a": {"b": [1, 2.5]}},
    (), (1, (2, "x")), {1, 2}, frozenset({"a"}), {1: "int key", (1, "t"): "tuple key", None: 0, 2.5: 1},
    b"", b"\x00\xff bytes", bytearray(b"ba"), 3 + 4j,
    dt.datetime(2024, 5, 1, 12, 30, 1, 5), dt.datetime(2024, 5, 1, tzinfo=dt.timezone(dt.timedelta(hours=-3))),
    dt.date(1999, 12, 31), dt.time(23, 59, 59, 999999), dt.timedelta(days=-2, seconds=5, microseconds=7),
    uuid.UUID("12345678-1234-5678-1234-567812345678"), Decimal("3.14159265358979323846"), Decimal("-0E+3"),
    Color.BLUE, Mood.HAPPY, {Mood.HAPPY: [Color.RED]},
    Note(text="hello", tags=("a",)), Box(payload={"deep": [Point(1, 2)]}), Point(3, 4),
    Profile(name="ada", notes=[Note(text="n")], when=dt.datetime(2020, 1, 1)),
    Send("node", {"arg": (1, 2)}), Interrupt(value={"question": "ok?"}, id="i1"),
    {"$t": "tuple", "v": [1]}, {"$t": 1, "v": {"$t": "dict"}}, [{"$t": "obj", "n": "os.system", "v": {}}],
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_values_round_trip_with_their_types(value: Any) -> None:
    back = roundtrip(value)
    assert back == value
    assert type(back) is type(value)


def test_nan_round_trips() -> None:
    assert math.isnan(roundtrip(float("nan")))
    assert math.isnan(roundtrip([complex(float("nan"), 1)])[0].real)


def test_derived_fields_and_nested_types_are_rebuilt() -> None:
    note = roundtrip(Note(text="four"))
    assert note.length == 4 and isinstance(note, Note)
    profile = roundtrip(Profile(name="x", notes=[Note(text="ab")]))
    assert isinstance(profile.notes[0], Note) and profile.notes[0].length == 2


def test_a_users_dict_that_looks_like_a_tag_stays_a_dict() -> None:
    sneaky = {"$t": "obj", "n": "os.system", "v": {"command": "rm -rf /"}}
    assert roundtrip(sneaky) == sneaky
    assert roundtrip({"x": sneaky}) == {"x": sneaky}


def test_a_list_is_a_plain_json_array_so_stores_can_join_appended_items() -> None:
    a, b = [1, (2,), "x"], [{"$t": 1}, None]
    assert serde.dumps(a).startswith(b"[") and serde.dumps(a).endswith(b"]")
    joined = join_list_segments([serde.dumps(a)[1:-1], b"", serde.dumps(b)[1:-1]])
    assert serde.loads(joined) == a + b
    assert serde.loads(join_list_segments([b"", b""])) == []


def test_engine_types_are_known_without_registering() -> None:
    assert Serializer().loads(Serializer().dumps([Send("a", 1), Interrupt(value=2)])) == [Send("a", 1), Interrupt(value=2)]


def test_a_serializer_registration_is_its_own() -> None:
    @dataclasses.dataclass
    class Local:
        a: int

    mine, other = Serializer(), Serializer()
    mine.register(Local)
    data = mine.dumps(Local(1))
    assert mine.loads(data) == Local(1)
    with pytest.warns(UnknownTypeWarning):
        assert isinstance(other.loads(data), UnknownValue)
    # writing an instance is what lets a serializer of this process read its class back
    assert other.loads(other.dumps(Local(1))) == Local(1)


def test_an_unknown_type_name_loads_as_inert_data_with_a_warning() -> None:
    data = b'{"$t":"obj","n":"myapp.models.Order","v":{"id":7,"lines":{"$t":"tuple","v":[1]}}}'
    with pytest.warns(UnknownTypeWarning, match=r"holds a `myapp.models.Order`, a type not registered.*"
                                                r"engine.register_type\(Order\)"):
        value = serde.loads(data)
    assert value == UnknownValue("myapp.models.Order", {"id": 7, "lines": (1,)})
    assert repr(value) == "<UnknownValue myapp.models.Order {'id': 7, 'lines': (1,)}>"
    assert hash(value) == hash(UnknownValue("myapp.models.Order", {}))
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.data = {}  # type: ignore[misc]
    assert serde.dumps(value) == orjson.dumps(orjson.loads(data))  # saving it again loses nothing


def test_unknown_enum_and_changed_classes_load_as_inert_data() -> None:
    with pytest.warns(UnknownTypeWarning, match="lacks"):
        assert serde.loads(b'{"$t":"enum","n":"test_serde.Color","v":"GREEN"}') == UnknownValue("test_serde.Color", "GREEN")
    with pytest.warns(UnknownTypeWarning, match=r"cannot be rebuilt .*not fields of the class"):
        got = serde.loads(b'{"$t":"obj","n":"test_serde.Box","v":{"payload":1,"removed_field":2}}')
    assert got == UnknownValue("test_serde.Box", {"payload": 1, "removed_field": 2})
    with pytest.warns(UnknownTypeWarning, match="unknown to this version"):
        assert isinstance(serde.loads(b'{"$t":"future-tag","v":1}'), UnknownValue)


def test_registering_anything_else_is_refused() -> None:
    class Plain:
        pass

    with pytest.raises(TypeError, match=r"register_type\('Plain'\): only dataclasses, pydantic models, NamedTuples"):
        register_type(Plain)


# -- refusals that say what to do --------------------------------------------------------


@dataclasses.dataclass
class Payload:
    data: bytes


class Handle:
    pass


def test_an_unregistered_dataclass_written_here_is_read_back_here() -> None:
    messages = [{"role": "user"}, Box(payload=Payload(b"x"))]
    assert serde.loads(serde.dumps(messages, where="messages")) == messages


def test_a_str_subclass_is_stored_as_its_text() -> None:
    class Text(str):
        def __call__(self) -> str:  # as langchain-core's message.text accessor
            return str(self)

    class Count(int):
        pass

    got = serde.loads(serde.dumps({"t": Text("hi"), "n": [Count(2**70), Count(3)]}))
    assert got == {"t": "hi", "n": [2**70, 3]}
    assert type(got["t"]) is str and type(got["n"][1]) is int


def test_an_arbitrary_object_asks_for_plain_data() -> None:
    with pytest.raises(SerializationError, match=r"`value\['conn'\]\{\*\}`: it is a `test_serde.Handle`, which "
                                                 r"checkpoints cannot store .*never pickles\)\. Store plain data"):
        serde.dumps({"conn": {Handle()}})
    with pytest.raises(SerializationError, match=r"`tools\[0\]`: it is a `function`"):
        serde.dumps([print.__call__ and (lambda: 1)], where="tools")
    with pytest.raises(SerializationError, match=r"`k<key <test_serde.Handle object"):
        serde.dumps({Handle(): 1}, where="k")


def test_an_unregistered_enum_written_here_is_read_back_here() -> None:
    class Level(enum.IntEnum):
        LOW = 1

    assert serde.loads(serde.dumps(Level.LOW, where="level")) is Level.LOW


def test_too_deep_too_big_and_broken_text_are_refused_clearly() -> None:
    deep: list[Any] = []
    for _ in range(150):
        deep = [deep]
    with pytest.raises(SerializationError, match=r"is nested more than 100 levels deep\. Flatten the data"):
        serde.dumps(deep)
    with pytest.raises(SerializationError, match=r"`blob`: it takes 2\.0 MB encoded, over the 1 MB limit .*max_bytes"):
        Serializer(max_bytes=1024 * 1024).dumps("x" * (2 * 1024 * 1024), where="blob")
    with pytest.raises(SerializationError, match=r"`text`: str is not valid UTF-8: surrogates not allowed\. Clean"):
        serde.dumps(["ok", "\ud800"], where="text")
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(SerializationError, match="nested more than"):
        serde.dumps(cycle)


# -- the decoder never does anything but return a value or raise its own error ----------


def test_garbage_raises_the_decode_error() -> None:
    for garbage in [b"", b"\x80\x04\x95", b"{", b'{"$t":"int","v":"zz"}', b'{"$t":"bytes","v":"!!"}',
                    b'{"$t":"tuple"}', b'{"$t":"set","v":[[1]]}', b'{"$t":"map","v":[[[1],2]]}',
                    b'{"$t":"timedelta","v":[1e300,0,0]}', b'{"$t":"datetime","v":"yesterday"}',
                    b'{"$t":"float","v":"1e999"}', b'{"$t":"obj","n":5,"v":{}}']:
        with pytest.raises(CheckpointDecodeError):
            serde.loads(garbage)
    with pytest.raises(CheckpointDecodeError, match="must be bytes"):
        serde.loads("text")  # type: ignore[arg-type]


def test_decoding_is_bounded_in_size_and_depth() -> None:
    with pytest.raises(CheckpointDecodeError, match=r"takes 2\.0 MB, over the 1 MB limit; it was not loaded"):
        Serializer(max_bytes=1024 * 1024).loads(orjson.dumps("x" * (2 * 1024 * 1024)))
    nested = b'{"$t":"tuple","v":[' * 500 + b"1" + b"]}" * 500
    with pytest.raises(CheckpointDecodeError, match="nested more than 100 levels"):
        serde.loads(nested)
    with pytest.raises(CheckpointDecodeError):
        serde.loads(b"[" * 100_000 + b"]" * 100_000)


json_like = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)
hashable = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.binary(max_size=5) | st.uuids(),
    lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3),
    max_leaves=6,
)
offsets = st.integers(-1439, 1439).map(lambda m: dt.timezone(dt.timedelta(minutes=m)))
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10)
    | st.binary(max_size=10) | st.datetimes(timezones=st.none() | offsets) | st.dates() | st.times() | st.timedeltas()
    | st.uuids() | st.decimals(allow_nan=False) | st.complex_numbers(allow_nan=False)
    | st.sampled_from(list(Color)) | st.builds(Point, st.integers(), st.integers()),
    lambda inner: (
        st.lists(inner, max_size=4) | st.tuples(inner, inner)
        | st.dictionaries(st.sampled_from(["$t", "v", "n", "a"]) | st.text(max_size=4), inner, max_size=4)
        | st.dictionaries(hashable, inner, max_size=3) | st.sets(hashable, max_size=3) | st.frozensets(hashable, max_size=3)
        | st.builds(Box, inner, st.lists(inner, max_size=2)) | st.builds(Send, st.text(max_size=3), inner)
    ),
    max_leaves=12,
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_any_state_value_round_trips(value: Any) -> None:
    back = roundtrip(value)
    assert back == value
    assert type(back) is type(value)


@settings(max_examples=250, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_give_a_value_or_the_decode_error(data: bytes) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownTypeWarning)
        try:
            serde.loads(data)
        except CheckpointDecodeError:
            pass


tags = st.sampled_from(["tuple", "set", "frozenset", "dict", "map", "float", "int", "complex", "bytes", "bytearray",
                        "datetime", "date", "time", "timedelta", "uuid", "decimal", "obj", "enum", "nope"])
hostile = st.recursive(
    json_like,
    lambda inner: st.fixed_dictionaries({"$t": tags}, optional={
        "v": inner, "n": st.sampled_from(["os.system", "test_serde.Box", "test_serde.Color", "rg.Send", "x"]) | inner,
    }) | st.lists(inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile)
def test_crafted_tags_give_a_value_or_the_decode_error(tree: Any) -> None:
    data = orjson.dumps(tree)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownTypeWarning)
        try:
            serde.loads(data)
        except CheckpointDecodeError:
            pass
