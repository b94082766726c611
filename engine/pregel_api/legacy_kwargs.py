"""Keyword arguments of `Pregel(...)` kept from LangGraph 0.x, with LangGraph's warnings.

`Pregel.__init__` is to call `context_schema_from_legacy(context_schema, kwargs)` first thing (wiring left to
the owner of pregel_api/graph.py): `config_type=` is the old name of `context_schema=` (LangGraphDeprecatedSinceV10)."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..warnings import renamed

__all__ = ["context_schema_from_legacy"]


def context_schema_from_legacy(context_schema: Any, kwargs: Mapping[str, Any]) -> Any:
    """The context schema a `Pregel(...)` call asks for: `context_schema`, else the
    deprecated `config_type` (which warns, naming its replacement, at the caller's line)."""
    config_type = kwargs.get("config_type")
    if config_type is None:
        return context_schema
    renamed("config_type", "context_schema", since="1.0", stacklevel=3)
    return context_schema if context_schema is not None else config_type
