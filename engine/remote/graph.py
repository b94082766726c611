"""`RemoteGraph`: a graph that a LangGraph API server runs, called as a local graph is
(invoke/stream, sync and async, get_state/update_state/get_state_history, get_graph,
with_config), and usable as a node of a graph the engine runs: its interrupts pause that
node's task, a `Command(graph=PARENT)` it sends goes to the calling graph, and with
`subgraphs=True` its chunks show in the caller's stream under the node's namespace.

It talks through `langgraph_sdk`'s clients (the `remote` extra), created from `url` or
given as `client=` / `sync_client=`; any object with their methods works. It is a
LangChain Runnable (langchain-core), so `astream_events`, `batch` and the engine's
runnable-node path come with it."""
from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from ..outputs import GraphOutput
from ..runtime.tracing import merge_configs
from ..types import Command, StateSnapshot
from .shapes import checkpoint_of, command_payload, config_of, drawable_graph, sanitize_config, snapshot_of
from .event_stream import AsyncRemoteRunStream, RemoteRunStream, check_v3_call, start_arguments
from .streaming import RemoteException, RemoteStream

try:
    from langchain_core.runnables import Runnable
except ImportError:  # a base install: the class still imports (isinstance checks answer False), making one asks for the extra
    Runnable = None

_NEEDS_EXTRA = "RemoteGraph needs langchain-core and langgraph-sdk: pip install 'retrograph[remote]'"

__all__ = ["RemoteGraph", "RemoteException"]

logger = logging.getLogger(__name__)


def _sdk() -> Any:
    try:
        import langgraph_sdk.client as sdk
    except ImportError as exc:
        raise ImportError("RemoteGraph(url=...) needs the langgraph-sdk package: "
                          "pip install 'retrograph[remote]' (or pass client= / sync_client=)") from exc
    return sdk


def merge_tracing_headers(headers: dict[str, str] | None) -> dict[str, str] | None:
    """`headers` with the current LangSmith run's trace headers (distributed tracing)."""
    import langsmith

    tree = langsmith.get_current_run_tree()
    if tree is None:
        return headers
    tracing: dict[str, str] = tree.to_headers()
    if not headers:
        return tracing
    out = dict(headers)
    if "baggage" in out:
        tracing["baggage"] = f"{out['baggage']},{tracing['baggage']}"
    out.update(tracing)
    return out


def _thread_id(config: Mapping[str, Any], what: str) -> Any:
    thread_id = (config.get("configurable") or {}).get("thread_id")
    if thread_id is None:
        raise ValueError(f"RemoteGraph.{what} needs a thread: pass config={{'configurable': {{'thread_id': ...}}}}")
    return thread_id


