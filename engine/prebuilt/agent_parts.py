"""The pieces `create_react_agent` is made of: its state schemas, the prompt as a
Runnable, binding the tools to the model, and the chat-history check before each call."""
from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypeAlias

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableBinding, RunnableSequence
from pydantic import BaseModel
from typing_extensions import NotRequired, TypedDict

from ..errors import ErrorCode
from ..managed import RemainingSteps
from ..messages import add_messages
from .runnable import RunnableCallable

__all__ = ["AgentState", "AgentStatePydantic", "AgentStateWithStructuredResponse",
           "AgentStateWithStructuredResponsePydantic", "StructuredResponse", "StructuredResponseSchema",
           "Prompt", "state_value", "builtin_prompt", "prompt_runnable", "should_bind_tools", "underlying_model",
           "validate_chat_history", "PROMPT_RUNNABLE_NAME", "NEED_MORE_STEPS"]

StructuredResponse: TypeAlias = dict[str, Any] | BaseModel
StructuredResponseSchema: TypeAlias = dict[str, Any] | type[BaseModel]
Prompt: TypeAlias = SystemMessage | str | Callable[..., Any] | Runnable[Any, Any]
PROMPT_RUNNABLE_NAME = "Prompt"
NEED_MORE_STEPS = "Sorry, need more steps to process this request."


class AgentState(TypedDict):
    """The agent's state: its conversation and the steps it has left."""

    messages: Annotated[Sequence[BaseMessage], add_messages]
    remaining_steps: NotRequired[RemainingSteps]


class AgentStatePydantic(BaseModel):
    """The agent's state as a Pydantic model."""

    messages: Annotated[Sequence[BaseMessage], add_messages]
    remaining_steps: RemainingSteps = 25


class AgentStateWithStructuredResponse(AgentState):
    """The agent's state with its structured answer."""

    structured_response: StructuredResponse


class AgentStateWithStructuredResponsePydantic(AgentStatePydantic):
    """The agent's state with its structured answer, as a Pydantic model."""

    structured_response: StructuredResponse


def state_value(state: Any, key: str, default: Any = None) -> Any:
    return state.get(key, default) if isinstance(state, dict) else getattr(state, key, default)


def builtin_prompt(prompt: Prompt | None) -> Callable[[Any], Any] | None:
    """state -> the messages, for the prompts the agent writes itself (none, a string, a
    SystemMessage); None for a user's callable or Runnable."""
    if prompt is None:
        return lambda state: state_value(state, "messages")
    if isinstance(prompt, str):
        prompt = SystemMessage(content=prompt)
    if isinstance(prompt, SystemMessage):
        system = prompt
        return lambda state: [system, *state_value(state, "messages")]
    return None


def prompt_runnable(prompt: Prompt | None) -> Runnable[Any, Any]:
    """state -> the messages the model is given, as a Runnable."""
    builtin = builtin_prompt(prompt)
    if builtin is not None:
        return RunnableCallable(builtin, name=PROMPT_RUNNABLE_NAME)
    if isinstance(prompt, Runnable):
        return prompt
    if inspect.iscoroutinefunction(prompt):
        return RunnableCallable(None, prompt, name=PROMPT_RUNNABLE_NAME)
    if callable(prompt):
        return RunnableCallable(prompt, name=PROMPT_RUNNABLE_NAME)
    raise ValueError(f"Got unexpected type for `prompt`: {type(prompt)}")


def _chat_step(model: Any) -> Any:
    if isinstance(model, RunnableSequence):
        return next((s for s in model.steps if isinstance(s, (RunnableBinding, BaseChatModel))), model)
    return model


def should_bind_tools(model: Any, tools: Sequence[Any], builtin: int = 0) -> bool:
    """Whether the tools still need binding (False: the model has them bound already,
    which must then be the same tools)."""
    model = _chat_step(model)
    if not isinstance(model, RunnableBinding) or "tools" not in model.kwargs:
        return True
    bound = model.kwargs["tools"]
    if len(tools) != len(bound) - builtin:
        raise ValueError("Number of tools in the model.bind_tools() and tools passed to create_react_agent must "
                         f"match Got {len(tools)} tools, expected {len(bound) - builtin}")
    names = set()
    for b in bound:
        if b.get("type") == "function":
            names.add(b["function"]["name"])
        elif b.get("name"):
            names.add(b["name"])
    missing = {t.name for t in tools} - names
    if missing:
        raise ValueError(f"Missing tools '{missing}' in the model.bind_tools()")
    return False


def underlying_model(model: Any) -> BaseChatModel:
    """The chat model under a binding or a prompt sequence."""
    model = _chat_step(model)
    if isinstance(model, RunnableBinding):
        model = model.bound
    if not isinstance(model, BaseChatModel):
        raise TypeError("Expected `model` to be a ChatModel or RunnableBinding (e.g. model.bind_tools(...)), "
                        f"got {type(model)}")
    return model


def validate_chat_history(messages: Sequence[BaseMessage]) -> None:
    """Every tool call of the history must have its ToolMessage before the model is called."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    open_calls = [c for m in messages if isinstance(m, AIMessage) for c in m.tool_calls if c["id"] not in answered]
    if not open_calls:
        return
    raise ValueError(
        "Found AIMessages with tool_calls that do not have a corresponding ToolMessage. Here are the first few "
        f"of those tool calls: {open_calls[:3]}.\n\nEvery tool call (LLM requesting to call a tool) in the message "
        "history MUST have a corresponding ToolMessage (result of a tool invocation to return to the LLM) - this "
        "is required by most LLM providers.\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/"
        f"langgraph/errors/{ErrorCode.INVALID_CHAT_HISTORY.value}")
