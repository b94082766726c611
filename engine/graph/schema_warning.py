"""The warning for a state schema that is not a schema (an instance, a string, a number)."""
from __future__ import annotations

import typing
import warnings
from typing import Any

__all__ = ["warn_invalid_state_schema"]


def warn_invalid_state_schema(schema: Any) -> None:
    """Warn (UserWarning) when `schema` is neither a class nor a parametrized type such as
    `Annotated[list, reducer]`: a value was passed where its type was meant."""
    if isinstance(schema, type) or typing.get_args(schema):
        return
    warnings.warn(
        f"Invalid state_schema: {schema!r} is a value, not a type. Pass a class (a TypedDict, a "
        "dataclass, a pydantic model) or Annotated[type, reducer], e.g. StateGraph(MyState), not an "
        "instance of it.",
        UserWarning,
        stacklevel=3,
    )
