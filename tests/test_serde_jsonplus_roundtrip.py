"""JsonPlusSerializer as LangGraph's users call it: typed round trips, no code run on load."""
from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import logging
import pathlib
import re
import uuid
from collections import deque
from ipaddress import IPv4Address
from zoneinfo import ZoneInfo

import ormsgpack
import pytest
from pydantic import BaseModel

from engine.checkpoint.serde_encrypted import EncryptedSerializer
from engine.checkpoint.serde_jsonplus import EXT_METHOD_SINGLE_ARG, JsonPlusSerializer
from engine.checkpoint.serde_protocol import CipherProtocol, SerializerProtocol, maybe_add_typed_methods
from engine.errors import CheckpointDecodeError
from engine.types import Interrupt, Send


class Colour(enum.Enum):
    RED = "red"


@dataclasses.dataclass
class Point:
    x: int
    y: int


class Profile(BaseModel):
    name: str
    age: int


VALUES = {
    "uuid": uuid.UUID(int=7),
    "decimal": decimal.Decimal("1.10101"),
    "set": {1, 2},
    "frozenset": frozenset({3}),
    "deque": deque([1, 2, 3]),
    "datetime": dt.datetime(2024, 4, 19, 23, 4, 57, 51022, tzinfo=dt.timezone.utc),
    "date": dt.date(2024, 4, 19),
    "time": dt.time(23, 4, 57),
    "timedelta": dt.timedelta(days=3, seconds=5),
    "path": pathlib.Path("foo", "bar"),
    "regex": re.compile("foo", re.DOTALL),
    "ip": IPv4Address("192.168.0.1"),
    "zone": ZoneInfo("America/New_York"),
    "send": Send("node", {"a": 1}),
    "interrupt": Interrupt("ask", "i1"),
    "nested": {"deep": [[{"k": b"raw"}]]},
}


def test_builtin_types_round_trip_as_their_own_types() -> None:
    serde = JsonPlusSerializer()
    kind, data = serde.dumps_typed(VALUES)
    assert kind == "msgpack"
    back = serde.loads_typed((kind, data))
    for key, value in VALUES.items():
        assert back[key] == value, key
        assert type(back[key]) is type(value), key


def test_none_bytes_and_bytearray_keep_their_kind() -> None:
    serde = JsonPlusSerializer()
    assert serde.dumps_typed(None) == ("null", b"")
    assert serde.loads_typed(("null", b"")) is None
    assert serde.loads_typed(serde.dumps_typed(b"\x00x")) == b"\x00x"
    got = serde.loads_typed(serde.dumps_typed(bytearray(b"ab")))
    assert got == bytearray(b"ab") and type(got) is bytearray


def test_registered_classes_are_rebuilt_and_others_come_back_as_data(caplog: pytest.LogCaptureFixture) -> None:
    serde = JsonPlusSerializer()
    serde.register(Point, Colour)
    assert serde.loads_typed(serde.dumps_typed([Point(1, 2), Colour.RED])) == [Point(1, 2), Colour.RED]
    caplog.set_level(logging.WARNING)
    assert serde.loads_typed(serde.dumps_typed(Profile(name="a", age=3))) == {"name": "a", "age": 3}
    assert "Blocked deserialization of unregistered type" in caplog.text
    assert f"{__name__}.Profile" in caplog.text


def test_allowed_msgpack_modules_rebuilds_a_loaded_class() -> None:
    serde = JsonPlusSerializer(allowed_msgpack_modules=[(__name__, "Profile")])
    assert serde.loads_typed(serde.dumps_typed(Profile(name="a", age=3))) == Profile(name="a", age=3)
    wider = JsonPlusSerializer().with_msgpack_allowlist([(__name__, "Point")])
    assert wider.loads_typed(wider.dumps_typed(Point(1, 2))) == Point(1, 2)


def test_a_class_from_a_module_not_imported_is_never_imported() -> None:
    payload = ormsgpack.packb(ormsgpack.Ext(2, ormsgpack.packb(["not_a_module_xyz", "Boom", {"a": 1}])))
    serde = JsonPlusSerializer(allowed_msgpack_modules=[("not_a_module_xyz", "Boom")])
    assert serde.loads_typed(("msgpack", payload)) == {"a": 1}
    import sys

    assert "not_a_module_xyz" not in sys.modules


def test_a_method_call_in_the_data_is_never_made(tmp_path: pathlib.Path, caplog: pytest.LogCaptureFixture) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    inner = ormsgpack.packb(["pathlib", "Path", str(secret), "read_text"])
    payload = ormsgpack.packb(ormsgpack.Ext(EXT_METHOD_SINGLE_ARG, inner))
    caplog.set_level(logging.WARNING)
    got = JsonPlusSerializer().loads_typed(("msgpack", payload))
    assert got != "secret"
    assert "Blocked deserialization of method call pathlib.Path.read_text" in caplog.text


