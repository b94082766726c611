"""A run's context, config and durability: checked from JSON text, kept with the thread.

`retrograph run --context/--config/--durability` and the studio's new-run dialog read the
same three things through these functions, so both say the same words about bad input.
The context is kept with the thread in its checkpoints' metadata (under `CONTEXT_KEY`),
so a restart, a `--resume` in a new process and a replay run with the context the thread
started with. Keys that look like secrets (`api_key`, `token`, ...) are never written.
Qt-free.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .jsontext import parse_json_input

__all__ = ["RunSettings", "CONTEXT_KEY", "CONFIG_KEYS", "DURABILITIES", "parse_context", "check_context", "parse_config",
           "kept_context", "saved_context", "skeleton", "context_schema_of", "example_of", "RunTexts", "run_texts",
           "read_texts", "context_hint"]

CONTEXT_KEY = "run_context"
"""The checkpoint metadata key that holds the thread's run context (JSON data)."""

CONFIG_KEYS = ("recursion_limit", "tags", "metadata", "configurable", "run_name", "max_concurrency")
"""What `--config` may set (the JSON-expressible parts of a run's config)."""

DURABILITIES = ("sync", "async", "exit")

_SECRET = re.compile(r"(api[_-]?key|token|secret|password|passwd|credential|auth)", re.IGNORECASE)


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """What a new run is started with besides its input."""

    context: Any = None
    """The context as JSON data (a dict), None for none."""
    config: Mapping[str, Any] = field(default_factory=dict)
    durability: str | None = None


def _object(text: str | None, flag: str) -> tuple[Any, str | None]:
    value, problem = parse_json_input(text)
    if problem:
        return None, f"{flag}: {problem}"
    if value is not None and not isinstance(value, dict):
        return None, f"{flag} must be a JSON object, e.g. {flag} '{{\"user_id\": \"ada\"}}'"
    return value, None


def context_schema_of(graph: Any) -> Any:
    builder = getattr(graph, "builder", None)
    return getattr(builder, "context_schema", None)


def _schema_fields(schema: Any) -> tuple[set[str], set[str]] | None:
    """(all field names, required ones) of a TypedDict or dataclass context schema; None otherwise."""
    if dataclasses.is_dataclass(schema):
        fields = [f for f in dataclasses.fields(schema) if f.init]
        return ({f.name for f in fields}, {f.name for f in fields if f.default is dataclasses.MISSING
                                           and f.default_factory is dataclasses.MISSING})
    annotations = getattr(schema, "__annotations__", None)
    required = getattr(schema, "__required_keys__", None)
    if not isinstance(annotations, dict) or required is None:
        return None
    return set(annotations), set(required)


def parse_context(text: str | None, graph: Any, flag: str = "--context") -> tuple[Any, str | None]:
    """(the context as a dict, None) or (None, one line naming `flag` and what is wrong):
    not JSON, not an object, or refused by the graph's `context_schema`."""
    value, problem = _object(text, flag)
    if problem or value is None:
        return None, problem
    return check_context(value, graph, flag)


def check_context(value: dict[str, Any], graph: Any, flag: str = "--context") -> tuple[Any, str | None]:
    """`parse_context` for a value already decoded (a thread's saved context)."""
    schema = context_schema_of(graph)
    if schema is None:
        return value, None
    name = getattr(schema, "__name__", "the context schema")
    fields = _schema_fields(schema)
    if fields is not None:
        names, required = fields
        missing, unknown = sorted(required - set(value)), sorted(set(value) - names)
        if missing or unknown:
            said = "; ".join(p for p in (f"missing {', '.join(missing)}" if missing else "",
                                         f"unknown {', '.join(unknown)}" if unknown else "") if p)
            return None, f"{flag} does not fit {name}: {said} (its keys: {', '.join(sorted(names))})"
        if not dataclasses.is_dataclass(schema):
            return value, None
    from engine.runtime.injected import coerce_context

    try:
        coerce_context(schema, value)
    except Exception as exc:  # a dataclass's TypeError, Pydantic's ValidationError
        text_ = " ".join(str(exc).split())
        return None, f"{flag} does not fit {name}: {text_[:300]}"
    return value, None


def _config_problem(key: str, value: Any) -> str | None:
    if key == "recursion_limit" and (type(value) is not int or value < 1):
        return "recursion_limit must be a whole number of at least 1"
    if key == "max_concurrency" and (type(value) is not int or value < 1):
        return "max_concurrency must be a whole number of at least 1"
    if key == "tags" and not (isinstance(value, list) and all(isinstance(t, str) for t in value)):
        return "tags must be a list of strings"
    if key in ("metadata", "configurable") and not isinstance(value, dict):
        return f"{key} must be a JSON object"
    if key == "run_name" and not isinstance(value, str):
        return "run_name must be a string"
    return None


def parse_config(text: str | None, flag: str = "--config") -> tuple[dict[str, Any], str | None]:
    """({config}, None) or ({}, one line naming `flag`, the bad key and what it may be)."""
    value, problem = _object(text, flag)
    if problem or value is None:
        return {}, problem
    unknown = [k for k in value if k not in CONFIG_KEYS]
    if unknown:
        return {}, f"{flag}: unknown key {', '.join(map(repr, unknown))}: use {', '.join(CONFIG_KEYS)}"
    for key, item in value.items():
        bad = _config_problem(key, item)
        if bad:
            return {}, f"{flag}: {bad}"
    return value, None


