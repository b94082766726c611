"""An async run (ainvoke, astream, astream_events) of a saver subclass that overrides
`aget_tuple` reads its thread through the override, as LangGraph does: what it raises ends
the run, what it answers is where the run continues from. Sync runs and the engine's own
savers are unaffected. With an `aput` override, a run's writes are saved after their
checkpoint's aput, so the aput's error is the one the run raises."""
from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

import pytest

from engine import START, InMemorySaver, StateGraph
from engine.checkpoint.routing import overridden


class FaultyGet(InMemorySaver):
    async def aget_tuple(self, config: Any) -> Any:
        raise ValueError("Faulty get_tuple")


class Recording(InMemorySaver):
    def __init__(self) -> None:
        super().__init__()
        self.asked: list[dict[str, Any]] = []

    async def aget_tuple(self, config: Any) -> Any:
        self.asked.append(config["configurable"])
        return await super().aget_tuple(config)


class Forgetful(InMemorySaver):
    async def aget_tuple(self, config: Any) -> Any:
        return None  # says the thread is empty: the run starts afresh


def _graph(saver: Any) -> Any:
    builder = StateGraph(Annotated[str, operator.add])
    builder.add_node("agent", lambda state: "a")
    builder.add_edge(START, "agent")
    return builder.compile(checkpointer=saver)


def test_its_error_ends_every_async_run() -> None:
    graph = _graph(FaultyGet())

    async def run() -> None:
        with pytest.raises(ValueError, match="Faulty get_tuple"):
            await graph.ainvoke("", {"configurable": {"thread_id": "1"}})
        with pytest.raises(ValueError, match="Faulty get_tuple"):
            async for _ in graph.astream("", {"configurable": {"thread_id": "2"}}):
                pass
        with pytest.raises(ValueError, match="Faulty get_tuple"):
            async for _ in graph.astream_events("", {"configurable": {"thread_id": "3"}}, version="v2"):
                pass

    asyncio.run(run())
    assert graph.invoke("x", {"configurable": {"thread_id": "1"}}) == "xa"  # sync runs use get_tuple


def test_each_async_run_asks_it_once_and_continues_the_thread() -> None:
    saver = Recording()
    graph = _graph(saver)
    cfg = {"configurable": {"thread_id": "t"}}

    async def run() -> tuple[Any, Any]:
        return await graph.ainvoke("x", cfg), await graph.ainvoke("y", cfg)

    assert asyncio.run(run()) == ("xa", "xaya")
    assert [c["thread_id"] for c in saver.asked] == ["t", "t"]


def test_its_answer_is_what_the_run_continues_from() -> None:
    saver = Forgetful()
    graph = _graph(saver)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke("x", cfg)
    assert asyncio.run(graph.ainvoke("y", cfg)) == "ya"


def test_only_a_definition_outside_the_engine_counts() -> None:
    from engine.checkpoint.postgres_aio import AsyncPostgresSaver
    from engine.checkpoint.sqlite_aio import AsyncSqliteSaver

    assert "aget_tuple" not in overridden(InMemorySaver)
    assert "aget_tuple" not in overridden(AsyncPostgresSaver)
    assert "aget_tuple" not in overridden(AsyncSqliteSaver)
    assert "aget_tuple" in overridden(Recording)


class FaultyPut(InMemorySaver):
    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        raise ValueError("Faulty put")


class SlowPut(InMemorySaver):
    async def aput(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        await asyncio.sleep(0)
        return await super().aput(config, checkpoint, metadata, new_versions)


def test_an_aput_override_error_is_what_the_run_raises() -> None:
    graph = _graph(FaultyPut())

    async def run() -> None:
        with pytest.raises(ValueError, match="Faulty put"):
            await graph.ainvoke("", {"configurable": {"thread_id": "1"}})
        with pytest.raises(ValueError, match="Faulty put"):
            async for _ in graph.astream("", {"configurable": {"thread_id": "2"}}, durability="async"):
                pass

    asyncio.run(run())


def test_writes_are_saved_after_their_checkpoints_aput() -> None:
    saver = SlowPut()
    graph = _graph(saver)
    cfg = {"configurable": {"thread_id": "t"}}

    async def run() -> tuple[Any, Any]:
        return await graph.ainvoke("x", cfg), await graph.ainvoke("y", cfg)

    assert asyncio.run(run()) == ("xa", "xaya")
    assert [s.metadata["step"] for s in graph.get_state_history(cfg)] == [4, 3, 2, 1, 0, -1]
