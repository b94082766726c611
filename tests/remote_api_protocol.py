"""The thread-centric streaming protocol of the test API server (tests/remote_api_server.py),
what langgraph-sdk's `client.threads.stream(...)` speaks and RemoteGraph's v3 event streams
use: commands posted to `/threads/{id}/commands` (`run.start`, `input.respond`) and the
thread's protocol events read as server-sent events from `/threads/{id}/stream/events`
(filtered by channel and namespace, replayed from `since`).

Each run is a real engine run of the assistant's graph in a thread of its own, streaming
every mode with its subgraphs; its parts become the thread's protocol events (numbered by
`seq`), with a root `lifecycle` event when it starts and ends and an `input.requested`
event per interrupt it stops at. A run paused at an interrupt goes on when it is answered
(`input.respond`, or a `run.start` on the paused thread: its input is the resume value)."""
from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from engine.graph.sync_bridge import iterate_sync
from engine.types import Command

__all__ = ["ThreadStreams", "matches"]

MODES = ["values", "updates", "messages", "tools", "tasks", "custom", "checkpoints"]

_CHANNEL_OF = {"input.requested": "input"}


def _channel(event: Mapping[str, Any]) -> str:
    method = event["method"]
    if method == "custom":
        data = event["params"].get("data")
        name = data.get("name") if isinstance(data, Mapping) else None
        return f"custom:{name}" if name else "custom"
    return _CHANNEL_OF.get(method, method)


def _prefix(ns: list[str], prefix: list[str]) -> bool:
    if len(prefix) > len(ns):
        return False
    return all(want == got or (":" not in want and got.partition(":")[0] == want)
               for want, got in zip(prefix, ns))


def matches(event: Mapping[str, Any], channels: list[str], namespaces: list[list[str]] | None,
            depth: int | None) -> bool:
    """Whether a stream asking for `channels` under `namespaces` (within `depth`) gets `event`."""
    channel = _channel(event)
    if channel not in channels and not (channel.startswith("custom:") and "custom" in channels):
        return False
    if not namespaces:
        return True
    ns = list(event["params"].get("namespace") or [])
    return any(_prefix(ns, p) and (depth is None or len(ns) - len(p) <= depth) for p in namespaces)


