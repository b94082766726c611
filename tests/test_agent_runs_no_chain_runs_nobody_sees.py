"""An agent whose callbacks reach no handler (no callbacks given, no debug, no LangSmith
tracing, no `collect_runs()`) calls its model on the prompt's messages without making the
chain runs of its `agent` node and of its `prompt | model` sequence: langchain-core
configures a callback manager only for the model and the tool themselves. As soon as anyone
listens (a handler, a run collector, tracing), the same chain runs as before are made, with
the same names and parents, and the answers are the same either way."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langchain_core")

import langsmith  # noqa: E402
from langchain_core.callbacks import BaseCallbackHandler, CallbackManager  # noqa: E402
from langchain_core.callbacks import manager as lc_manager  # noqa: E402
from langchain_core.globals import set_debug  # noqa: E402
from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402
from langchain_core.runnables.config import var_child_runnable_config  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langchain_core.tracers.context import collect_runs  # noqa: E402

from engine.prebuilt import create_react_agent  # noqa: E402
from engine.prebuilt.quiet import silent  # noqa: E402

ROUNDS = 3


class _Chat(BaseChatModel):
    """Calls `add` until ROUNDS tool results are in, then answers."""

    @property
    def _llm_type(self) -> str:
        return "test-chat"

    def bind_tools(self, tools: Any, **kwargs: Any) -> _Chat:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        done = sum(isinstance(m, ToolMessage) for m in messages)
        if done < ROUNDS:
            reply = AIMessage("", tool_calls=[{"name": "add", "args": {"a": done, "b": 1}, "id": f"c{done}"}])
        else:
            reply = AIMessage(f"{len(messages)} messages seen, first {messages[0].type}")
        return ChatResult(generations=[ChatGeneration(message=reply)])


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class _Runs(BaseCallbackHandler):
    """(kind, name, parent's name) of every chain and chat-model run started."""

    def __init__(self) -> None:
        self.names: dict[Any, str] = {}
        self.seen: list[tuple[str, str, str | None]] = []

    def _start(self, kind: str, name: str, run_id: Any, parent_run_id: Any) -> None:
        self.names[run_id] = name
        self.seen.append((kind, name, self.names.get(parent_run_id)))

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: Any, parent_run_id: Any = None,
                       **kwargs: Any) -> None:
        self._start("chain", kwargs.get("name") or "?", run_id, parent_run_id)

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: Any, parent_run_id: Any = None,
                            **kwargs: Any) -> None:
        self._start("chat", "model", run_id, parent_run_id)


@pytest.fixture
def configures(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts langchain-core's callback managers made (sync and async)."""
    count = [0]
    for cls in (lc_manager.CallbackManager, lc_manager.AsyncCallbackManager):
        original = cls.configure.__func__  # type: ignore[attr-defined]

        def counted(klass: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            count[0] += 1
            return _original(klass, *args, **kwargs)

        monkeypatch.setattr(cls, "configure", classmethod(counted))
    return count


def _answer(out: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m.type, str(m.content)) for m in out["messages"]]


@pytest.mark.parametrize("prompt", [None, "be brief"])
def test_no_handler_no_chain_runs(configures: list[int], prompt: Any) -> None:
    agent = create_react_agent(_Chat(), [add], prompt=prompt)
    out = agent.invoke({"messages": [("user", "go")]})
    assert out["messages"][-1].content == f"{2 * ROUNDS + 1 + (prompt is not None)} messages seen, first " \
                                          f"{'system' if prompt else 'human'}"
    # one manager per model call and one per tool call: none for the node, the sequence or the prompt
    assert configures[0] == (ROUNDS + 1) + ROUNDS


def test_no_handler_no_chain_runs_async(configures: list[int]) -> None:
    agent = create_react_agent(_Chat(), [add])
    out = asyncio.run(agent.ainvoke({"messages": [("user", "go")]}))
    assert out["messages"][-1].content.startswith(f"{2 * ROUNDS + 1} messages seen")
    assert configures[0] == (ROUNDS + 1) + ROUNDS


_AGENT_STEP = [("chain", "agent", "LangGraph"), ("chain", "RunnableSequence", "agent"),
               ("chain", "Prompt", "RunnableSequence"), ("chat", "model", "RunnableSequence")]


@pytest.mark.parametrize("use_async", [False, True])
def test_a_handler_sees_every_run_as_before(use_async: bool) -> None:
    quiet = create_react_agent(_Chat(), [add]).invoke({"messages": [("user", "go")]})
    runs = _Runs()
    agent = create_react_agent(_Chat(), [add])
    given = {"messages": [("user", "go")]}
    config: Any = {"callbacks": [runs]}
    heard = asyncio.run(agent.ainvoke(given, config)) if use_async else agent.invoke(given, config)
    assert _answer(heard) == _answer(quiet)
    model_steps = [r for r in runs.seen if r[0] == "chat" or r[1] in ("agent", "RunnableSequence", "Prompt")]
    assert model_steps == _AGENT_STEP * (ROUNDS + 1)


def test_a_run_collector_collects_the_chain_runs() -> None:
    agent = create_react_agent(_Chat(), [add])
    with collect_runs() as collector:
        agent.invoke({"messages": [("user", "go")]})
    names: list[str] = []
    runs = list(collector.traced_runs)
    while runs:
        run = runs.pop()
        names.append(run.name)
        runs.extend(run.child_runs)
    assert names.count("RunnableSequence") == ROUNDS + 1
    assert names.count("Prompt") == ROUNDS + 1


def test_silent_reads_every_way_of_listening(monkeypatch: pytest.MonkeyPatch) -> None:
    handler = _Runs()
    assert silent(None) and silent({"callbacks": None}) and silent({"callbacks": []})
    assert silent({"callbacks": CallbackManager([])})
    assert not silent({"callbacks": [handler]})
    assert not silent({"callbacks": CallbackManager([handler])})
    assert not silent({"callbacks": CallbackManager([], inheritable_handlers=[handler])})
    token = var_child_runnable_config.set({"callbacks": CallbackManager([handler])})
    try:
        assert not silent({"callbacks": None})  # the ambient config's handlers count
    finally:
        var_child_runnable_config.reset(token)
    with collect_runs():
        assert not silent(None)
    with langsmith.tracing_context(enabled=True):
        assert not silent(None)
    set_debug(True)
    try:
        assert not silent(None)
    finally:
        set_debug(False)
    monkeypatch.setenv("LANGCHAIN_TRACING", "true")  # langchain-core's own error for it is kept
    assert not silent(None)
