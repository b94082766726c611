"""A saver given a typed serializer (`dumps_typed`/`loads_typed`: a JsonPlusSerializer
subclass overriding them, an EncryptedSerializer, any SerializerProtocol object) stores
every checkpointed value through it, as LangGraph's savers do: its errors stop the run,
what it writes is what is kept, and a reader without it cannot see the values."""
from __future__ import annotations

import asyncio
import operator
from pathlib import Path
from typing import Annotated, Any

import pytest

from engine import START, InMemorySaver, SqliteSaver, StateGraph
from engine.checkpoint.registry import UnknownValue
from engine.checkpoint.serde_encrypted import EncryptedSerializer
from engine.checkpoint.serde_jsonplus import JsonPlusSerializer


class Faulty(JsonPlusSerializer):
    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        raise ValueError("Faulty serializer")


class Recording(JsonPlusSerializer):
    def __init__(self) -> None:
        super().__init__()
        self.dumped: list[Any] = []

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        self.dumped.append(obj)
        return super().dumps_typed(obj)


class Reverse:
    """A toy cipher: reverses the bytes (enough to make the stored bytes unreadable)."""

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        return "rev", plaintext[::-1]

    def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes:
        assert ciphername == "rev"
        return ciphertext[::-1]


def _graph(saver: Any) -> Any:
    builder = StateGraph(Annotated[list, operator.add])
    builder.add_node("agent", lambda state: ["reply"])
    builder.add_edge(START, "agent")
    return builder.compile(checkpointer=saver)


def test_a_serializer_that_raises_stops_the_run_sync_and_async() -> None:
    graph = _graph(InMemorySaver(serde=Faulty()))
    with pytest.raises(ValueError, match="Faulty serializer"):
        graph.invoke(["hi"], {"configurable": {"thread_id": "1"}})

    async def run() -> None:
        with pytest.raises(ValueError, match="Faulty serializer"):
            async for _ in graph.astream(["hi"], {"configurable": {"thread_id": "2"}}):
                pass

    asyncio.run(run())


def test_every_value_goes_through_the_subclass_and_round_trips() -> None:
    serde = Recording()
    graph = _graph(InMemorySaver(serde=serde))
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke(["hi"], cfg)
    graph.invoke(["again"], cfg)
    assert graph.get_state(cfg).values == ["hi", "reply", "again", "reply"]
    assert {"hi", "reply", "again"} <= set(serde.dumped)
    assert len(list(graph.get_state_history(cfg))) == 6


def test_an_encrypted_serializer_on_sqlite_keeps_values_unreadable_without_it(tmp_path: Path) -> None:
    path = tmp_path / "enc.db"
    cfg = {"configurable": {"thread_id": "t"}}
    graph = _graph(SqliteSaver(str(path), serde=EncryptedSerializer(Reverse())))
    graph.invoke(["secret"], cfg)
    assert graph.get_state(cfg).values == ["secret", "reply"]
    assert b"secret" not in path.read_bytes()

    reopened = _graph(SqliteSaver(str(path), serde=EncryptedSerializer(Reverse())))
    assert reopened.get_state(cfg).values == ["secret", "reply"]

    with pytest.warns(UserWarning, match="tagged 'typed'"):
        plain = _graph(SqliteSaver(str(path))).get_state(cfg).values
    assert all(isinstance(v, UnknownValue) for v in plain)


def test_a_serializer_without_typed_methods_is_refused_by_name() -> None:
    class Nothing:
        pass

    with pytest.raises(TypeError, match="serde=Nothing: a saver's serializer needs dumps_typed/loads_typed"):
        InMemorySaver(serde=Nothing())


def test_a_serializer_returning_the_wrong_shape_is_named() -> None:
    class Wrong(JsonPlusSerializer):
        def dumps_typed(self, obj: Any) -> Any:
            return "msgpack", "not bytes"

    with pytest.raises(Exception, match=r"Wrong.dumps_typed must return \(str, bytes\)"):
        _graph(InMemorySaver(serde=Wrong())).invoke(["x"], {"configurable": {"thread_id": "1"}})
