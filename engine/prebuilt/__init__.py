"""Prebuilt agent parts, as LangGraph's `langgraph.prebuilt`, written on the engine's API:
`ToolNode`, `tools_condition`, `create_react_agent`, and the tool-argument injections.
Needs langchain-core (`pip install 'retrograph[langchain]'`): tools and chat models are its.
"""
from __future__ import annotations

try:
    import langchain_core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a child process by the tests
    raise ImportError(
        "engine.prebuilt needs langchain-core (its tools and chat models): pip install 'retrograph[langchain]'"
    ) from exc

from .injection import InjectedState, InjectedStore, InjectedToolCallId
from .react_agent import AgentState, create_react_agent
from .tool_node import ToolInvocationError, ToolNode, tools_condition

__all__ = ["ToolNode", "tools_condition", "create_react_agent", "AgentState", "InjectedState",
           "InjectedStore", "InjectedToolCallId", "ToolInvocationError"]
