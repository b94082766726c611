"""`JsonPlusSerializer`: LangGraph's typed serializer (msgpack with ext types), without pickle.

Served as `langgraph.checkpoint.serde.jsonplus`. `dumps_typed(value)` gives
`("msgpack", bytes)` in LangGraph's layout (an ext type per Python type: constructor
arguments, pydantic and dataclass fields), `("bytes", ...)`, `("bytearray", ...)` or
`("null", b"")`; `loads_typed` reads those and LangGraph's `json` form.

Loading never runs code named by the data: builtin and engine types are rebuilt from a
fixed table (`foreign.langgraph_msgpack`); a user's dataclass, pydantic model or Enum is
rebuilt only when it is registered (`register`, `register_type`) or named in
`allowed_msgpack_modules` *and* its module is already imported; any other type is
blocked and comes back as its plain data, with a warning. Method-call exts (LangGraph's
code 3, e.g. `Path(...).read_text`) never call the method. `pickle_fallback=True` is
refused: Retrograph never unpickles. As a saver's `serde=`, it is also the engine's own
`Serializer`, so a saver constructed with it stores with it; a subclass that overrides
`dumps_typed`/`loads_typed` stores every value through them (serde_typed_store.py).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import ipaddress
import logging
import pathlib
import re
import sys
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

import orjson
import ormsgpack

from ..errors import CheckpointDecodeError, SerializationError
from ..policies import TimeoutPolicy
from ..types import Interrupt, Send
from .foreign.langgraph_msgpack import build_ext, decode_typed
from .langchain_types import ALLOWED as LC_ALLOWED
from .langchain_types import ensure_registered
from .registry import UnknownValue, is_pydantic
from .serde import Serializer
from .serde_msgpack import NOT_GIVEN, AllowedMsgpackModules
from .serde_typed_store import plain_reader, typed_dumps, typed_loads

__all__ = [
    "JsonPlusSerializer",
    "InvalidModuleError",
    "EXT_CONSTRUCTOR_SINGLE_ARG",
    "EXT_CONSTRUCTOR_POS_ARGS",
    "EXT_CONSTRUCTOR_KW_ARGS",
    "EXT_METHOD_SINGLE_ARG",
    "EXT_PYDANTIC_V1",
    "EXT_PYDANTIC_V2",
    "EXT_NUMPY_ARRAY",
]

EXT_CONSTRUCTOR_SINGLE_ARG, EXT_CONSTRUCTOR_POS_ARGS, EXT_CONSTRUCTOR_KW_ARGS = 0, 1, 2
EXT_METHOD_SINGLE_ARG, EXT_PYDANTIC_V1, EXT_PYDANTIC_V2, EXT_NUMPY_ARRAY = 3, 4, 5, 6
_MAX_DEPTH = 64
_OPTS = ormsgpack.OPT_NON_STR_KEYS
_PACK_OPTS = (  # these go through `_default`, so that they come back as their own types
    _OPTS | ormsgpack.OPT_PASSTHROUGH_DATACLASS | ormsgpack.OPT_PASSTHROUGH_DATETIME
    | ormsgpack.OPT_PASSTHROUGH_UUID | ormsgpack.OPT_PASSTHROUGH_ENUM
)
log = logging.getLogger("langgraph.checkpoint.serde.jsonplus")


class InvalidModuleError(ValueError):
    """A JSON value names a module outside the allowed ones."""


def _ext(code: int, payload: tuple[Any, ...]) -> ormsgpack.Ext:
    return ormsgpack.Ext(code, ormsgpack.packb(list(payload), default=_default, option=_PACK_OPTS))


def _named(v: Any) -> tuple[str, str]:
    t = type(v)
    return t.__module__, t.__qualname__


_SIMPLE: dict[type, Callable[[Any], ormsgpack.Ext]] = {
    uuid.UUID: lambda v: _ext(0, ("uuid", "UUID", v.hex)),
    decimal.Decimal: lambda v: _ext(0, ("decimal", "Decimal", str(v))),
    set: lambda v: _ext(0, ("builtins", "set", list(v))),
    frozenset: lambda v: _ext(0, ("builtins", "frozenset", list(v))),
    deque: lambda v: _ext(0, ("collections", "deque", list(v))),
    dt.date: lambda v: _ext(1, ("datetime", "date", [v.year, v.month, v.day])),
    dt.timedelta: lambda v: _ext(1, ("datetime", "timedelta", [v.days, v.seconds, v.microseconds])),
    dt.timezone: lambda v: _ext(1, ("datetime", "timezone", [v.utcoffset(None)])),
    ZoneInfo: lambda v: _ext(0, ("zoneinfo", "ZoneInfo", v.key)),
    ipaddress.IPv4Address: lambda v: _ext(0, ("ipaddress", "IPv4Address", str(v))),
    ipaddress.IPv6Address: lambda v: _ext(0, ("ipaddress", "IPv6Address", str(v))),
    re.Pattern: lambda v: _ext(1, ("re", "compile", [v.pattern, v.flags])),
}


def _default(v: Any) -> Any:  # noqa: C901 - one branch per kind of value, flat
    """msgpack's fallback: every value msgpack cannot hold itself, as LangGraph lays it out."""
    simple = _SIMPLE.get(type(v))
    if simple is not None:
        return simple(v)
    if isinstance(v, dt.datetime):
        return _ext(3, ("datetime", "datetime", v.isoformat(), "fromisoformat"))
    if isinstance(v, dt.time):
        kw = {"hour": v.hour, "minute": v.minute, "second": v.second, "microsecond": v.microsecond,
              "tzinfo": v.tzinfo, "fold": v.fold}
        return _ext(2, ("datetime", "time", kw))
    if isinstance(v, pathlib.PurePath):
        return _ext(1, (*_named(v), list(v.parts)))
    if isinstance(v, enum.Enum):
        return _ext(0, (*_named(v), v.value))
    if isinstance(v, Send):
        if v.timeout is not None:  # as LangGraph: a Send's own timeout is its third argument
            return _ext(1, ("langgraph.types", "Send", [v.node, v.arg, v.timeout]))
        return _ext(2, ("langgraph.types", "Send", {"node": v.node, "arg": v.arg}))
    if isinstance(v, TimeoutPolicy):
        return _ext(2, ("langgraph.types", "TimeoutPolicy", dataclasses.asdict(v)))
    if isinstance(v, Interrupt):
        return _ext(2, ("langgraph.types", "Interrupt", {"value": v.value, "id": v.id}))
    if is_pydantic(type(v)):
        return _ext(5, (*_named(v), v.model_dump(), "model_validate_construct"))
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        fields = {f.name: getattr(v, f.name) for f in dataclasses.fields(v)}
        return _ext(2, (*_named(v), fields))
    if isinstance(v, tuple) and hasattr(v, "_asdict"):
        return _ext(2, (*_named(v), v._asdict()))
    if isinstance(v, BaseException):
        return _ext(1, (*_named(v), [str(a) for a in v.args]))
    raise TypeError(f"{type(v).__module__}.{type(v).__qualname__} cannot be serialized (register it, or store plain data)")


