"""update_state runs the node's routers as a real step would: an async router also under
`aupdate_state` (inside a running event loop), in every checkpointer."""
from __future__ import annotations

import asyncio
import operator
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from engine import END, START, InMemorySaver, SqliteSaver, StateGraph


class S(TypedDict):
    docs: Annotated[list, operator.add]


def _graph(saver: object) -> object:
    async def fetch(s: S) -> dict:
        return {"docs": ["fetch"]}

    async def answer(s: S) -> dict:
        return {"docs": ["answer"]}

    async def decide(s: S) -> str:
        await asyncio.sleep(0)
        return "answer"

    g = StateGraph(S)
    g.add_node("fetch", fetch)
    g.add_node("answer", answer)
    g.add_edge(START, "fetch")
    g.add_conditional_edges("fetch", decide, {"answer": "answer"})
    g.add_edge("answer", END)
    return g.compile(checkpointer=saver)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_aupdate_state_awaits_an_async_router(kind: str, tmp_path: Path) -> None:
    saver = InMemorySaver() if kind == "memory" else SqliteSaver(tmp_path / "c.db")
    app = _graph(saver)
    config = {"configurable": {"thread_id": "t"}}

    async def scenario() -> tuple[tuple[str, ...], list[str], dict]:
        await app.ainvoke({"docs": []}, config)
        await app.aupdate_state(config, {"docs": ["edit"]}, as_node="fetch")
        snap = await app.aget_state(config)
        out = await app.ainvoke(None, config)
        return snap.next, snap.values["docs"], out

    due, docs, out = asyncio.run(scenario())
    assert due == ("answer",)  # the router ran for the update and chose `answer`
    assert docs == ["fetch", "answer", "edit"]
    assert out == {"docs": ["fetch", "answer", "edit", "answer"]}
