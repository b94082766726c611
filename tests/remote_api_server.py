"""A small LangGraph API server for the RemoteGraph tests: real HTTP on 127.0.0.1 (the
stdlib's threading server), serving the routes RemoteGraph calls with the API's JSON and
server-sent-event shapes, each one answered by a real graph the engine runs with a real
in-memory checkpointer. Every request is kept (`requests`) so a test can check what
went over the wire."""
from __future__ import annotations

import dataclasses
import threading
import uuid
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

import orjson

from engine.types import Command, Interrupt
from tests.remote_api_protocol import ThreadStreams

__all__ = ["ApiServer", "serve"]


def _default(value: Any) -> Any:
    if isinstance(value, Interrupt):
        return {"value": value.value, "id": value.id}
    if hasattr(value, "model_dump"):  # a LangChain message
        return value.model_dump()
    if isinstance(value, (set, frozenset)):
        return list(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # a Send, a task in a checkpoints event
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    raise TypeError(f"cannot send {type(value).__name__} as JSON")


def dumps(value: Any) -> bytes:
    return orjson.dumps(value, default=_default,
                        option=orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_NON_STR_KEYS)


def _checkpoint(config: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not config or "checkpoint_id" not in (config.get("configurable") or {}):
        return None  # a thread with no checkpoint yet
    conf = config["configurable"]
    return {"thread_id": conf["thread_id"], "checkpoint_ns": conf.get("checkpoint_ns", ""),
            "checkpoint_id": conf["checkpoint_id"], "checkpoint_map": conf.get("checkpoint_map") or {}}


def thread_state(snapshot: Any) -> dict[str, Any]:
    """A StateSnapshot as the API's ThreadState."""
    tasks = [{"id": t.id, "name": t.name, "error": None if t.error is None else str(t.error),
              "interrupts": [{"value": i.value, "id": i.id} for i in t.interrupts], "checkpoint": None,
              "state": None, "result": t.result} for t in snapshot.tasks]
    return {"values": snapshot.values, "next": list(snapshot.next), "checkpoint": _checkpoint(snapshot.config),
            "metadata": snapshot.metadata, "created_at": snapshot.created_at,
            "parent_checkpoint": _checkpoint(snapshot.parent_config), "tasks": tasks}


class ApiServer:
    """Serves `graphs` (assistant id -> compiled graph with a checkpointer) until `close()`."""

    def __init__(self, graphs: Mapping[str, Any]) -> None:
        self.graphs = dict(graphs)
        self.requests: list[dict[str, Any]] = []
        self.protocol = ThreadStreams(self._graph)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
                pass

            def do_GET(self) -> None:
                server.answer(self, "GET")

            def do_POST(self) -> None:
                server.answer(self, "POST")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.protocol.closing.set()  # open event streams end
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)

    # -- one request -----------------------------------------------------------------------
    def answer(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        url = urlparse(handler.path)
        length = int(handler.headers.get("content-length") or 0)
        body = orjson.loads(handler.rfile.read(length)) if length else None
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        self.requests.append({"method": method, "path": url.path, "json": body, "query": query,
                              "headers": dict(handler.headers.items())})
        parts = url.path.strip("/").split("/")
        try:
            if parts[-2:] == ["runs", "stream"]:
                return self._stream(handler, parts[1] if parts[0] == "threads" else None, body or {})
            if parts[0] == "threads" and parts[2:] == ["stream", "events"]:
                return self._protocol_events(handler, parts[1], body or {})
            if parts[0] == "threads" and parts[2:] == ["commands"]:
                self._send(handler, 200, dumps(self.protocol.command(parts[1], body or {})))
                return None
            if parts[0] == "threads" and len(parts) == 5 and parts[2] == "runs" and parts[4] == "cancel":
                self.protocol.cancel(parts[1], parts[3])
                self._send(handler, 200, b"null")
                return None
            reply = self._route(method, parts, body or {}, query)
        except Exception as exc:  # the API answers a failed call with its error as JSON
            self._send(handler, 500, dumps({"detail": f"{type(exc).__name__}: {exc}"}))
            return
        if reply is None:
            self._send(handler, 404, dumps({"detail": f"no route {method} {url.path}"}))
        else:
            self._send(handler, 200, dumps(reply))

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, payload: bytes) -> None:
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)

    def _graph(self, assistant_id: str) -> Any:
        return self.graphs[assistant_id]

    def _thread_graph(self, thread_id: str | None = None) -> Any:
        """The graph of a thread: the assistant its v3 runs ran, else the first one served."""
        assistant = self.protocol.assistants.get(thread_id or "")
        return self.graphs[assistant] if assistant is not None else next(iter(self.graphs.values()))

    def _route(self, method: str, parts: list[str], body: dict[str, Any], query: dict[str, str]) -> Any:
        if parts[0] == "assistants" and parts[-1] == "graph" and method == "GET":
            xray = query.get("xray", "false") not in ("false", "False", "0")
            return self._graph(parts[1]).get_graph(xray=xray).to_json()
        if parts[0] != "threads" or len(parts) < 3:
            return None
        graph, thread_id, rest = self._thread_graph(parts[1]), parts[1], parts[2:]
        config: dict[str, Any] = {"configurable": {"thread_id": thread_id}}
        if rest == ["state"] and method == "GET":
            return thread_state(graph.get_state(config, subgraphs=query.get("subgraphs") == "true"))
        if rest == ["state", "checkpoint"]:
            config = {"configurable": {**body.get("checkpoint", {}), "thread_id": thread_id}}
            return thread_state(graph.get_state(config, subgraphs=bool(body.get("subgraphs"))))
        if rest == ["state"] and method == "POST":
            if body.get("checkpoint"):
                config = {"configurable": {**body["checkpoint"], "thread_id": thread_id}}
            done = graph.update_state(config, body.get("values"), as_node=body.get("as_node"))
            return {"checkpoint": _checkpoint(done)}
        if rest == ["history"]:
            before = body.get("before")
            states = graph.get_state_history(config, limit=body.get("limit", 10), filter=body.get("metadata"),
                                             before={"configurable": before} if before else None)
            return [thread_state(s) for s in states]
        return None

    # -- a run, streamed as server-sent events ------------------------------------------------
    def _stream(self, handler: BaseHTTPRequestHandler, thread_id: str | None, body: dict[str, Any]) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("connection", "close")
        handler.end_headers()
        for event, data in self._run_parts(thread_id, body):
            handler.wfile.write(b"event: " + event.encode() + b"\ndata: " + dumps(data) + b"\n\n")
            handler.wfile.flush()

    def _protocol_events(self, handler: BaseHTTPRequestHandler, thread_id: str, body: dict[str, Any]) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("connection", "close")
        handler.end_headers()
        try:
            for event in self.protocol.events(thread_id, body):
                if event is None:  # a keep-alive comment: a client that left is noticed
                    handler.wfile.write(b": ping\n\n")
                else:
                    handler.wfile.write(b"id: " + event["event_id"].encode() + b"\nevent: " + event["method"].encode()
                                        + b"\ndata: " + dumps(event) + b"\n\n")
                handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):  # the client closed its stream
            return

    def _run_parts(self, thread_id: str | None, body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
        graph = self._graph(body["assistant_id"])
        run_id = str(uuid.uuid4())
        yield "metadata", {"run_id": run_id}
        sent = body.get("config") or {}
        config = {**sent, "configurable": {**(sent.get("configurable") or {}),
                                           "thread_id": thread_id or str(uuid.uuid4())}}
        modes = ["messages" if m == "messages-tuple" else m for m in body.get("stream_mode") or ["values"]]
        command = body.get("command")
        given = Command(**command) if command else body.get("input")
        try:
            for ns, mode, data in graph.stream(given, config, stream_mode=modes, subgraphs=True,
                                               context=body.get("context"),
                                               interrupt_before=body.get("interrupt_before"),
                                               interrupt_after=body.get("interrupt_after")):
                if ns and not body.get("stream_subgraphs"):
                    continue
                yield ("|".join((mode, *ns)), list(data) if mode == "messages" else data)
        except Exception as exc:
            yield "error", {"error": type(exc).__name__, "message": str(exc)}
            return
        yield "end", {"run_id": run_id, "status": "success"}


def serve(graphs: Mapping[str, Any]) -> ApiServer:
    return ApiServer(graphs)
