"""`ValidationNode`: checks the tool calls of the last AI message against their schemas
without running anything; each call gives a ToolMessage with the validated arguments as
JSON, or the error (marked `additional_kwargs["is_error"]`) for the model to fix.
Deprecated in LangGraph (use create_agent's tool error handling) but still served."""
from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, cast

from langchain_core.messages import AIMessage, ToolCall, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import get_executor_for_config
from langchain_core.tools import BaseTool, create_schema_from_function
from pydantic import BaseModel, ValidationError
from pydantic.v1 import BaseModel as BaseModelV1
from pydantic.v1 import ValidationError as ValidationErrorV1

from .runnable import RunnableCallable

__all__ = ["ValidationNode"]


def _default_format_error(error: BaseException, call: ToolCall, schema: Any) -> str:
    return f"{error!r}\n\nRespond after fixing all validation errors."


def _schema_of(obj: Any) -> tuple[str, Any]:
    if isinstance(obj, BaseTool):
        schema = obj.args_schema
        if schema is None:
            raise ValueError(f"Tool {obj.name} does not have an args_schema defined.")
        if not isinstance(schema, type) or not issubclass(schema, (BaseModel, BaseModelV1)):
            raise ValueError("Validation node only works with tools that have a pydantic BaseModel args_schema. "
                             f"Got {obj.name} with args_schema: {schema}.")
        return obj.name, schema
    if isinstance(obj, type) and issubclass(obj, (BaseModel, BaseModelV1)):
        return obj.__name__, obj
    if callable(obj):
        return obj.__name__, create_schema_from_function("Validation", obj)
    raise ValueError(f"Unsupported input to ValidationNode. Expected BaseModel, tool or function. Got: {type(obj)}.")


class ValidationNode(RunnableCallable):
    """A node that validates (never runs) the tool calls of the last AIMessage."""

    def __init__(self, schemas: Sequence[BaseTool | type[BaseModel] | Callable[..., Any]], *,
                 format_error: Callable[[BaseException, ToolCall, Any], str] | None = None,
                 name: str = "validation", tags: list[str] | None = None) -> None:
        warnings.warn("ValidationNode is deprecated. Please use `create_agent` from `langchain.agents` with custom "
                      "tool error handling.", DeprecationWarning, stacklevel=2)
        super().__init__(self._func, None, name=name, tags=tags)
        self._format_error = format_error or _default_format_error
        self.schemas_by_name: dict[str, Any] = dict(_schema_of(s) for s in schemas)

    def _message(self, input: Any) -> tuple[str, AIMessage]:
        if isinstance(input, list):
            kind, messages = "list", input
        elif isinstance(input, dict) and input.get("messages"):
            kind, messages = "dict", input["messages"]
        else:
            raise ValueError("No message found in input")
        message = messages[-1]
        if not isinstance(message, AIMessage):
            raise ValueError("Last message is not an AIMessage")
        return kind, message

    def _check(self, call: ToolCall) -> ToolMessage:
        schema = self.schemas_by_name[call["name"]]
        try:
            if issubclass(schema, BaseModel):
                content = schema.model_validate(call["args"]).model_dump_json()
            else:
                content = schema.validate(call["args"]).json()
            return ToolMessage(content=content, name=call["name"], tool_call_id=cast(str, call["id"]))
        except (ValidationError, ValidationErrorV1) as exc:
            return ToolMessage(content=self._format_error(exc, call, schema), name=call["name"],
                               tool_call_id=cast(str, call["id"]), additional_kwargs={"is_error": True})

    def _func(self, input: Any, config: RunnableConfig) -> Any:
        kind, message = self._message(input)
        with get_executor_for_config(config) as pool:
            outputs = list(pool.map(self._check, message.tool_calls))
        return outputs if kind == "list" else {"messages": outputs}