def kept_context(context: Any) -> tuple[Any, tuple[str, ...]]:
    """What of `context` is written with the thread, and the keys left out as secrets."""
    if not isinstance(context, dict):
        return context, ()
    dropped = tuple(k for k in context if _SECRET.search(str(k)))
    return {k: v for k, v in context.items() if k not in dropped}, dropped


def saved_context(metadata: Any) -> Any:
    """The context a thread's checkpoint kept (None when it kept none)."""
    if isinstance(metadata, Mapping):
        value = metadata.get(CONTEXT_KEY)
        return dict(value) if isinstance(value, Mapping) else None
    return None


def skeleton(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """An object to edit from a JSON schema: each property's default, else an empty value of its type."""
    empty = {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}
    out: dict[str, Any] = {}
    for name, prop in ((schema or {}).get("properties") or {}).items():
        if not isinstance(prop, Mapping):
            continue
        if "default" in prop:
            out[name] = prop["default"]
            continue
        kind = prop.get("type")
        if kind is None:
            kinds = [p.get("type") for p in prop.get("anyOf", ()) if isinstance(p, Mapping)]
            kind = next((k for k in kinds if k and k != "null"), None)
        out[name] = empty.get(kind) if isinstance(kind, str) else None
    return out


def example_of(module: Any, name: str, schema: Mapping[str, Any] | None) -> Any:
    """The module's `name` (`example_input`, `example_context`), else a skeleton of `schema`;
    a dataclass example is given as its fields."""
    value = getattr(module, name, None)
    if value is not None:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return dataclasses.asdict(value)
        dump = getattr(value, "model_dump", None)
        return dump() if callable(dump) else value
    return skeleton(schema) if schema else None


@dataclass(frozen=True, kw_only=True)
class RunTexts:
    """The new-run dialog's three JSON texts and the durability, as the user edits them."""

    input: str = "{}"
    context: str = ""
    config: str = "{}"
    durability: str = ""
    context_hint: str = ""
    """What the graph's context_schema asks for ("" without one: the Context box is optional)."""


def _text(value: Any) -> str:
    import json

    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        return repr(value)


def _json_schema(get: Any) -> Any:
    try:
        return get()
    except Exception:  # a schema that cannot be described pre-fills nothing
        return None


def context_hint(graph: Any) -> str:
    schema = _json_schema(getattr(graph, "get_context_jsonschema", lambda: None))
    if not schema:
        return ""
    required = set(schema.get("required") or ())
    fields = [f"{k}{' (required)' if k in required else ''}" for k in (schema.get("properties") or {})]
    return f"{schema.get('title') or 'context'}: {', '.join(fields) or 'no fields'}"


def _hinted(tp: Any) -> dict[str, Any] | None:
    """A JSON-schema-like `properties` from a class's type hints, for a schema pydantic cannot
    describe (typing.TypedDict before Python 3.12)."""
    import typing

    try:
        hints = typing.get_type_hints(tp, include_extras=False)
    except Exception:
        return None
    kinds = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}
    return {"properties": {k: {"type": kinds.get(typing.get_origin(v) or v)} for k, v in hints.items()}}


def _input_schema(graph: Any) -> Any:
    schema = _json_schema(getattr(graph, "get_input_jsonschema", dict))
    if schema is None and getattr(graph, "builder", None) is not None:
        builder = graph.builder
        schema = _hinted(getattr(builder, "input_schema", None) or getattr(builder, "state_schema", None))
    return schema


def run_texts(module: Any, graph: Any, input_value: Any, settings: RunSettings) -> RunTexts:
    """What Ctrl+N starts from: the run's input (else the file's example_input, else the
    input schema's fields), its context (else example_context, else the context schema's
    fields) and config."""
    value = input_value
    if value is None:
        value = example_of(module, "example_input", _input_schema(graph))
    context = settings.context
    if context is None:
        context = example_of(module, "example_context",
                             _json_schema(getattr(graph, "get_context_jsonschema", lambda: None)))
    return RunTexts(input=_text(value if value is not None else {}),
                    context="" if context is None else _text(context),
                    config=_text(dict(settings.config)), durability=settings.durability or "",
                    context_hint=context_hint(graph))


def read_texts(texts: RunTexts, graph: Any) -> tuple[Any, RunSettings | None, str | None]:
    """(input, settings, None) from the dialog's texts, or (None, None, the first problem)."""
    value, problem = parse_json_input(texts.input)
    if problem:
        return None, None, f"Input: {problem}"
    if not isinstance(value, dict):
        return None, None, "Input must be a JSON object (a dict of state keys), e.g. {\"question\": \"hi\"}."
    context, problem = parse_context(texts.context, graph, "Context")
    if problem:
        return None, None, problem
    if context is None and context_schema_of(graph) is not None:
        _, missing = check_context({}, graph, "Context")
        if missing:
            return None, None, missing
    config, problem = parse_config(texts.config, "Config")
    if problem:
        return None, None, problem
    durability = texts.durability or None
    if durability is not None and durability not in DURABILITIES:
        return None, None, f"Durability {durability!r}: use {', '.join(DURABILITIES)}"
    return value, RunSettings(context=context, config=config, durability=durability), None
