"""The checkpoint value serializer: JSON-like data plus an allow-list of registered types.

Why not pickle: a checkpoint file someone hands you must be safe to open. Decoding only
builds builtin values and instances of types *registered in this process*; a type name
found in the data is looked up in the registry, never imported. Unknown names come back
as inert `UnknownValue` data with a warning.

Format: orjson-encoded JSON. Values JSON cannot hold exactly are tagged dicts
`{"$t": tag, ...}` (tuple, set, bytes, nan, big int, datetime, registered objects...). A
user dict that itself has a "$t" key is wrapped in a "dict" tag, so every dict
round-trips. A list is always encoded as a plain JSON array, which lets the stores keep
an appended list as byte-level segments (see `records.join_list_segments`).
"""
from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import enum
import uuid
import warnings
from collections.abc import Callable, Iterable
from decimal import Decimal
from math import isfinite
from typing import Any

import orjson

from ..errors import CheckpointDecodeError, SerializationError
from .langchain_types import maybe_langchain
from .serde_depth import brackets_over as _brackets_over
from .serde_depth import depth_within as _depth_within
from .registry import (
    GLOBAL_TYPES,
    Registry,
    TypeInfo,
    UnknownTypeWarning,
    UnknownValue,
    is_pydantic,
    register_type,
)

__all__ = [
    "Serializer",
    "register_type",
    "UnknownValue",
    "UnknownTypeWarning",
    "DEFAULT_MAX_BYTES",
    "MAX_DEPTH",
    "TAG",
    "TAG_BYTES",
    "JSON_INT_MIN",
    "JSON_INT_MAX",
]

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
"""Largest encoded value stored or loaded (32 MB): bounds the memory a hostile file can
make a load take. Raise it with `Serializer(max_bytes=...)` for bigger states."""

MAX_DEPTH = 100
"""Deepest nesting of containers stored or loaded; keeps recursion far from Python's limit."""

TAG = "$t"
"""The key that marks a tagged value: `{"$t": tag, ...}`."""
TAG_BYTES = b'"$t"'
"""Encoded data without these bytes holds no tagged value (`loads(plain=True)` may skip them)."""
JSON_INT_MIN, JSON_INT_MAX = -(2**63), 2**64 - 1  # what orjson writes and reads back exactly
_STRICT: frozenset[type] = frozenset({str, bool, type(None)})
_FAST: frozenset[type] = _STRICT | {int}
_MB = 1024 * 1024


# -- encoding -----------------------------------------------------------------------------


class _Unencodable(Exception):
    """Internal: carries the offending value out of the recursive encoder."""

    def __init__(self, value: Any, reason: str) -> None:
        self.value = value
        self.reason = reason


def _b64(v: bytes | bytearray) -> str:
    return base64.b64encode(v).decode("ascii")


_SIMPLE_ENCODERS: dict[type, Any] = {
    bytes: lambda v: {TAG: "bytes", "v": _b64(v)},
    bytearray: lambda v: {TAG: "bytearray", "v": _b64(v)},
    dt.datetime: lambda v: _datetime(v),
    dt.date: lambda v: {TAG: "date", "v": v.isoformat()},
    dt.time: lambda v: {TAG: "time", "v": v.isoformat()},
    dt.timedelta: lambda v: {TAG: "timedelta", "v": [v.days, v.seconds, v.microseconds]},
    uuid.UUID: lambda v: {TAG: "uuid", "v": str(v)},
    Decimal: lambda v: {TAG: "decimal", "v": str(v)},
}


def _datetime(v: dt.datetime) -> Any:
    """ISO text, plus the IANA zone name ("z") of a ZoneInfo and the `fold` ("f") of a
    repeated wall time, which the ISO text alone would lose."""
    out: dict[str, Any] = {TAG: "datetime", "v": v.isoformat()}
    key = getattr(v.tzinfo, "key", None)
    if type(key) is str and type(v.tzinfo).__name__ == "ZoneInfo":
        out["z"] = key
    if v.fold:
        out["f"] = 1
    return out


