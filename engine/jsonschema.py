"""JSON schemas of a graph's input, output and context, as LangGraph's `get_*_jsonschema` give them.

Built with pydantic (imported only when a schema is asked for): a pydantic model gives its
own schema, a TypedDict pydantic's reading of it, and any other state class (dataclass,
plain annotated class, root state) a model made from its fields, each field typed with
what a node may write to it (the reducer's value type for a reducer key) and optional
when it has a default, is `NotRequired`, or admits None.
"""
from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, get_args, get_origin

from typing_extensions import NotRequired, Required, is_typeddict

__all__ = ["type_jsonschema", "state_jsonschema", "context_jsonschema", "config_model", "schema_title"]


def schema_title(graph_name: str, suffix: str) -> str:
    """A built model's title, as LangChain names a runnable's schemas: `LangGraphInput`,
    `my_graph_input` (a lower-case name gets `_suffix`)."""
    if graph_name[:1].isupper():
        return graph_name + suffix.title()
    return f"{graph_name}_{suffix.lower()}"


def _pydantic() -> Any:
    try:
        import pydantic
    except ImportError:
        raise ImportError("JSON schemas need pydantic: pip install pydantic") from None
    return pydantic


def type_jsonschema(tp: Any, title: str | None = None) -> dict[str, Any]:
    """pydantic's JSON schema of any type hint, its title replaced by `title` when given."""
    schema = _pydantic().TypeAdapter(tp).json_schema()
    return {**schema, "title": title} if title else schema


def _model_schema(model: Any) -> dict[str, Any]:
    schema: dict[str, Any] = model.model_json_schema()
    return schema


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and hasattr(tp, "model_json_schema") and hasattr(tp, "model_fields")


def context_jsonschema(schema: Any) -> dict[str, Any] | None:
    """The schema of `context_schema` (None when the graph has none)."""
    if schema is None:
        return None
    if _is_model(schema):
        return _model_schema(schema)
    if is_typeddict(schema) or dataclasses.is_dataclass(schema):
        return type_jsonschema(schema)
    raise ValueError(f"context_schema {schema!r} cannot be described: use a pydantic model, TypedDict or dataclass")


def config_model(title: str, schema: Any) -> Any:
    """The deprecated `config_schema()`: a pydantic model of the run config, whose
    `configurable` is the context schema (no fields without one)."""
    fields: dict[str, Any] = {} if schema is None else {"configurable": (schema, None)}
    return _pydantic().create_model(title, **fields)


def _write_type(annotation: Any) -> Any:
    """What a node writes to a key: `T` for `Annotated[T, reducer]`, else the annotation."""
    if get_origin(annotation) is typing.Annotated:
        base, *extras = get_args(annotation)
        if any(callable(x) and not isinstance(x, type) for x in extras):
            return base
    return annotation


def _required_mark(tp: Any) -> bool | None:
    """True for `Required[...]`, False for `NotRequired[...]` (also inside Annotated), else None."""
    while True:
        origin = get_origin(tp)
        if origin is Required:
            return True
        if origin is NotRequired:
            return False
        if origin is not typing.Annotated:
            return None
        tp = get_args(tp)[0]


def _admits_none(tp: Any) -> bool:
    while get_origin(tp) in (typing.Annotated, Required, NotRequired):
        tp = get_args(tp)[0]
    if tp is None or tp is type(None):
        return True
    return get_origin(tp) in (typing.Union, types.UnionType) and any(a is type(None) for a in get_args(tp))


def _default(key: str, tp: Any, schema: Any) -> Any:
    """A field's default in the schema model: `...` (required) or its value."""
    mark = _required_mark(tp)
    if mark is not None:
        return ... if mark else None
    if dataclasses.is_dataclass(schema):
        for f in dataclasses.fields(schema):
            if f.name == key:
                if f.default is not dataclasses.MISSING and f.default is not ...:
                    return f.default
                if f.default_factory is not dataclasses.MISSING:
                    return f.default_factory()
    return None if _admits_none(tp) else ...


def state_jsonschema(schema: Any, title: str) -> dict[str, Any]:
    """The JSON schema of a graph's input or output `schema`; `title` names a built model."""
    from .schema import ROOT, schema_fields

    pydantic = _pydantic()
    if _is_model(schema):
        return _model_schema(schema)
    if is_typeddict(schema):
        return type_jsonschema(schema)
    fields = schema_fields(schema)
    if list(fields) == [ROOT]:
        tp = _write_type(fields[ROOT])
        return _model_schema(pydantic.create_model(title, __base__=pydantic.RootModel[tp], root=(tp, None)))
    from .managed import managed_of

    definitions = {k: (_write_type(tp), _default(k, _write_type(tp), schema))
                   for k, tp in fields.items() if managed_of(tp) is None}
    return _model_schema(pydantic.create_model(title, **definitions))
