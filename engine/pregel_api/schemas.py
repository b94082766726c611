"""The input and output schemas of a `Pregel` graph, read from its channels.

One input (or output) channel: the schema is that channel's type itself (a root model,
`{"title": "LangGraphInput", "type": "integer"}`); a list of channels: an object with one
optional field per channel (default None). The input reads what a channel accepts as a
write (`UpdateType`), the output what it holds (`ValueType`). Built with pydantic, only
when asked for.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..jsonschema import schema_title

__all__ = ["channels_model"]


def _type_of(channel: Any, attr: str) -> Any:
    tp = getattr(channel, attr, None)
    return Any if tp is None else tp


def channels_model(graph_name: str, suffix: str, names: str | Sequence[str],
                   channels: Mapping[str, Any], attr: str) -> Any:
    """A pydantic model of the graph's `names` channels (their `attr` type: UpdateType or
    ValueType), titled as LangChain titles a runnable's schemas."""
    try:
        import pydantic
    except ImportError:
        raise ImportError("Pregel schemas need pydantic: pip install pydantic") from None
    title = schema_title(graph_name, suffix)
    if isinstance(names, str):
        tp = _type_of(channels.get(names), attr)
        return type(title, (pydantic.RootModel[tp],), {"__module__": __name__})  # type: ignore[valid-type]
    fields: dict[str, Any] = {n: (_type_of(channels.get(n), attr), None) for n in names}
    return pydantic.create_model(title, **fields)
