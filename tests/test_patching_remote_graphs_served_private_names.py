"""`langgraph.pregel.remote`'s `_V3_SUPPORTED_KWARGS` and `_merge_tracing_headers` are served;
patching `_merge_tracing_headers` there (monkeypatch) changes the headers the engine's
RemoteGraph sends on a v3 event stream with `distributed_tracing=True`, and undoing the
patch restores the engine's own function."""
from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langgraph_sdk")

from engine import compat  # noqa: E402
from engine.remote import graph as remote_graph  # noqa: E402


class _Threads:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def stream(self, **kwargs: Any) -> object:
        self.sent.append(kwargs)
        return object()


class _Client:
    def __init__(self) -> None:
        self.threads = _Threads()


@pytest.fixture
def compat_on():
    compat.install()
    yield
    compat.uninstall()


def test_patched_merge_tracing_headers_is_what_remote_graph_sends_then_restored(compat_on, monkeypatch):
    from langgraph.pregel import remote as served  # type: ignore[import-not-found]

    assert served._V3_SUPPORTED_KWARGS == frozenset({"metadata", "headers"})
    own = remote_graph.merge_tracing_headers
    client = _Client()
    remote = served.RemoteGraph("agent", client=object(), sync_client=client, distributed_tracing=True)
    seen = []

    def merge(headers):
        seen.append(headers)
        return {"traceparent": "00-1", **(headers or {})}

    monkeypatch.setattr(served, "_merge_tracing_headers", merge)
    remote.stream_events({"x": 1}, version="v3", headers={"X-Mine": "1"})
    assert seen == [{"X-Mine": "1"}]
    assert client.threads.sent[-1]["headers"] == {"traceparent": "00-1", "X-Mine": "1"}
    monkeypatch.undo()
    assert remote_graph.merge_tracing_headers is own
    assert served._merge_tracing_headers is own
