"""Older parts of a compiled graph's LangGraph API, kept working with LangGraph's warnings.

`config_schema()` and `get_config_jsonschema()` (deprecated in LangGraph 1.0 for
`get_context_jsonschema()`): a pydantic model of the run config whose `configurable`
is the context schema; `context_schema`, the builder's.
"""
from __future__ import annotations

import warnings
from typing import Any

from ..jsonschema import config_model, schema_title
from ..warnings import deprecated

__all__ = ["LegacyGraphAPI"]


class LegacyGraphAPI:
    """Mixed into CompiledStateGraph (which provides `name` and `builder`)."""

    name: str
    builder: Any

    @property
    def context_schema(self) -> Any:
        return self.builder.context_schema

    def config_schema(self, *, include: Any = None) -> Any:
        """Deprecated (LangGraph 1.0): a pydantic model of the config, `configurable` the context schema."""
        deprecated("`config_schema` is deprecated. Use `get_context_jsonschema` for the relevant schema instead.",
                   "1.0")
        return config_model(schema_title(self.name, "Config"), self.builder.context_schema)

    def get_config_jsonschema(self, *, include: Any = None) -> dict[str, Any]:
        """Deprecated (LangGraph 1.0): the JSON schema of config_schema()."""
        deprecated("`get_config_jsonschema` is deprecated. Use `get_context_jsonschema` instead.", "1.0")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            schema: dict[str, Any] = self.config_schema().model_json_schema()
        return schema
