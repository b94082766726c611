"""The updates stream of an entrypoint: a task returning a dict shows that dict."""
from __future__ import annotations

from engine import InMemorySaver
from engine.func import entrypoint, task


def test_task_returning_a_dict_is_streamed_as_that_dict():
    @task
    def first(x: str) -> tuple:
        return x + "1", "b"

    @task
    def second(a: str, b: str) -> dict:
        return {"a": a + b, "c": "bark"}

    @entrypoint(checkpointer=InMemorySaver())
    def flow(x: str) -> dict:
        return second(*first(x).result()).result()

    chunks = list(flow.stream("0", {"configurable": {"thread_id": "t"}}))
    assert chunks == [{"first": ("01", "b")}, {"second": {"a": "01b", "c": "bark"}},
                      {"flow": {"a": "01b", "c": "bark"}}]