def _legacy_interrupt_id(ns: list[str]) -> str:
    """The id LangGraph gives an Interrupt saved before ids existed (a hash of its namespace)."""
    key = "|".join(ns)
    try:
        import xxhash  # LangGraph's own hash; without it, the namespace itself names the interrupt
    except ImportError:
        return key
    return str(xxhash.xxh3_128_hexdigest(key.encode()))


def _interrupt(kw: dict[str, Any]) -> Interrupt:
    ident = kw.get("id")
    if not isinstance(ident, str):
        ns = kw.get("ns")
        ident = _legacy_interrupt_id(ns) if isinstance(ns, list) and all(isinstance(n, str) for n in ns) else ""
    return Interrupt(value=kw.get("value"), id=ident)


def _path(a: Any) -> Any:
    return pathlib.Path(*a) if isinstance(a, list) and all(isinstance(p, str) for p in a) else None


_EXTRA: dict[tuple[str, str], Callable[[Any], Any]] = {
    ("pathlib", "Path"): _path,
    ("pathlib", "PosixPath"): _path,
    ("collections", "deque"): lambda a: deque(a) if isinstance(a, list) else None,
    ("zoneinfo", "ZoneInfo"): lambda a: ZoneInfo(a) if isinstance(a, str) else None,
    ("ipaddress", "IPv4Address"): lambda a: ipaddress.IPv4Address(a) if isinstance(a, str) else None,
    ("ipaddress", "IPv6Address"): lambda a: ipaddress.IPv6Address(a) if isinstance(a, str) else None,
    ("re", "compile"): lambda a: re.compile(a[0], a[1]) if isinstance(a, list) and len(a) == 2 else None,
    ("datetime", "timezone"): lambda a: dt.timezone(*a) if isinstance(a, list) and len(a) == 1 else None,
    ("langgraph.types", "Interrupt"): lambda a: _interrupt(a) if isinstance(a, dict) else None,
}


