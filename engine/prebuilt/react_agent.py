"""`create_react_agent`: a chat model that calls tools in a loop until it answers.

The graph is LangGraph's: `agent` (the model) and `tools` (a ToolNode); after `agent`,
each tool call goes to `tools` as its own task (version "v2", a Send per call) or all at
once ("v1"); `tools` goes back to `agent` unless every tool called returns directly.
The model is told when the run is about to run out of steps (`remaining_steps`, once
the engine provides that managed value) instead of calling tools it cannot finish.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableBinding

from ..constants import END, START
from ..graph import StateGraph
from ..managed import RemainingSteps
from ..messages import add_messages
from ..types import Send
from .tool_node import TOOL_CALL_WITH_CONTEXT, ToolNode

__all__ = ["AgentState", "create_react_agent", "NEED_MORE_STEPS"]

NEED_MORE_STEPS = "Sorry, need more steps to process this request."




class AgentState(TypedDict, total=False):
    """The agent's state: its conversation (and the steps it has left, when known)."""

    messages: Annotated[Sequence[BaseMessage], add_messages]
    remaining_steps: RemainingSteps


class _StructuredState(AgentState, total=False):
    structured_response: Any


def _prompt_runner(prompt: Any) -> Callable[[Any, dict[str, Any]], Any]:
    """state -> the messages the model is given."""
    if prompt is None:
        return lambda state, config: _messages(state)
    if isinstance(prompt, str):
        system = SystemMessage(content=prompt)
        return lambda state, config: [system, *_messages(state)]
    if isinstance(prompt, SystemMessage):
        return lambda state, config: [prompt, *_messages(state)]
    if isinstance(prompt, Runnable):
        return lambda state, config: prompt.invoke(state, config)
    if callable(prompt):
        return lambda state, config: prompt(state)
    raise TypeError(f"create_react_agent: prompt must be a str, a SystemMessage, a callable or a Runnable, "
                    f"not {type(prompt).__name__}")


def _messages(state: Any) -> list[Any]:
    return list(state["messages"] if isinstance(state, dict) else state.messages)


def _get(state: Any, key: str, default: Any = None) -> Any:
    return state.get(key, default) if isinstance(state, dict) else getattr(state, key, default)


def _bound(model: Any, tools: list[Any]) -> Any:
    """The model with the tools bound, unless they already are (or there are none)."""
    if not tools or not isinstance(model, BaseChatModel):
        return model
    if isinstance(model, RunnableBinding) and "tools" in model.kwargs:
        return model
    try:
        return model.bind_tools(tools)
    except NotImplementedError:  # a scripted model that picks its tool calls itself
        return model


def create_react_agent(
    model: Any,
    tools: Sequence[Any] | ToolNode,
    *,
    prompt: Any = None,
    response_format: Any = None,
    state_schema: Any = None,
    context_schema: Any = None,
    checkpointer: Any = None,
    store: Any = None,
    interrupt_before: list[str] | None = None,
    interrupt_after: list[str] | None = None,
    debug: bool = False,
    version: Literal["v1", "v2"] = "v2",
    name: str | None = None,
    **kwargs: Any,
) -> Any:
    """A compiled agent graph: `agent` calls the model, `tools` runs its tool calls."""
    unsupported = sorted(k for k, v in kwargs.items() if v is not None)
    if unsupported:
        raise TypeError(f"create_react_agent() got unexpected or not yet supported keyword argument(s): "
                        f"{', '.join(unsupported)} (not supported yet by Retrograph)")
    if version not in ("v1", "v2"):
        raise ValueError(f"create_react_agent: version must be 'v1' or 'v2', not {version!r}")
    if isinstance(model, str):
        raise TypeError("create_react_agent: a model given by name needs langchain's init_chat_model, "
                        "which Retrograph does not call; pass a chat model object")
    tool_node = tools if isinstance(tools, ToolNode) else ToolNode(list(tools))
    tool_list = list(tool_node.tools_by_name.values())
    return_direct = {t.name for t in tool_list if getattr(t, "return_direct", False)}
    llm = _bound(model, tool_list)
    build_input = _prompt_runner(prompt)

    def needs_more_steps(state: Any, response: Any) -> bool:
        calls = getattr(response, "tool_calls", None) or []
        remaining = _get(state, "remaining_steps")
        if remaining is None:
            return bool(_get(state, "is_last_step", False)) and bool(calls)
        all_direct = bool(calls) and all(c["name"] in return_direct for c in calls)
        return (remaining < 1 and all_direct) or (remaining < 2 and bool(calls))

    def agent(state: Any, config: dict[str, Any]) -> dict[str, Any]:
        response = llm.invoke(build_input(state, config), config)
        if name and isinstance(response, AIMessage):
            response.name = name
        if needs_more_steps(state, response):
            response = AIMessage(id=response.id, content=NEED_MORE_STEPS)
        return {"messages": [response]}

    schema = state_schema or (_StructuredState if response_format is not None else AgentState)
    builder = StateGraph(schema, context_schema=context_schema) if context_schema else StateGraph(schema)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    after_model = "generate_structured_response" if response_format is not None else END
    if response_format is not None:
        builder.add_node("generate_structured_response", _structured(model, response_format))
        builder.add_edge("generate_structured_response", END)
    if not tool_list:
        builder.add_edge("agent", after_model)
        return _compile(builder, checkpointer, store, interrupt_before, interrupt_after, debug, name)

    def should_continue(state: Any) -> Any:
        last = _messages(state)[-1]
        calls = getattr(last, "tool_calls", None) if isinstance(last, AIMessage) else None
        if not calls:
            return after_model
        if version == "v1":
            return "tools"
        return [Send("tools", {"__type": TOOL_CALL_WITH_CONTEXT, "tool_call": call, "state": state})
                for call in calls]

    builder.add_node("tools", tool_node)
    builder.add_conditional_edges("agent", should_continue, ["tools", after_model])
    if return_direct:
        def after_tools(state: Any) -> str:
            for m in reversed(_messages(state)):
                if not isinstance(m, ToolMessage):
                    break
                if m.name in return_direct:
                    return END
            return "agent"

        builder.add_conditional_edges("tools", after_tools, ["agent", END])
    else:
        builder.add_edge("tools", "agent")
    return _compile(builder, checkpointer, store, interrupt_before, interrupt_after, debug, name)


def _structured(model: Any, response_format: Any) -> Callable[[Any, dict[str, Any]], dict[str, Any]]:
    system, schema = response_format if isinstance(response_format, tuple) else (None, response_format)

    def generate_structured_response(state: Any, config: dict[str, Any]) -> dict[str, Any]:
        messages = _messages(state)
        if system is not None:
            messages = [SystemMessage(content=system), *messages]
        structured = model.with_structured_output(schema)
        return {"structured_response": structured.invoke(messages, config)}

    return generate_structured_response


def _compile(builder: StateGraph, checkpointer: Any, store: Any, before: Any, after: Any, debug: bool,
             name: str | None) -> Any:
    options: dict[str, Any] = {"checkpointer": checkpointer, "interrupt_before": before,
                               "interrupt_after": after, "debug": debug, "name": name or "LangGraph"}
    if store is not None:
        options["store"] = store
    return builder.compile(**options)