class RemoteGraph(Runnable or object):  # type: ignore[misc]
    """A graph run by a LangGraph API server (`assistant_id`: the assistant's id or the
    graph's name on that server)."""

    def __init__(self, assistant_id: str, /, *, url: str | None = None, api_key: str | None = None,
                 headers: dict[str, str] | None = None, client: Any = None, sync_client: Any = None,
                 config: Mapping[str, Any] | None = None, name: str | None = None,
                 distributed_tracing: bool = False) -> None:
        if Runnable is None:
            raise ImportError(_NEEDS_EXTRA)
        self.assistant_id = assistant_id
        self.name = assistant_id if name is None else name
        self.config = None if config is None else dict(config)
        self.distributed_tracing = distributed_tracing
        if url is not None and (client is None or sync_client is None):
            sdk = _sdk()
            if client is None:
                client = sdk.get_client(url=url, api_key=api_key, headers=headers)
            if sync_client is None:
                sync_client = sdk.get_sync_client(url=url, api_key=api_key, headers=headers)
        self.client = client
        self.sync_client = sync_client

    # -- configuration ---------------------------------------------------------------------
    def copy(self, update: Mapping[str, Any]) -> RemoteGraph:
        fields = {"name": self.name, "config": self.config, "distributed_tracing": self.distributed_tracing,
                  "client": self.client, "sync_client": self.sync_client, **update}
        return type(self)(fields.pop("assistant_id", self.assistant_id), **fields)

    def with_config(self, config: Mapping[str, Any] | None = None, **kwargs: Any) -> RemoteGraph:
        return self.copy({"config": merge_configs(merge_configs(self.config, config), kwargs)})

    def _sanitize_config(self, config: Mapping[str, Any]) -> dict[str, Any]:
        return sanitize_config(config)

    def _sync(self) -> Any:
        if self.sync_client is None:
            raise ValueError("RemoteGraph has no sync client: pass url= or sync_client= when creating it")
        return self.sync_client

    def _async(self) -> Any:
        if self.client is None:
            raise ValueError("RemoteGraph has no async client: pass url= or client= when creating it")
        return self.client

    def _merged(self, config: Mapping[str, Any] | None) -> dict[str, Any]:
        return merge_configs(self.config, config)

    # -- the graph and its state -------------------------------------------------------------
    def get_graph(self, config: Mapping[str, Any] | None = None, *, xray: int | bool = False,
                  headers: dict[str, str] | None = None, params: Any = None) -> Any:
        """The server's drawing of the graph (`GET /assistants/{id}/graph`)."""
        return drawable_graph(self._sync().assistants.get_graph(
            assistant_id=self.assistant_id, xray=xray, headers=headers, params=params))

    async def aget_graph(self, config: Mapping[str, Any] | None = None, *, xray: int | bool = False,
                         headers: dict[str, str] | None = None, params: Any = None) -> Any:
        return drawable_graph(await self._async().assistants.get_graph(
            assistant_id=self.assistant_id, xray=xray, headers=headers, params=params))

    def _state_call(self, config: Mapping[str, Any], subgraphs: bool, headers: Any, params: Any) -> dict[str, Any]:
        merged = self._merged(config)
        return {"thread_id": _thread_id(merged, "get_state"), "checkpoint": checkpoint_of(merged),
                "subgraphs": subgraphs, "headers": headers, "params": params}

    def get_state(self, config: Mapping[str, Any], *, subgraphs: bool = False,
                  headers: dict[str, str] | None = None, params: Any = None) -> StateSnapshot:
        """The thread's state (at the config's checkpoint, else its latest)."""
        return snapshot_of(self._sync().threads.get_state(**self._state_call(config, subgraphs, headers, params)))

    async def aget_state(self, config: Mapping[str, Any], *, subgraphs: bool = False,
                         headers: dict[str, str] | None = None, params: Any = None) -> StateSnapshot:
        state = await self._async().threads.get_state(**self._state_call(config, subgraphs, headers, params))
        return snapshot_of(state)

    def _history_call(self, config: Mapping[str, Any], filter: Mapping[str, Any] | None,  # noqa: A002
                      before: Mapping[str, Any] | None, limit: int | None, headers: Any, params: Any) -> dict[str, Any]:
        merged = self._merged(config)
        return {"thread_id": _thread_id(merged, "get_state_history"), "limit": limit if limit else 10,
                "before": checkpoint_of(before), "metadata": filter, "checkpoint": checkpoint_of(merged),
                "headers": headers, "params": params}

    def get_state_history(self, config: Mapping[str, Any], *, filter: Mapping[str, Any] | None = None,  # noqa: A002
                          before: Mapping[str, Any] | None = None, limit: int | None = None,
                          headers: dict[str, str] | None = None, params: Any = None) -> Iterator[StateSnapshot]:
        """The thread's states, newest first (10 unless `limit` says otherwise)."""
        states = self._sync().threads.get_history(**self._history_call(config, filter, before, limit, headers, params))
        for state in states:
            yield snapshot_of(state)

    async def aget_state_history(self, config: Mapping[str, Any], *, filter: Mapping[str, Any] | None = None,  # noqa: A002
                                 before: Mapping[str, Any] | None = None, limit: int | None = None,
                                 headers: dict[str, str] | None = None,
                                 params: Any = None) -> AsyncIterator[StateSnapshot]:
        call = self._history_call(config, filter, before, limit, headers, params)
        for state in await self._async().threads.get_history(**call):
            yield snapshot_of(state)

    def _update_call(self, config: Mapping[str, Any], values: Any, as_node: str | None, headers: Any,
                     params: Any) -> dict[str, Any]:
        merged = self._merged(config)
        return {"thread_id": _thread_id(merged, "update_state"), "values": values, "as_node": as_node,
                "checkpoint": checkpoint_of(merged), "headers": headers, "params": params}

    def update_state(self, config: Mapping[str, Any], values: Any, as_node: str | None = None, *,
                     headers: dict[str, str] | None = None, params: Any = None) -> dict[str, Any]:
        """Write `values` to the thread as `as_node` would have; the new checkpoint's config."""
        response = self._sync().threads.update_state(**self._update_call(config, values, as_node, headers, params))
        return config_of(response["checkpoint"])

    async def aupdate_state(self, config: Mapping[str, Any], values: Any, as_node: str | None = None, *,
                            headers: dict[str, str] | None = None, params: Any = None) -> dict[str, Any]:
        call = self._update_call(config, values, as_node, headers, params)
        response = await self._async().threads.update_state(**call)
        return config_of(response["checkpoint"])

    def bulk_update_state(self, config: Mapping[str, Any], updates: Sequence[Any]) -> dict[str, Any]:
        raise NotImplementedError("RemoteGraph.bulk_update_state: the LangGraph server has no bulk update; "
                                  "call update_state once per update")

    async def abulk_update_state(self, config: Mapping[str, Any], updates: Sequence[Any]) -> dict[str, Any]:
        raise NotImplementedError("RemoteGraph.abulk_update_state: the LangGraph server has no bulk update; "
                                  "call aupdate_state once per update")

    # -- runs ----------------------------------------------------------------------------------
    def _run_call(self, input: Any, config: Mapping[str, Any] | None, options: dict[str, Any],
                  kwargs: dict[str, Any]) -> tuple[RemoteStream, dict[str, Any]]:
        """(how the parts are handled, the arguments of `client.runs.stream`)."""
        handling = RemoteStream(options.pop("stream_mode"), config, subgraphs=options.pop("subgraphs"),
                                version=options.pop("version"))
        sanitized = sanitize_config(self._merged(config))
        command = None
        if isinstance(input, Command):
            command, input = command_payload(input), None
        headers = options.pop("headers")
        call = {"thread_id": sanitized.get("configurable", {}).pop("thread_id", None),
                "assistant_id": self.assistant_id, "input": input, "command": command, "config": sanitized,
                "context": options.pop("context"), "stream_mode": handling.sent, **options,
                "stream_subgraphs": handling.stream_subgraphs, "if_not_exists": "create",
                "headers": merge_tracing_headers(headers) if self.distributed_tracing else headers, **kwargs}
        return handling, call

    def stream(self, input: Any, config: Mapping[str, Any] | None = None, *, context: Any = None,
               stream_mode: str | Sequence[str] | None = None, interrupt_before: Any = None,
               interrupt_after: Any = None, subgraphs: bool = False, headers: dict[str, str] | None = None,
               params: Any = None, version: str = "v1", **kwargs: Any) -> Iterator[Any]:
        """Start a run on the server (on the config's thread, created if new) and yield its
        chunks as a local graph's stream would ("updates" by default)."""
        client = self._sync()
        handling, call = self._run_call(input, config, {
            "stream_mode": stream_mode, "subgraphs": subgraphs, "version": version, "context": context,
            "headers": headers, "interrupt_before": interrupt_before, "interrupt_after": interrupt_after,
            "params": params}, kwargs)
        for part in client.runs.stream(**call):
            wanted, chunk = handling.handle(part)
            if wanted:
                yield chunk

    async def astream(self, input: Any, config: Mapping[str, Any] | None = None, *, context: Any = None,
                      stream_mode: str | Sequence[str] | None = None, interrupt_before: Any = None,
                      interrupt_after: Any = None, subgraphs: bool = False, headers: dict[str, str] | None = None,
                      params: Any = None, version: str = "v1", **kwargs: Any) -> AsyncIterator[Any]:
        client = self._async()
        handling, call = self._run_call(input, config, {
            "stream_mode": stream_mode, "subgraphs": subgraphs, "version": version, "context": context,
            "headers": headers, "interrupt_before": interrupt_before, "interrupt_after": interrupt_after,
            "params": params}, kwargs)
        async for part in client.runs.stream(**call):
            wanted, chunk = handling.handle(part)
            if wanted:
                yield chunk

    @staticmethod
    def _result(last: Any, got: bool, version: str) -> Any:
        if not got:
            logger.warning("No events received from remote graph")
            return None
        if version == "v2":
            return GraphOutput(value=last["data"], interrupts=tuple(last.get("interrupts", ())))
        return last

    def invoke(self, input: Any, config: Mapping[str, Any] | None = None, *, context: Any = None,
               interrupt_before: Any = None, interrupt_after: Any = None, headers: dict[str, str] | None = None,
               params: Any = None, version: str = "v1", **kwargs: Any) -> Any:
        """Run on the server to the end (or an interrupt); the last state it streamed."""
        last, got = None, False
        for chunk in self.stream(input, config, context=context, interrupt_before=interrupt_before,
                                interrupt_after=interrupt_after, headers=headers, stream_mode="values",
                                params=params, version=version, **kwargs):
            last, got = chunk, True
        return self._result(last, got, version)

    async def ainvoke(self, input: Any, config: Mapping[str, Any] | None = None, *, context: Any = None,
                      interrupt_before: Any = None, interrupt_after: Any = None,
                      headers: dict[str, str] | None = None, params: Any = None, version: str = "v1",
                      **kwargs: Any) -> Any:
        last, got = None, False
        async for chunk in self.astream(input, config, context=context, interrupt_before=interrupt_before,
                                       interrupt_after=interrupt_after, headers=headers, stream_mode="values",
                                       params=params, version=version, **kwargs):
            last, got = chunk, True
        return self._result(last, got, version)

    def stream_events(self, input: Any, config: Mapping[str, Any] | None = None, *, version: str = "v2",
                      interrupt_before: Any = None, interrupt_after: Any = None, control: Any = None,
                      transformers: Any = None, headers: dict[str, str] | None = None, **kwargs: Any) -> Any:
        """`version="v3"`: the remote run's v3 event stream (`RemoteRunStream`, through the
        server's thread stream); other versions: LangChain's event stream of this Runnable."""
        if version != "v3":
            return super().stream_events(input, config, version=version, **kwargs)
        check_v3_call("stream_events", {"control": control, "transformers": transformers,
                                        "interrupt_before": interrupt_before,
                                        "interrupt_after": interrupt_after}, kwargs)
        client = self._sync()
        thread, start = self._v3_thread(client, input, config, headers, kwargs)
        return RemoteRunStream(client, thread, start)

    async def astream_events(self, input: Any, config: Mapping[str, Any] | None = None, *, version: str = "v2",
                             interrupt_before: Any = None, interrupt_after: Any = None, control: Any = None,
                             transformers: Any = None, headers: dict[str, str] | None = None,
                             **kwargs: Any) -> Any:
        """`version="v3"` only: awaited, the remote run's v3 event stream (`AsyncRemoteRunStream`);
        v1/v2 are not implemented, as in LangGraph's RemoteGraph (use astream())."""
        if version != "v3":
            raise NotImplementedError(f"RemoteGraph.astream_events(version={version!r}) is not implemented: "
                                      "use astream(), or version='v3' (as LangGraph's RemoteGraph)")
        check_v3_call("astream_events", {"control": control, "transformers": transformers,
                                         "interrupt_before": interrupt_before,
                                         "interrupt_after": interrupt_after}, kwargs)
        client = self._async()
        thread, start = self._v3_thread(client, input, config, headers, kwargs)
        return AsyncRemoteRunStream(client, thread, start)

    def _v3_thread(self, client: Any, input: Any, config: Mapping[str, Any] | None,
                   headers: dict[str, str] | None, kwargs: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
        """(the SDK's thread stream for a v3 run, the arguments of its `run.start`)."""
        sanitized = sanitize_config(self._merged(config))
        thread_id = sanitized.get("configurable", {}).pop("thread_id", None)
        start = start_arguments(input, sanitized, kwargs.get("metadata"))  # refuses a Command it cannot send
        sent = merge_tracing_headers(headers) if self.distributed_tracing else headers
        threads = getattr(client, "threads", None)
        if threads is None or not hasattr(threads, "stream"):
            raise ImportError("RemoteGraph v3 event streams need a langgraph-sdk with thread streams "
                              "(client.threads.stream): pip install -U langgraph-sdk")
        thread = threads.stream(thread_id=thread_id, assistant_id=self.assistant_id, headers=sent)
        return thread, start