class _Thread:
    """One thread's protocol events and its runs."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self.cond = threading.Condition()
        self.run_start = 0
        """Index in `events` where the latest run began: a stream that gives no `since` reads from there."""
        self.active = False
        self.cancelled = threading.Event()
        self.run_id: str | None = None
        self.opened = 0
        """How many event streams were opened on the thread so far."""
        self.opened_before_run = 0

    def emit(self, method: str, namespace: Any, data: Any, **extra: Any) -> None:
        with self.cond:
            seq = len(self.events) + 1
            params = {"namespace": list(namespace or ()), "timestamp": int(time.time() * 1000), "data": data, **extra}
            self.events.append({"type": "event", "method": method, "seq": seq, "event_id": str(seq),
                                "params": params})
            self.cond.notify_all()

    def wait_for_reader(self, limit: float) -> None:
        """A run begins once a stream is opened on its thread after it was asked for (as a
        server's queue gives a client time to subscribe: langgraph-sdk wakes a projection at
        a pause only if it was subscribed then), or after `limit` seconds."""
        with self.cond:
            self.cond.wait_for(lambda: self.opened > self.opened_before_run, timeout=limit)


class ThreadStreams:
    """The protocol's side of the server: `command(...)` answers a command, `events(...)`
    yields a stream's events. `graph_of(assistant_id)` gives the graph a run runs."""

    def __init__(self, graph_of: Callable[[str], Any]) -> None:
        self.graph_of = graph_of
        self.threads: dict[str, _Thread] = {}
        self.assistants: dict[str, str] = {}
        self.closing = threading.Event()
        self._lock = threading.Lock()

    def thread(self, thread_id: str) -> _Thread:
        with self._lock:
            return self.threads.setdefault(thread_id, _Thread())

    # -- commands ---------------------------------------------------------------------------
    def command(self, thread_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        method, params, command_id = body.get("method"), body.get("params") or {}, body.get("id")
        thread = self.thread(thread_id)
        if method == "run.start":
            self.assistants.setdefault(thread_id, params["assistant_id"])
            graph = self.graph_of(params["assistant_id"])
            config = {**(params.get("config") or {})}
            config["configurable"] = {**(config.get("configurable") or {}), "thread_id": thread_id}
            if params.get("metadata"):
                config["metadata"] = {**(config.get("metadata") or {}), **params["metadata"]}
            given = params.get("input")
            if graph.get_state(config).interrupts:  # the thread is paused: its input answers it
                given = Command(resume=given)
            run_id = self._start(thread, graph, given, config, new_run=True)
            # the client reads this run's events from here on (its streams ask `since` it)
            return {"type": "success", "id": command_id, "result": {"run_id": run_id},
                    "meta": {"applied_through_seq": thread.run_start}}
        if method == "input.respond":
            graph = self.graph_of(self.assistants[thread_id])
            config = {"configurable": {"thread_id": thread_id}}
            resume = Command(resume={params["interrupt_id"]: params.get("response")})
            run_id = self._start(thread, graph, resume, config, new_run=False)
            return {"type": "success", "id": command_id, "result": {"run_id": run_id}}
        return {"type": "error", "id": command_id, "error": "unknown_command",
                "message": f"this test server does not answer {method!r}"}

    def _start(self, thread: _Thread, graph: Any, given: Any, config: dict[str, Any], *, new_run: bool) -> str:
        with thread.cond:
            if new_run or thread.run_id is None:
                thread.run_start = len(thread.events)
                thread.run_id = str(uuid.uuid4())
            thread.active = True
            thread.cancelled.clear()
            thread.opened_before_run = thread.opened if new_run else -1  # an answer goes on at once
        worker = threading.Thread(target=self._run, args=(thread, graph, given, config), daemon=True,
                                  name=f"api-run-{thread.run_id}")
        worker.start()
        return str(thread.run_id)

    def _run(self, thread: _Thread, graph: Any, given: Any, config: dict[str, Any]) -> None:
        thread.wait_for_reader(5.0)  # generous: on a loaded machine a client subscribes late
        thread.emit("lifecycle", (), {"event": "running", "graph_name": graph.name})
        try:
            # the parts a local v3 event stream reads (chat models report protocol message events)
            parts = iterate_sync(graph.astream(given, config, stream_mode=MODES, subgraphs=True, version="v2",
                                               _inline_sync=True, _protocol_messages=True))
            for part in parts:
                if thread.cancelled.is_set():
                    parts.close()
                    raise RuntimeError("the run was cancelled")
                extra = {"interrupts": part["interrupts"]} if part.get("interrupts") else {}
                thread.emit(part["type"], part["ns"], part["data"], **extra)
        except Exception as exc:
            thread.emit("lifecycle", (), {"event": "failed", "error": f"{type(exc).__name__}: {exc}"})
            self._end(thread)
            return
        pending = graph.get_state(config, subgraphs=True).interrupts
        if pending:
            for found in pending:
                thread.emit("input.requested", (), {"interrupt_id": found.id, "value": found.value})
            thread.emit("lifecycle", (), {"event": "interrupted"})
            return  # paused: the streams stay open for the answer
        thread.emit("lifecycle", (), {"event": "completed"})
        self._end(thread)

    def cancel(self, thread_id: str, run_id: str) -> None:
        """Stop the thread's run (at its next part) when it is the one named."""
        thread = self.thread(thread_id)
        if thread.run_id == run_id:
            thread.cancelled.set()

    @staticmethod
    def _end(thread: _Thread) -> None:
        with thread.cond:
            thread.active = False
            thread.cond.notify_all()

    # -- event streams ------------------------------------------------------------------------
    def events(self, thread_id: str, body: Mapping[str, Any]) -> Iterator[dict[str, Any] | None]:
        """The events a stream asked for, as they come; None now and then while nothing
        comes (the caller writes a keep-alive, so a client that left is noticed). Ends after
        the run's end, or when the server closes."""
        thread = self.thread(thread_id)
        channels = list(body.get("channels") or [])
        namespaces, depth = body.get("namespaces"), body.get("depth")
        since = body.get("since")
        with thread.cond:
            thread.opened += 1
            thread.cond.notify_all()
            at = since if isinstance(since, int) else (thread.run_start if thread.active else len(thread.events))
        while not self.closing.is_set():
            with thread.cond:
                if at >= len(thread.events):
                    thread.cond.wait(0.2)
                new = thread.events[at:]
            at += len(new)
            if not new:
                yield None
                continue
            for event in new:
                if matches(event, channels, namespaces, depth):
                    yield event
                if event["method"] == "lifecycle" and not event["params"]["namespace"] and \
                        event["params"]["data"].get("event") in ("completed", "failed"):
                    return
