"""A user's typed serializer (`dumps_typed` / `loads_typed`) as the store format of a saver.

A saver stores with the engine's `Serializer` (serde.py). A saver given another
serializer, or a `JsonPlusSerializer` subclass that overrides `dumps_typed` /
`loads_typed`, stores every checkpointed value through that serializer instead, as
LangGraph's savers do: what it writes is what is kept, and what it raises stops the run.

Each value becomes `{"$t": "typed", "t": <type>, "v": <base64 bytes>}`; a list stays a
JSON list of such items (one `dumps_typed` per item), so the savers' list segments still
work. The engine's own records (task plans, barriers, metadata) keep the engine's format.
A reader without the serializer shows a stored value as an inert UnknownValue.
"""
from __future__ import annotations

import base64
from typing import Any

import orjson

from ..errors import CheckpointDecodeError, SerializationError
from .serde import DEFAULT_MAX_BYTES, TAG, Serializer

__all__ = ["TYPED_TAG", "TypedStoreSerializer", "typed_dumps", "typed_loads", "store_serializer", "plain_reader"]

TYPED_TAG = "typed"
"""The tag of a value stored through a user's `dumps_typed`."""


def _item(serde: Any, value: Any) -> dict[str, Any]:
    kind, blob = serde.dumps_typed(value)
    if not isinstance(kind, str) or not isinstance(blob, (bytes, bytearray, memoryview)):
        raise SerializationError(
            f"{type(serde).__name__}.dumps_typed must return (str, bytes), not "
            f"({type(kind).__name__}, {type(blob).__name__}); fix the serializer passed as serde="
        )
    return {TAG: TYPED_TAG, "t": kind, "v": base64.b64encode(bytes(blob)).decode("ascii")}


def typed_dumps(serde: Any, value: Any, max_bytes: int, where: str | None = None) -> bytes:
    """`value` stored through `serde.dumps_typed` (a list: item by item)."""
    tree: Any = [_item(serde, x) for x in value] if type(value) is list else _item(serde, value)
    out = orjson.dumps(tree)
    if len(out) > max_bytes:
        raise SerializationError(
            f"Cannot checkpoint `{where or 'value'}`: {type(serde).__name__} encoded it in "
            f"{len(out) / 2**20:.1f} MB, over the {max_bytes / 2**20:.0f} MB limit per stored value; "
            "keep big data outside the state or raise the saver's max_value_bytes"
        )
    return out


def typed_loads(serde: Any, data: bytes, fallback: Serializer) -> Any:
    """Inverse of `typed_dumps`; a value stored in the engine's own format (written before
    this serializer was used) is read by `fallback`."""
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        raise CheckpointDecodeError(f"stored value is not valid checkpoint data ({e})") from None

    def one(x: Any) -> Any:
        if type(x) is dict and x.get(TAG) == TYPED_TAG and isinstance(x.get("t"), str):
            try:
                blob = base64.b64decode(str(x.get("v", "")), validate=True)
            except ValueError as e:
                raise CheckpointDecodeError(f"stored value is malformed ({e})") from None
            return serde.loads_typed((x["t"], blob))
        return fallback.loads(orjson.dumps(x))

    if type(raw) is list:
        return [one(x) for x in raw]
    return one(raw)


class TypedStoreSerializer(Serializer):
    """The engine's `Serializer` whose values go through another serializer's typed methods
    (the engine's own records keep the engine's format)."""

    def __init__(self, serde: Any, *, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        super().__init__(max_bytes=max_bytes)
        self.serde = serde

    def dumps(self, value: Any, *, where: str | None = None, headroom: int = 0) -> bytes:
        if headroom:
            return super().dumps(value, where=where, headroom=headroom)
        return typed_dumps(self.serde, value, self.max_bytes, where)

    def loads(self, data: bytes, *, plain: bool = False, headroom: int = 0) -> Any:
        if headroom or not isinstance(data, (bytes, bytearray, memoryview)):
            return super().loads(data, plain=plain, headroom=headroom)
        return typed_loads(self.serde, bytes(data), plain_reader(self))

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        return self.serde.dumps_typed(obj)  # type: ignore[no-any-return]

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        return self.serde.loads_typed(data)


def plain_reader(serde: Serializer) -> Serializer:
    """An engine Serializer with `serde`'s registered types: reads values in the engine's format."""
    return serde.with_same_types()


def store_serializer(serde: Any, max_bytes: int = DEFAULT_MAX_BYTES) -> Serializer:
    """What a saver stores with: the engine's Serializer (a fresh one for None), `serde`
    itself when it is one, else a TypedStoreSerializer over a typed serializer. Anything
    else is refused with one line naming it."""
    if serde is None:
        return Serializer(max_bytes=max_bytes)
    if isinstance(serde, Serializer):
        return serde
    if callable(getattr(serde, "dumps_typed", None)) and callable(getattr(serde, "loads_typed", None)):
        return TypedStoreSerializer(serde, max_bytes=max_bytes)
    raise TypeError(
        f"serde={type(serde).__name__}: a saver's serializer needs dumps_typed/loads_typed (LangGraph's "
        "SerializerProtocol) or must be an engine Serializer; pass JsonPlusSerializer() or such an object"
    )