class JsonPlusSerializer(Serializer):
    """LangGraph's serializer API over the engine's no-code rules (see the module docstring)."""

    def __init__(
        self,
        *,
        pickle_fallback: bool = False,
        allowed_json_modules: Iterable[tuple[str, ...]] | bool | None = None,
        allowed_msgpack_modules: AllowedMsgpackModules | bool | None | object = NOT_GIVEN,
        __unpack_ext_hook__: Callable[[int, bytes], Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if pickle_fallback:
            raise ValueError(
                "JsonPlusSerializer(pickle_fallback=True): Retrograph never unpickles (unpickling runs "
                "code); store plain data or register the type with register_type()"
            )
        super().__init__(**kwargs)
        self.pickle_fallback = False
        self.allowed_json_modules = allowed_json_modules
        self.allowed_msgpack_modules = allowed_msgpack_modules
        self._unpack_ext_hook = __unpack_ext_hook__

    def with_msgpack_allowlist(self, extra: Iterable[tuple[str, ...]]) -> JsonPlusSerializer:
        """A copy that also rebuilds the listed (module, class) types; this one is unchanged."""
        extra = tuple(tuple(e) for e in extra)
        if not extra:
            return self
        current = self.allowed_msgpack_modules
        base = tuple(current) if isinstance(current, (list, tuple, set, frozenset)) else ()
        clone = type(self).__new__(type(self))
        clone.__dict__ = dict(self.__dict__)
        clone.allowed_msgpack_modules = (*base, *extra)
        return clone

    # -- a subclass with its own typed methods stores through them (serde_typed_store.py) --
    _typed_store: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._typed_store = (cls.dumps_typed is not JsonPlusSerializer.dumps_typed
                            or cls.loads_typed is not JsonPlusSerializer.loads_typed)

    def dumps(self, value: Any, *, where: str | None = None, headroom: int = 0) -> bytes:
        if self._typed_store and not headroom:
            return typed_dumps(self, value, self.max_bytes, where)
        return super().dumps(value, where=where, headroom=headroom)

    def loads(self, data: bytes, *, plain: bool = False, headroom: int = 0) -> Any:
        if self._typed_store and not headroom and isinstance(data, (bytes, bytearray, memoryview)):
            return typed_loads(self, bytes(data), plain_reader(self))
        return super().loads(data, plain=plain, headroom=headroom)

    # -- the typed API --------------------------------------------------------------------
    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        if obj is None:
            return "null", b""
        if isinstance(obj, bytes):
            return "bytes", obj
        if isinstance(obj, bytearray):
            return "bytearray", bytes(obj)
        try:
            return "msgpack", ormsgpack.packb(obj, default=_default, option=_PACK_OPTS)
        except (TypeError, ormsgpack.MsgpackEncodeError) as e:
            raise SerializationError(f"JsonPlusSerializer: {e}") from None

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        kind, blob = data
        if kind == "msgpack":
            found: list[CheckpointDecodeError] = []  # msgpack hides what its ext hook raised
            try:
                return ormsgpack.unpackb(bytes(blob), ext_hook=self._unpack_ext_hook or self._hook(0, found),
                                         option=_OPTS)
            except (ormsgpack.MsgpackDecodeError, ValueError, TypeError, RecursionError) as e:
                raise (found[0] if found else CheckpointDecodeError(f"not valid msgpack ({e})")) from None
        if kind == "json":
            try:
                return self._revive(orjson.loads(bytes(blob)), 0)
            except orjson.JSONDecodeError as e:
                raise CheckpointDecodeError(f"not valid JSON ({e})") from None
        return decode_typed(kind, blob)

    # -- decoding -------------------------------------------------------------------------
    def _hook(self, depth: int, found: list[CheckpointDecodeError]) -> Callable[[int, bytes], Any]:
        def hook(code: int, data: bytes) -> Any:
            if depth >= _MAX_DEPTH:
                found.append(CheckpointDecodeError(f"values nested deeper than {_MAX_DEPTH} typed objects"))
                raise found[-1]
            return self._build(code, ormsgpack.unpackb(data, ext_hook=self._hook(depth + 1, found), option=_OPTS))

        return hook

    def _build(self, code: int, payload: Any) -> Any:
        if not isinstance(payload, list) or len(payload) < 3:
            return None
        module, name, arg = payload[0], payload[1], payload[2]
        key = (module, name)
        if code == EXT_METHOD_SINGLE_ARG and len(payload) > 3 and key != ("datetime", "datetime"):
            log.warning("Blocked deserialization of method call %s.%s.%s", module, name, payload[3])
        extra = _EXTRA.get(key) if isinstance(module, str) and isinstance(name, str) else None
        if extra is not None:
            built = _safely(extra, arg)
            if built is not None:
                return built
        cls = self._allowed_class(module, name)
        if cls is not None:
            built = _safely(lambda a: _rebuild(cls, a), arg)
            if built is not None:
                return built
        built = build_ext(code, payload)
        if isinstance(built, UnknownValue):
            log.warning("Blocked deserialization of unregistered type %s.%s; returning its data", module, name)
            return arg
        return built

    def _allowed_class(self, module: Any, name: Any) -> type | None:
        """A registered class, or one named in `allowed_msgpack_modules` whose module is loaded."""
        if not isinstance(module, str) or not isinstance(name, str):
            return None
        info = self._info_named(f"{module}.{name}")
        if info is None and module.startswith("langchain_core.messages") and name in LC_ALLOWED and ensure_registered():
            info = self._info_named(f"lc.{name}")
        if info is not None:
            return info.cls
        allowed = self.allowed_msgpack_modules
        if not isinstance(allowed, (list, tuple, set, frozenset)):
            return None
        if (module, name) not in {tuple(a) for a in allowed} and (module,) not in {tuple(a) for a in allowed}:
            return None
        mod = sys.modules.get(module)  # already imported by the user's code: nothing is imported here
        cls = getattr(mod, name, None) if mod is not None else None
        ok = isinstance(cls, type) and (is_pydantic(cls) or dataclasses.is_dataclass(cls) or issubclass(cls, enum.Enum))
        return cls if ok else None

    def _revive(self, v: Any, depth: int) -> Any:
        """LangGraph's JSON form: `{"lc": 2, "type": "constructor", "id": [...], "kwargs": {...}}`."""
        if depth > _MAX_DEPTH:
            raise CheckpointDecodeError(f"values nested deeper than {_MAX_DEPTH}")
        if isinstance(v, list):
            return [self._revive(x, depth + 1) for x in v]
        if not isinstance(v, dict):
            return v
        v = {k: self._revive(x, depth + 1) for k, x in v.items()}
        ident = v.get("id")
        if v.get("lc") == 2 and v.get("type") == "constructor" and isinstance(ident, list) and len(ident) >= 2:
            module, name = ".".join(map(str, ident[:-1])), str(ident[-1])
            kwargs = v.get("kwargs") if isinstance(v.get("kwargs"), dict) else {}
            built = self._build(EXT_CONSTRUCTOR_KW_ARGS, [module, name, kwargs])
            return built
        return v


def _safely(fn: Callable[[Any], Any], arg: Any) -> Any:
    try:
        return fn(arg)
    except (ValueError, TypeError, KeyError, IndexError, OverflowError, decimal.InvalidOperation):
        return None


def _rebuild(cls: type, arg: Any) -> Any:
    if issubclass(cls, enum.Enum):
        return cls(arg)
    if is_pydantic(cls):
        return cls.model_validate(arg)  # type: ignore[attr-defined]
    if isinstance(arg, dict):
        return cls(**arg)
    return cls(*arg) if isinstance(arg, list) else None
