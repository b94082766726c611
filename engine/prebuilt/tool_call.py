"""One tool call as ToolNode runs it: the request an interceptor (`wrap_tool_call`) sees,
the error it may become, and how a tool's output becomes a ToolMessage's content."""
from __future__ import annotations

import inspect
import json
import types
import typing
import warnings
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Literal, TypedDict

from langchain_core.messages import ToolCall, ToolMessage
from langchain_core.tools.base import TOOL_MESSAGE_BLOCK_TYPES, ToolException
from pydantic import ValidationError

from ..types import Command
from .injection import Injections, ToolRuntime

__all__ = ["ToolCallRequest", "ToolCallWrapper", "AsyncToolCallWrapper", "ToolCallWithContext",
           "ToolInvocationError", "msg_content_output", "TOOL_CALL_ERROR_TEMPLATE",
           "INVALID_TOOL_NAME_ERROR_TEMPLATE", "TOOL_INVOCATION_ERROR_TEMPLATE", "TOOL_CALL_WITH_CONTEXT",
           "default_handle_tool_errors", "error_content", "handled_types", "visible_errors"]

TOOL_CALL_ERROR_TEMPLATE = "Error: {error}\n Please fix your mistakes."
INVALID_TOOL_NAME_ERROR_TEMPLATE = "Error: {requested_tool} is not a valid tool, try one of [{available_tools}]."
TOOL_INVOCATION_ERROR_TEMPLATE = ("Error invoking tool '{tool_name}' with kwargs {tool_kwargs} with error:\n"
                                  " {error}\n Please fix the error and try again.")
TOOL_CALL_WITH_CONTEXT = "tool_call_with_context"
"""The `__type` of a Send payload holding one tool call and the state to run it with."""


@dataclass
class ToolCallRequest:
    """What a tool call interceptor is given: the call, its tool (None when the model named
    a tool the node lacks), the state and the ToolRuntime. `override()` makes a changed copy."""

    tool_call: ToolCall
    tool: Any
    state: Any
    runtime: ToolRuntime[Any, Any]

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__dict__:
            warnings.warn(f"Setting attribute '{name}' on ToolCallRequest is deprecated. Use the override() "
                          "method instead to create a new instance with modified values.",
                          DeprecationWarning, stacklevel=2)
        object.__setattr__(self, name, value)

    def override(self, **changes: Any) -> ToolCallRequest:
        """A copy with `tool_call`, `tool` or `state` replaced (a new state reaches the
        runtime too, so InjectedState and ToolRuntime see the same)."""
        out = replace(self, **changes)
        if "state" in changes and isinstance(out.runtime, ToolRuntime):
            out = replace(out, runtime=replace(out.runtime, state=out.state))
        return out


ToolCallWrapper = Callable[[ToolCallRequest, Callable[[ToolCallRequest], "ToolMessage | Command[Any]"]],
                           "ToolMessage | Command[Any]"]
"""`wrap_tool_call(request, execute)`: may change the request, call `execute` any number
of times (retries) or not at all (a cached answer), and returns the call's result."""

AsyncToolCallWrapper = Callable[[ToolCallRequest, Callable[[ToolCallRequest], Awaitable["ToolMessage | Command[Any]"]]],
                                Awaitable["ToolMessage | Command[Any]"]]
"""The async form of ToolCallWrapper (`awrap_tool_call`)."""


class ToolCallWithContext(TypedDict):
    """A Send payload for ToolNode: one tool call and the state it runs with."""

    __type: Literal["tool_call_with_context"]
    tool_call: ToolCall
    state: Any