def test_pickle_is_refused_in_both_directions() -> None:
    with pytest.raises(ValueError, match="never unpickles"):
        JsonPlusSerializer(pickle_fallback=True)
    with pytest.raises(CheckpointDecodeError, match="pickle"):
        JsonPlusSerializer().loads_typed(("pickle", b"\x80\x04K\x01."))


def test_legacy_json_interrupt_gets_the_id_of_its_namespace() -> None:
    data = (b'{"lc": 2, "type": "constructor", "id": ["langgraph", "types", "Interrupt"], '
            b'"kwargs": {"value": "v", "resumable": true, "ns": ["a:b", "c:d"], "when": "during"}}')
    first = JsonPlusSerializer().loads_typed(("json", data))
    again = JsonPlusSerializer().loads_typed(("json", data.replace(b'"v"', b'"w"')))
    assert isinstance(first, Interrupt) and first.value == "v"
    assert first.id and first.id == again.id  # the id follows the namespace, not the value


def test_unknown_json_constructor_stays_data() -> None:
    data = b'{"lc": 2, "type": "constructor", "id": ["os", "system"], "kwargs": {"command": "echo hi"}}'
    assert JsonPlusSerializer().loads_typed(("json", data)) == {"command": "echo hi"}


def test_a_hostile_blob_is_one_clear_error() -> None:
    with pytest.raises(CheckpointDecodeError, match="not valid msgpack"):
        JsonPlusSerializer().loads_typed(("msgpack", b"\xc1\xc1"))
    deep = ormsgpack.packb(1)
    for _ in range(80):
        deep = ormsgpack.packb(ormsgpack.Ext(0, ormsgpack.packb(["builtins", "set", ormsgpack.Ext(0, deep)])))
    with pytest.raises(CheckpointDecodeError, match="nested deeper"):
        JsonPlusSerializer().loads_typed(("msgpack", deep))


class _Reverse:
    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        return "rev", plaintext[::-1]

    def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes:
        assert ciphername == "rev"
        return ciphertext[::-1]


def test_encrypted_serializer_names_both_encodings_and_reads_plain_data() -> None:
    plain = JsonPlusSerializer()
    serde = EncryptedSerializer(_Reverse(), plain)
    kind, data = serde.dumps_typed({"a": VALUES["uuid"]})
    assert kind == "msgpack+rev"
    assert plain.dumps_typed({"a": VALUES["uuid"]})[1] == data[::-1]
    assert serde.loads_typed((kind, data)) == {"a": VALUES["uuid"]}
    assert serde.loads_typed(plain.dumps_typed([1, 2])) == [1, 2]
    assert isinstance(_Reverse(), CipherProtocol)


def test_protocols_and_untyped_serializers() -> None:
    assert isinstance(JsonPlusSerializer(), SerializerProtocol)

    class Untyped:
        def dumps(self, obj: object) -> bytes:
            return repr(obj).encode()

        def loads(self, data: bytes) -> object:
            return data.decode()

    typed = maybe_add_typed_methods(Untyped())
    assert typed.loads_typed(typed.dumps_typed(5)) == "5"
    with pytest.raises(TypeError, match="dumps_typed"):
        maybe_add_typed_methods(object())


def test_a_saver_given_jsonplus_stores_with_it() -> None:
    from engine.checkpoint.memory import InMemorySaver

    serde = JsonPlusSerializer()
    saver = InMemorySaver(serde=serde)
    assert saver.serde is serde


def test_langgraph_module_names_are_served() -> None:
    import engine.compat

    engine.compat.install()
    from langgraph.checkpoint.serde import _msgpack
    from langgraph.checkpoint.serde.base import CipherProtocol as LgCipher
    from langgraph.checkpoint.serde.encrypted import EncryptedSerializer as LgEncrypted
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer as LgJsonPlus
    from langgraph.checkpoint.serde.types import ERROR, INTERRUPT, RESUME, TASKS

    assert LgJsonPlus is JsonPlusSerializer and LgEncrypted is EncryptedSerializer and LgCipher is CipherProtocol
    assert (ERROR, INTERRUPT, RESUME, TASKS) == ("__error__", "__interrupt__", "__resume__", "__pregel_tasks")
    assert JsonPlusSerializer(allowed_msgpack_modules=_msgpack._SENTINEL).allowed_msgpack_modules is _msgpack._SENTINEL