def _zone(name: Any) -> Any:
    """The ZoneInfo named in stored data (a zone name, never a path)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    text = _str(name)
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        _warn(f"Checkpoint data names the time zone {text[:80]!r}, unknown here; the stored UTC "
              "offset is kept instead.")
        return None


def _float(v: float) -> Any:
    return v if isfinite(v) else {TAG: "float", "v": repr(v)}


def _type_name(v: Any) -> str:
    t = type(v)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


class Serializer:
    """Turns state values into bytes and back, without pickle and without imports.

    Knows JSON-like values, tuple, set, frozenset, bytes, bytearray, complex, big ints,
    nan/inf, datetime/date/time/timedelta, UUID, Decimal, plus the types registered on
    this serializer or globally with `register_type` (dataclasses, pydantic v2 models,
    NamedTuples, Enums).
    """

    def __init__(self, *, max_bytes: int = DEFAULT_MAX_BYTES, langchain: bool = True) -> None:
        self.max_bytes = max_bytes
        self._own = Registry()
        self.langchain = langchain
        """Whether reading a langchain-core message (allow-listed) may import langchain-core
        to rebuild it; False keeps it an UnknownValue (a reader that must import nothing)."""

    def register(self, *types: type) -> None:
        """Allow this serializer (only) to store and rebuild these types."""
        for cls in types:
            maybe_langchain(cls=cls)
            if cls not in GLOBAL_TYPES.by_type:  # a global one keeps its stable stored name
                self._own.add(cls)

    def with_same_types(self) -> "Serializer":
        """A fresh engine Serializer (same size limit) that shares this one's registered types."""
        twin = Serializer(max_bytes=self.max_bytes, langchain=self.langchain)
        twin._own = self._own
        return twin

    def _info_for(self, t: type) -> TypeInfo | None:
        info = self._own.by_type.get(t) or GLOBAL_TYPES.by_type.get(t)
        if info is None and maybe_langchain(cls=t):
            info = GLOBAL_TYPES.by_type.get(t)
        return info

    def _info_named(self, name: str) -> TypeInfo | None:
        info = self._own.by_name.get(name) or GLOBAL_TYPES.by_name.get(name)
        if info is None and self.langchain and maybe_langchain(name=name):
            info = GLOBAL_TYPES.by_name.get(name)
        return info

    # -- dumps --------------------------------------------------------------------------
    def dumps(self, value: Any, *, where: str | None = None, headroom: int = 0) -> bytes:
        """Encode `value`. `where` names it in errors (e.g. the state key `"messages"`),
        so a failure reads "`messages[3].payload` is a `Payload`...". `headroom` is how many
        levels of `value` are the store's own wrapping (e.g. a task record around a node's
        write): they do not count against `MAX_DEPTH`, which limits the user's data."""
        t = type(value)
        if t is bool or value is None or (t is int and JSON_INT_MIN <= value <= JSON_INT_MAX):
            return orjson.dumps(value)
        try:
            try:
                out = orjson.dumps(self._enc(value, -headroom, _FAST))
            except orjson.JSONEncodeError:  # a non-str dict key or a huge int: be thorough
                out = orjson.dumps(self._enc(value, -headroom, _STRICT))
        except _Unencodable as e:
            raise self._error(e, _shorten((where or "value") + self._path_to(value, e.value))) from None
        except orjson.JSONEncodeError as e:  # a str with a lone surrogate, e.g. "\\ud800"
            raise SerializationError(
                f"Cannot checkpoint `{where or 'value'}`: {e}. Clean the text first, e.g. "
                "`s.encode('utf-8', 'replace').decode()`."
            ) from None
        if len(out) > self.max_bytes:
            name = where or "value"
            raise SerializationError(
                f"Cannot checkpoint `{name}`: it takes {len(out) / _MB:.1f} MB encoded, over the "
                f"{self.max_bytes / _MB:.0f} MB limit per stored value. Keep big data outside the "
                "state (store a file path or an id), or raise the limit with "
                "`Serializer(max_bytes=...)` / `SqliteSaver(path, max_value_bytes=...)`."
            )
        return out

    def _enc(self, v: Any, depth: int, plain: frozenset[type]) -> Any:
        """Encode into a JSON tree. Children whose type is in `plain` are taken as they are:
        the fast pass includes int and lets orjson reject non-str keys and huge ints, after
        which `dumps` redoes the value in the strict pass, which checks everything."""
        t = type(v)
        if t is str or t is bool or v is None:
            return v
        if t is int:
            return v if JSON_INT_MIN <= v <= JSON_INT_MAX else {TAG: "int", "v": hex(v)}
        if t is float:
            return _float(v)
        if depth >= MAX_DEPTH:
            raise _Unencodable(v, "deep")
        d = depth + 1
        enc = self._enc
        if t is list:
            return [x if type(x) in plain else enc(x, d, plain) for x in v]
        if t is dict:
            if plain is _STRICT and not all(type(k) is str for k in v):
                return {TAG: "map", "v": [[enc(k, d, plain), enc(x, d, plain)] for k, x in v.items()]}
            out = {k: (x if type(x) in plain else enc(x, d, plain)) for k, x in v.items()}
            return {TAG: "dict", "v": out} if TAG in v else out
        if t is tuple or t is set or t is frozenset:
            return {TAG: t.__name__, "v": [x if type(x) in plain else enc(x, d, plain) for x in v]}
        simple = _SIMPLE_ENCODERS.get(t)
        if simple is not None:
            return simple(v)
        return self._enc_object(v, t, depth, plain)

    def _enc_object(self, v: Any, t: type, depth: int, plain: frozenset[type]) -> Any:
        """A value of a type JSON has no form for: complex, a registered type (dataclass,
        pydantic model, named tuple, enum), a plain type's subclass, an UnknownValue read
        back from newer data."""
        if t is complex:
            return {TAG: "complex", "v": [_float(v.real), _float(v.imag)]}
        info = self._info_for(t)
        if info is None and t is UnknownValue:
            return self._enc_unknown(v, depth + 1, plain)
        if info is None:
            found = _written_here(v, t)
            if found is not None and type(found) is not TypeInfo:
                return self._enc(found, depth, plain)  # a str/int/float subclass, stored as the plain value
            info = found
        if info is None:
            raise _Unencodable(v, "enum" if isinstance(v, enum.Enum) else "type")
        if info.kind == "enum":
            return {TAG: "enum", "n": info.name, "v": v._name_}
        d, enc = depth + 1, self._enc
        out: dict[str, Any] = {}
        for k, x in self._fields(v, info):
            t = type(x)
            if t in plain:
                out[k] = x
            elif (t is dict or t is list) and not x:  # a message's empty metadata: as `_enc` gives it
                out[k] = t()
            else:
                out[k] = enc(x, d, plain)
        return {TAG: "obj", "n": info.name, "v": out}

    def _enc_unknown(self, v: UnknownValue, d: int, plain: frozenset[type]) -> Any:
        """An UnknownValue goes back as it came: an unknown tag with its fields, an enum
        member by name, an object by its type name and fields."""
        enc = self._enc
        if v.type_name.startswith("tag:") and type(v.data) is dict and TAG not in v.data:
            # an unknown tag (a newer version's) goes back exactly as it came
            return {TAG: v.type_name[4:], **{k: enc(x, d, plain) for k, x in v.data.items()}}
        if isinstance(v.data, str):
            return {TAG: "enum", "n": v.type_name, "v": v.data}
        data = v.data if type(v.data) is dict else {"data": v.data}
        return {TAG: "obj", "n": v.type_name, "v": {k: enc(x, d, plain) for k, x in data.items()}}

    @staticmethod
    def _fields(v: Any, info: TypeInfo) -> Iterable[tuple[str, Any]]:
        if info.kind == "dataclass":
            return [(name, getattr(v, name)) for name, _ in info.fields]
        if info.kind == "pydantic":
            extra = getattr(v, "__pydantic_extra__", None)
            own: dict[str, Any] = v.__dict__
            names = _PYDANTIC_FIELDS.get(type(v))
            if names is None:
                names = _PYDANTIC_FIELDS[type(v)] = frozenset(type(v).model_fields)
            if not extra and own.keys() == names:  # the instance holds exactly its fields
                return own.items()  # in pydantic's field order, as getattr would give them
            fields = {name: getattr(v, name) for name in type(v).model_fields}
            fields.update(extra or {})
            return fields.items()
        return zip(v._fields, v)

    def _children(self, v: Any) -> Iterable[tuple[str, Any]]:
        """(path segment, child) pairs in the order the encoder visits them."""
        t = type(v)
        if t is list or t is tuple:
            return ((f"[{i}]", x) for i, x in enumerate(v))
        if t is dict:
            return (
                pair
                for k, x in v.items()
                for pair in (((f"<key {k!r}>", k),) if type(k) is not str else ()) + ((f"[{k!r}]", x),)
            )
        if t is set or t is frozenset:
            return (("{*}", x) for x in v)
        if t is UnknownValue and type(v.data) is dict:
            return ((f".{k}", x) for k, x in v.data.items())
        info = self._info_for(t)
        if info is not None and info.kind != "enum":
            return ((f".{k}", x) for k, x in self._fields(v, info))
        return ()

    def _path_to(self, root: Any, target: Any) -> str:
        """Where `target` sits inside `root` (a depth-first search run only on errors)."""
        stack: list[tuple[Any, str, int]] = [(root, "", 0)]
        while stack:
            v, path, depth = stack.pop()
            if v is target:
                return path
            if depth < MAX_DEPTH:
                kids = [(x, path + seg, depth + 1) for seg, x in self._children(v)]
                stack.extend(reversed(kids))
        return ""

    def _error(self, e: _Unencodable, path: str) -> SerializationError:
        cls = type(e.value)
        name, short = _type_name(e.value), cls.__name__
        if e.reason == "deep":
            text = (
                f"Cannot checkpoint `{path}`: it is nested more than {MAX_DEPTH} levels deep. "
                "Flatten the data (e.g. a list of records instead of a linked chain)."
            )
        elif e.reason == "enum" or dataclasses.is_dataclass(cls) or is_pydantic(cls) or (
            issubclass(cls, tuple) and hasattr(cls, "_fields")
        ):
            text = (
                f"Cannot checkpoint `{path}`: it is a `{name}`, a type the checkpoint serializer "
                f"does not know. Register it with `engine.register_type({short})` (or name it in "
                "the state schema passed to `StateGraph(...)`), or store plain data instead."
            )
        else:
            text = (
                f"Cannot checkpoint `{path}`: it is a `{name}`, which checkpoints cannot store "
                "(they hold plain data and registered types only, never pickles). Store plain data "
                "instead (dict, list, str, int, float, bool, None), or a dataclass registered with "
                "`engine.register_type(...)`."
            )
        err = SerializationError(text)
        err.path = path  # type: ignore[attr-defined]
        err.type_name = name  # type: ignore[attr-defined]
        return err

    # -- loads --------------------------------------------------------------------------
    def loads(self, data: bytes, *, plain: bool = False, headroom: int = 0) -> Any:
        """Decode bytes made by `dumps`. Garbage raises `CheckpointDecodeError`, nothing else.

        `plain=True` says the bytes hold no tagged values (a store that noted it when
        saving), which skips searching a big value for them; wrong, it only leaves a
        tag undecoded as the plain dict it is. `headroom`: as in `dumps` (the same value
        must be given back)."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise CheckpointDecodeError(f"checkpoint data must be bytes, not {type(data).__name__}")
        if isinstance(data, memoryview):
            data = data.tobytes()
        if len(data) > self.max_bytes:
            raise CheckpointDecodeError(
                f"a stored value takes {len(data) / _MB:.1f} MB, over the {self.max_bytes / _MB:.0f} MB "
                "limit; it was not loaded. If you trust the file, raise the limit with "
                "`Serializer(max_bytes=...)` / `SqliteSaver(path, max_value_bytes=...)`."
            )
        try:
            raw = orjson.loads(data)
        except orjson.JSONDecodeError as e:
            raise CheckpointDecodeError(f"stored value is not valid checkpoint data ({e})") from None
        if plain or TAG_BYTES not in data:
            # untagged data skips `_dec`, so its depth is checked here (cheaply: only data
            # with more than MAX_DEPTH brackets can nest that deep)
            limit = MAX_DEPTH + headroom
            if _brackets_over(data, limit) and not _depth_within(raw, limit):
                raise CheckpointDecodeError(f"stored value is nested more than {MAX_DEPTH} levels deep")
            return raw
        try:
            return self._dec(raw, -headroom)
        except (CheckpointDecodeError, Warning):
            raise
        except RecursionError:
            raise CheckpointDecodeError(f"stored value is nested more than {MAX_DEPTH} levels deep") from None
        except Exception as e:  # noqa: BLE001 - any malformed tag: a bad base64, date, shape...
            raise CheckpointDecodeError(
                f"stored value is malformed ({type(e).__name__}: {str(e)[:200]})"
            ) from None

    def _dec(self, v: Any, depth: int) -> Any:
        t = type(v)
        if t is list:
            if depth >= MAX_DEPTH:
                raise RecursionError
            d, dec = depth + 1, self._dec
            return [x if type(x) is str else dec(x, d) for x in v]
        if t is dict:
            if depth >= MAX_DEPTH:
                raise RecursionError
            if TAG in v:
                return self._dec_tagged(v, depth + 1)
            d, dec = depth + 1, self._dec
            return {k: (x if type(x) is str else dec(x, d)) for k, x in v.items()}
        return v

    def _dec_tagged(self, v: dict[str, Any], d: int) -> Any:
        tag, x = v[TAG], v.get("v")
        scalar = _SCALAR_DECODERS.get(tag) if type(tag) is str else None
        if scalar is not None:
            return scalar(x, v)
        dec = self._dec
        if tag == "tuple":
            return tuple(dec(i, d) for i in _list(x))
        if tag == "set":
            return {dec(i, d) for i in _list(x)}
        if tag == "frozenset":
            return frozenset(dec(i, d) for i in _list(x))
        if tag == "dict":
            return {k: dec(i, d) for k, i in _dict(x).items()}
        if tag == "map":
            return {dec(k, d): dec(i, d) for k, i in (_pair(p) for p in _list(x))}
        if tag == "complex":
            re, im = _pair(x)
            return complex(dec(re, d), dec(im, d))
        if tag == "obj":
            fields = {k: (i if type(i) is str or i is None else dec(i, d)) for k, i in _dict(x).items()}
            return self._dec_obj(_str(v.get("n")), fields)
        if tag == "enum":
            return self._dec_enum(_str(v.get("n")), _str(x))
        _warn(f"Checkpoint data holds a value tagged {str(tag)[:80]!r}, unknown to this version "
              "of Retrograph; it is loaded as an inert UnknownValue.")
        return UnknownValue(f"tag:{str(tag)[:80]}", dec({k: i for k, i in v.items() if k != TAG}, d))

    def _dec_obj(self, name: str, fields: dict[str, Any]) -> Any:
        info = self._info_named(name)
        if info is None or info.kind == "enum":
            _warn_unknown(name)
            return UnknownValue(name, fields)
        cls = info.cls
        try:
            if info.kind == "dataclass":
                known = {n for n, _ in info.fields}
                extra = set(fields) - known
                if extra:
                    raise TypeError(f"stored fields {sorted(extra)} are not fields of the class")
                obj = cls(**{n: fields[n] for n, init in info.fields if init and n in fields})
                for n, init in info.fields:
                    if not init and n in fields:
                        object.__setattr__(obj, n, fields[n])
                return obj
            if info.kind == "pydantic":
                return cls.model_construct(**fields)  # type: ignore[attr-defined]
            return cls(**fields)
        except Exception as e:  # noqa: BLE001 - the class changed since the data was written
            _warn(f"Checkpoint data holds a `{name}` that cannot be rebuilt with the registered "
                  f"class ({type(e).__name__}: {e}); it is loaded as an inert UnknownValue.")
            return UnknownValue(name, fields)

    def _dec_enum(self, name: str, member: str) -> Any:
        info = self._info_named(name)
        if info is None or info.kind != "enum":
            _warn_unknown(name)
            return UnknownValue(name, member)
        try:
            return info.cls[member]  # type: ignore[index]
        except KeyError:
            _warn(f"Checkpoint data holds `{name}.{member}`, which the registered enum lacks; "
                  "it is loaded as an inert UnknownValue.")
            return UnknownValue(name, member)


_PYDANTIC_FIELDS: dict[type, frozenset[str]] = {}
"""A registered pydantic class -> its field names (read once: `model_fields` is a property)."""


def _written_here(v: Any, t: type) -> Any:
    """For a value of an unregistered type: its TypeInfo once registered, the plain value of
    a str/int/float subclass, or None (the caller refuses it).

    A dataclass, pydantic model, NamedTuple or Enum instance being *written* was made by the
    code running in this process, so its class joins this process's registry: reading it back
    here rebuilds it, as if the user had called `register_type`. Nothing reaches the registry
    from stored data, so another process reading the file still gets an `UnknownValue`."""
    if isinstance(v, enum.Enum) or dataclasses.is_dataclass(t) or is_pydantic(t) or (
        issubclass(t, tuple) and hasattr(t, "_fields")
    ):
        GLOBAL_TYPES.add(t)
        return GLOBAL_TYPES.by_type.get(t)
    if isinstance(v, str):  # e.g. langchain-core's TextAccessor (message.text)
        return str.__str__(v)
    if isinstance(v, int) and not isinstance(v, bool):
        return int.__index__(v)
    if isinstance(v, float):
        return float.__float__(v)
    return None


def _shorten(path: str) -> str:
    return path if len(path) <= 160 else f"{path[:70]}...{path[-70:]}"


def _warn(text: str) -> None:
    warnings.warn(text, UnknownTypeWarning, stacklevel=4)


def _warn_unknown(name: str) -> None:
    short = name.rsplit(".", 1)[-1][:80]
    _warn(f"Checkpoint data holds a `{name[:200]}`, a type not registered in this process; it is "
          f"loaded as an inert UnknownValue. To get the object back, register the class with "
          f"`engine.register_type({short})` before loading.")


def _dec_float(x: Any, _: dict[str, Any]) -> float:
    if x not in ("nan", "inf", "-inf"):
        raise ValueError(f"bad float {x!r}")
    return float(x)


def _dec_datetime(x: Any, v: dict[str, Any]) -> dt.datetime:
    value = dt.datetime.fromisoformat(_str(x))
    zone = _zone(v["z"]) if "z" in v else None
    if zone is not None and value.tzinfo is not None:
        value = value.astimezone(zone)
    if v.get("f") == 1:
        value = value.replace(fold=1)
    return value


def _dec_timedelta(x: Any, _: dict[str, Any]) -> dt.timedelta:
    days, secs, micros = _list(x, 3)
    return dt.timedelta(days=_int(days), seconds=_int(secs), microseconds=_int(micros))


_SCALAR_DECODERS: dict[str, Callable[[Any, dict[str, Any]], Any]] = {
    "float": _dec_float,
    "int": lambda x, _: int(_str(x), 16),
    "bytes": lambda x, _: base64.b64decode(_str(x), validate=True),
    "bytearray": lambda x, _: bytearray(base64.b64decode(_str(x), validate=True)),
    "datetime": _dec_datetime,
    "date": lambda x, _: dt.date.fromisoformat(_str(x)),
    "time": lambda x, _: dt.time.fromisoformat(_str(x)),
    "timedelta": _dec_timedelta,
    "uuid": lambda x, _: uuid.UUID(_str(x)),
    "decimal": lambda x, _: Decimal(_str(x)),
}
"""Tag -> its decoder, for the tagged values that hold no other values: `decoder(the "v"
field, the whole tagged dict)`."""


def _list(x: Any, n: int | None = None) -> list[Any]:
    if type(x) is not list or (n is not None and len(x) != n):
        raise ValueError(f"expected a list{'' if n is None else f' of {n}'}, got {type(x).__name__}")
    return x


def _pair(x: Any) -> list[Any]:
    return _list(x, 2)


def _dict(x: Any) -> dict[str, Any]:
    if type(x) is not dict:
        raise ValueError(f"expected an object, got {type(x).__name__}")
    return x


def _str(x: Any) -> str:
    if type(x) is not str:
        raise ValueError(f"expected a string, got {type(x).__name__}")
    return x


def _int(x: Any) -> int:
    if type(x) is not int:
        raise ValueError(f"expected an integer, got {type(x).__name__}")
    return x