class ToolInvocationError(ToolException):  # type: ignore[misc]  # langchain-core (an optional extra) is checked as Any
    """The model called a tool with arguments its schema refuses."""

    def __init__(self, tool_name: str, source: ValidationError, tool_kwargs: dict[str, Any],
                 filtered_errors: list[Any] | None = None) -> None:
        if filtered_errors is not None:
            shown = "\n".join(f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', 'Unknown error')}"
                              for e in filtered_errors)
        else:
            shown = str(source)
        self.message = TOOL_INVOCATION_ERROR_TEMPLATE.format(tool_name=tool_name, tool_kwargs=tool_kwargs, error=shown)
        self.tool_name, self.tool_kwargs, self.source, self.filtered_errors = tool_name, tool_kwargs, source, filtered_errors
        super().__init__(self.message)


def visible_errors(error: ValidationError, inj: Injections | None) -> list[Any]:
    """The validation errors about arguments the model sets (injected ones are left out,
    and so are their values in each error's input)."""
    hidden = set(inj.state) | {a for a in (inj.store, inj.runtime) if a} if inj else set()
    out: list[Any] = []
    for err in error.errors():
        if not err["loc"] or err["loc"][0] in hidden:
            continue
        copy: dict[str, Any] = dict(err)
        if isinstance(copy.get("input"), dict):
            copy["input"] = {k: v for k, v in copy["input"].items() if k not in hidden}
        out.append(copy)
    return out


def msg_content_output(output: Any) -> Any:
    """A tool's output as ToolMessage content: text and content blocks as they are,
    anything else as JSON (or its str when not JSON-able)."""
    if isinstance(output, str):
        return output
    if isinstance(output, list) and all(isinstance(b, dict) and b.get("type") in TOOL_MESSAGE_BLOCK_TYPES
                                        for b in output):
        return output
    try:
        return json.dumps(output, ensure_ascii=False)
    except Exception:  # noqa: BLE001 - not JSON: its text
        return str(output)


def default_handle_tool_errors(exc: Exception) -> str:
    """The default `handle_tool_errors`: bad arguments go back to the model, others raise."""
    if isinstance(exc, ToolInvocationError):
        return exc.message
    raise exc


def error_content(exc: Exception, flag: Any) -> str:
    """The ToolMessage content for an error `flag` handles."""
    if isinstance(flag, (bool, tuple)) or (isinstance(flag, type) and issubclass(flag, Exception)):
        return TOOL_CALL_ERROR_TEMPLATE.format(error=repr(exc))
    if isinstance(flag, str):
        return flag
    if callable(flag):
        return str(flag(exc))
    raise ValueError(f"Got unexpected type of `handle_tool_error`. Expected bool, str or callable. Received: {flag}")


def _declared(fn: Callable[..., Any]) -> tuple[type[Exception], ...]:
    """The exception types a handler function declares on its first parameter (all if none)."""
    params = list(inspect.signature(fn).parameters.values())
    if not params:
        return (Exception,)
    first = params[1] if params[0].name in ("self", "cls") and len(params) == 2 else params[0]
    hints = typing.get_type_hints(fn)
    if first.name not in hints:
        return (Exception,)
    hint = hints[first.name]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        found = typing.get_args(hint)
        if all(isinstance(t, type) and issubclass(t, Exception) for t in found):
            return tuple(found)
        raise ValueError("All types in the error handler error annotation must be Exception types. For example, "
                         f"`def custom_handler(e: Union[ValueError, TypeError])`. Got '{first.annotation}' instead.")
    if isinstance(hint, type) and issubclass(hint, Exception):
        return (hint,)
    raise ValueError("Arbitrary types are not supported in the error handler signature. Please annotate the error "
                     "with either a specific Exception type or a union of Exception types. For example, "
                     "`def custom_handler(e: ValueError)` or `def custom_handler(e: Union[ValueError, TypeError])`. "
                     f"Got '{hint}' instead.")


def handled_types(flag: Any) -> tuple[type[Exception], ...]:
    """The exceptions `handle_tool_errors=flag` turns into ToolMessages."""
    if isinstance(flag, type) and issubclass(flag, Exception):
        return (flag,)
    if isinstance(flag, tuple):
        return flag
    if callable(flag) and not isinstance(flag, type):
        return _declared(flag)
    return (Exception,)
