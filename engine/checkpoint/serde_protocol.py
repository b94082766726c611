"""The serializer protocol LangGraph's users write against, and its reserved write names.

Served as `langgraph.checkpoint.serde.base` and `langgraph.checkpoint.serde.types`: a
serializer turns a value into a `(type, bytes)` pair and back (`dumps_typed` /
`loads_typed`); a cipher turns bytes into `(cipher name, bytes)` and back. The engine's
own `Serializer` (serde.py) is the store format; these shapes are for code that brings its
own serializer or cipher, or uses `JsonPlusSerializer` on its own.
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = [
    "SerializerProtocol",
    "UntypedSerializerProtocol",
    "CipherProtocol",
    "SerializerCompat",
    "maybe_add_typed_methods",
    "ERROR",
    "SCHEDULED",
    "INTERRUPT",
    "RESUME",
    "TASKS",
]

ERROR = "__error__"
"""The write channel of a task that failed (its value is the error)."""
SCHEDULED = "__scheduled__"
"""The write channel marking a task as scheduled."""
INTERRUPT = "__interrupt__"
"""The write channel of a task that called `interrupt()`."""
RESUME = "__resume__"
"""The write channel carrying the resume values of a `Command(resume=...)`."""
TASKS = "__pregel_tasks"
"""The channel holding the `Send`s of a superstep."""


@runtime_checkable
class UntypedSerializerProtocol(Protocol):
    """A serializer without type tags: `dumps(value) -> bytes`, `loads(bytes) -> value`."""

    def dumps(self, obj: Any) -> bytes: ...

    def loads(self, data: bytes) -> Any: ...


@runtime_checkable
class SerializerProtocol(Protocol):
    """A serializer that says how it encoded a value: `dumps_typed(value) -> (type, bytes)`."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]: ...

    def loads_typed(self, data: tuple[str, bytes]) -> Any: ...


@runtime_checkable
class CipherProtocol(Protocol):
    """Encrypts bytes, naming the cipher so that `decrypt` knows which one to use."""

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]: ...

    def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes: ...


class SerializerCompat:
    """An untyped serializer (dumps/loads) given the typed methods, its type named "compat"."""

    def __init__(self, serde: UntypedSerializerProtocol) -> None:
        self.serde = serde

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        return type(self.serde).__name__, self.serde.dumps(obj)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        return self.serde.loads(data[1])


def maybe_add_typed_methods(serde: Any) -> Any:
    """`serde` itself when it has `dumps_typed`/`loads_typed`, else a `SerializerCompat` of it."""
    if isinstance(serde, SerializerProtocol):
        return serde
    if isinstance(serde, UntypedSerializerProtocol):
        return SerializerCompat(serde)
    raise TypeError(
        f"serde={type(serde).__name__}: a serializer needs dumps_typed/loads_typed (or dumps/loads); "
        "pass a JsonPlusSerializer or an object with those methods"
    )
