"""A node's own input schema: the node sees only that schema's keys.

Given by `add_node(..., input_schema=X)` or by the hint on the node's first parameter
(`def node(state: X)`). Keys of X the graph's state lacks become private channels:
nodes may write and read them, and they never appear in the graph's input or output.
"""
from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from typing import Any, get_type_hints

from .schema import is_root_schema, schema_fields

__all__ = ["NodeInput", "hinted_input_schema", "hinted_schema"]


def _has_fields(tp: Any) -> bool:
    if not isinstance(tp, type) or is_root_schema(tp):
        return False
    if hasattr(tp, "model_fields") or dataclasses.is_dataclass(tp):
        return True
    return hasattr(tp, "__required_keys__")  # a TypedDict


def hinted_schema(fn: Callable[..., Any]) -> Any:
    """The class hinted on `fn`'s first parameter when it is a schema (TypedDict, dataclass,
    Pydantic model), else None (no hint, or a hint such as `dict`)."""
    try:
        first = next(iter(inspect.signature(fn).parameters.values()), None)
    except (TypeError, ValueError):
        return None
    if first is None or first.annotation is inspect.Parameter.empty:
        return None
    hint = first.annotation
    if isinstance(hint, str):
        try:
            hint = get_type_hints(fn).get(first.name)
        except Exception:
            return None
    return hint if _has_fields(hint) else None


def hinted_input_schema(fn: Callable[..., Any], state_schema: Any) -> Any:
    """The class hinted on `fn`'s first parameter when it is a schema other than the state's."""
    hint = hinted_schema(fn)
    return None if hint is state_schema else hint


class NodeInput:
    """Builds a node's input from the state: a dict of the schema's keys, or an instance
    of the schema class (dataclass, Pydantic model)."""

    __slots__ = ("schema", "keys", "_build")

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self.keys = tuple(schema_fields(schema))
        keys = self.keys
        if hasattr(schema, "model_fields") or dataclasses.is_dataclass(schema):
            self._build: Callable[[Mapping[str, Any]], Any] = \
                lambda values: schema(**{k: values[k] for k in keys if k in values})
        else:
            self._build = lambda values: {k: values[k] for k in keys if k in values}

    def __call__(self, values: Mapping[str, Any]) -> Any:
        return self._build(values)
