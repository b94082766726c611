"""One JSON-printable view of any value, for the command line's `--json` outputs.

`retrograph run` prints stream chunks and `retrograph history --json` prints decoded
checkpoints; both go through `jsonable`, so a message, a dataclass or a huge int looks
the same in either. It is total: anything gives something `json.dumps` accepts, however
deep, large or strange (an int past Python's 4,300-digit `str()` limit, a NaN, a cycle).
"""
from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import decimal
import math
import uuid
from typing import Any

from .safe import safe_int_text

__all__ = ["jsonable", "message_json"]

_MAX_DEPTH = 200
# Ints up to this many bits print exactly (through Decimal, which Python's digit limit
# does not apply to); past it, as an approximation that says how many digits it has.
_EXACT_INT_BITS = 100_000


def _int(value: int) -> int | str:
    if value.bit_length() <= 10_000:
        try:
            str(value)  # within the interpreter's digit limit: json.dumps can print it
            return value
        except ValueError:
            pass
    if value.bit_length() <= _EXACT_INT_BITS:
        return format(decimal.Decimal(value), "f")
    return safe_int_text(value)


def message_json(m: Any) -> dict[str, Any]:
    """A chat message (ours, langchain-core's or a decoded record) as {type, content, ...}."""
    out: dict[str, Any] = {"type": str(getattr(m, "type", "")), "content": jsonable(getattr(m, "content", ""))}
    for key in ("tool_calls", "tool_call_id", "name", "id"):
        value = getattr(m, key, None)
        if value not in (None, [], ""):
            out[key] = jsonable(value)
    return out


def jsonable(value: Any, depth: int = 0, _seen: frozenset[int] = frozenset()) -> Any:
    """A JSON-printable view of `value` (total: anything gives something)."""
    if depth > _MAX_DEPTH:
        return "…"
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, _SCALARS):
        return _scalar(value)
    if id(value) in _seen:
        return "<cycle>"
    seen = _seen | {id(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v, depth + 1, seen) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v, depth + 1, seen) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [jsonable(v, depth + 1, seen) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    return _object(value, depth, seen)


_SCALARS = (int, float, dt.datetime, dt.date, dt.time, dt.timedelta, uuid.UUID, decimal.Decimal, bytes, bytearray)


def _scalar(value: Any) -> Any:
    """A number, time, uuid, decimal or bytes as JSON shows it."""
    if isinstance(value, int):
        return _int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, (uuid.UUID, decimal.Decimal)):
        return str(value)
    return {"bytes": base64.b64encode(bytes(value)).decode()}


def _object(value: Any, depth: int, seen: frozenset[int]) -> Any:
    """Any other object: an UnknownValue, a chat message, a dataclass, a pydantic model,
    else its str()."""
    type_name = getattr(type(value), "__name__", "")
    if type_name == "UnknownValue":
        return {"type": value.type_name, "data": jsonable(value.data, depth + 1, seen)}
    if hasattr(value, "content") and isinstance(getattr(value, "type", None), str):
        return message_json(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {"type": type_name}
        out.update({f.name: jsonable(getattr(value, f.name, None), depth + 1, seen)
                    for f in dataclasses.fields(value)})
        return out
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        try:
            return jsonable(dump(), depth + 1, seen)
        except Exception:
            pass
    try:
        return str(value)
    except Exception:
        return f"<{type_name}>"
