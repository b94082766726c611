"""The parts of a compiled graph's surface that LangGraph's graphs have as LangChain
Runnables: the JSON schemas of input, output and context, and (with langchain-core)
`graph | runnable`, `runnable | graph`, `map()` and `astream_log()`, which wrap the graph
in `GraphRunnable` (as_runnable.py).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..jsonschema import context_jsonschema, schema_title, state_jsonschema

__all__ = ["RunnableSurface"]


class RunnableSurface:
    """Mixed into CompiledStateGraph (which provides `name` and `builder`)."""

    name: str
    builder: Any

    def get_input_jsonschema(self, config: Any = None) -> dict[str, Any]:
        """The JSON schema of what `invoke` takes (the input schema, else the state's)."""
        schema = self.builder.input_schema
        return state_jsonschema(self.builder.state_schema if schema is None else schema, schema_title(self.name, "Input"))

    def get_output_jsonschema(self, config: Any = None) -> dict[str, Any]:
        """The JSON schema of what `invoke` returns (the output schema, else the state's)."""
        schema = self.builder.output_schema
        return state_jsonschema(self.builder.state_schema if schema is None else schema, schema_title(self.name, "Output"))

    def get_context_jsonschema(self) -> dict[str, Any] | None:
        """The JSON schema of `context_schema`, None without one."""
        return context_jsonschema(self.builder.context_schema)

    def _wrapped(self) -> Any:
        from .as_runnable import as_runnable

        return as_runnable(self)  # type: ignore[arg-type]  # (self is a CompiledStateGraph)

    def __or__(self, other: Any) -> Any:
        """`graph | runnable`: a LangChain chain whose first step is this graph."""
        return self._wrapped() | other

    def __ror__(self, other: Any) -> Any:
        return other | self._wrapped()

    def astream_log(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
        """LangChain's run log of a call (`RunLogPatch`es: each node's streamed and final
        output under `/logs/<node>/`), as LangGraph's compiled graphs give it; needs langchain-core."""
        return self._wrapped().astream_log(input, config, **kwargs)

    def map(self) -> Any:
        """A LangChain Runnable that invokes the graph on each item of a list (as
        LangGraph's compiled graphs, which are Runnables, do); needs langchain-core."""
        return self._wrapped().map()
