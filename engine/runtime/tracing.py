"""LangChain callbacks: tracing (LangSmith, Langfuse, astream_events) and the `messages` stream.

Only used when a run's config has `callbacks` (or `stream_mode="messages"` adds its
handler): langchain-core is imported here, lazily, so the engine runs without it.

The graph run is one chain run (named after the graph); each task is a child chain run
named after its node, tagged `graph:step:N`, with LangGraph's `langgraph_*` metadata. The
node receives a config whose callbacks are its own run's children, so a chat model called
inside reports under the node, and the `messages` handler can tell which node streamed.
"""
from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..trace_policy import traced_value
from ..constants import PULL_PATH, PUSH_PATH, START

if TYPE_CHECKING:
    from ..checkpoint.base import PlannedTask

__all__ = ["GraphTrace", "add_handler", "messages_handler", "merge_configs", "MessagesMoves", "graph_namespace",
           "messages_in", "shared_metadata", "concluded"]

R = TypeVar("R")
NS_SEP = "|"
SHARED_CONFIGURABLE = ("thread_id", "checkpoint_id", "checkpoint_ns", "task_id", "run_id", "assistant_id", "graph_id")
"""Configurable keys a node's run metadata repeats (as LangGraph does); the rest (API keys
included) stay out of traces and the `messages` stream."""


def add_handler(config: Mapping[str, Any] | None, handler: Any) -> dict[str, Any]:
    """`config` with one more inheritable callback handler (callbacks may be a list or a manager)."""
    config = dict(config or {})
    callbacks = config.get("callbacks")
    if callbacks is None:
        config["callbacks"] = [handler]
    elif isinstance(callbacks, list):
        config["callbacks"] = [*callbacks, handler]
    else:
        manager = callbacks.copy()
        manager.add_handler(handler, inherit=True)
        config["callbacks"] = manager
    return config


def shared_metadata(config: Mapping[str, Any]) -> dict[str, Any]:
    """A run's metadata: the config's own, then (where it has no such key) the
    `SHARED_CONFIGURABLE` values of its configurable and `ls_integration`, as LangGraph
    records them on the graph's run and each node's."""
    metadata = dict(config.get("metadata") or {})
    given = config.get("configurable") or {}
    for key in SHARED_CONFIGURABLE:
        value = given.get(key)
        if isinstance(value, (str, int, float, bool)) and value != "":
            metadata.setdefault(key, value)
    metadata.setdefault("ls_integration", "langgraph")
    return metadata


def merge_configs(base: Mapping[str, Any] | None, extra: Mapping[str, Any] | None) -> dict[str, Any]:
    """Two configs as one, as LangChain merges them: tags added, metadata and configurable
    merged key by key, callbacks combined, anything else taken from `extra`."""
    out = dict(base or {})
    for key, value in (extra or {}).items():
        if value is None:
            continue
        if key == "tags":
            out["tags"] = list(dict.fromkeys([*(out.get("tags") or ()), *value]))
        elif key in ("metadata", "configurable"):
            out[key] = {**(out.get(key) or {}), **value}
        elif key == "callbacks" and out.get("callbacks"):
            mine = out["callbacks"]
            if isinstance(mine, list) and isinstance(value, list):
                out["callbacks"] = [*mine, *value]
            elif isinstance(value, list):
                for handler in value:
                    out = add_handler(out, handler)
            else:
                out["callbacks"] = value if not isinstance(mine, list) else _manager_with(value, mine)
        else:
            out[key] = value
    return out


def _manager_with(manager: Any, handlers: Sequence[Any]) -> Any:
    manager = manager.copy()
    for handler in handlers:
        manager.add_handler(handler, inherit=True)
    return manager


class GraphTrace:
    """The callback run of one graph run, and a child run per task."""

    def __init__(self, config: dict[str, Any], name: str, namespace: tuple[str, ...],
                 policies: Mapping[str, Any] | None = None) -> None:
        from langchain_core.runnables.config import get_callback_manager_for_config

        from .langsmith_context import ChildConfigVar

        self._for_config = get_callback_manager_for_config
        self.context_var = ChildConfigVar()
        """LangChain's "config of the running step": set around each node, so a chat model
        called in a node that takes no `config` still reports under it (and LangSmith's
        current run tree is the node's run)."""
        self.name = config.get("run_name") or name
        self.root_id = config.pop("run_id", None)
        self.config = config
        self.namespace = namespace
        self.policies = policies or {}
        """Node name -> its TracePolicy: what the node's own run records (engine/trace_policy.py)."""
        self.manager: Any = None
        self.tasks: dict[str, Any] = {}
        self.held: dict[str, Any] = {}
        """Task id -> (its run, output) streamed but not ended yet (None: not ended by task_end): `concluded`."""
        self.ended_by_driver = False
        """Set by a driver that yields stream chunks after the run finished (astream): it
        ends the graph's run itself, after the last chunk, as LangGraph's tracing shows."""

    def start(self, input: Any) -> None:
        if self.manager is None:  # the graph's own run carries the shared keys too, as in LangGraph
            callbacks = self._for_config({**self.config, "metadata": shared_metadata(self.config)})
            self.manager = callbacks.on_chain_start(None, input, name=self.name, run_id=self.root_id)

    def end(self, output: Any, error: BaseException | None) -> None:
        manager, self.manager = self.manager, None
        if manager is None:
            return
        if error is not None:
            manager.on_chain_error(error)
        else:
            manager.on_chain_end(output)

    def task_config(self, task: PlannedTask, step: int, state: Any, thread_id: str | None,
                    push_index: int = 0) -> dict[str, Any]:
        """Open the task's child run; returns the config the node receives."""
        if self.manager is None or task.name == START:
            return self.config
        checkpoint_ns = NS_SEP.join([*self.namespace, f"{task.name}:{task.id}"])
        pushed = task.is_send and task.trigger != "input"  # an entrypoint's node is pulled from START
        metadata = {
            **shared_metadata(self.config),
            "langgraph_step": step,
            "langgraph_node": task.name,
            "langgraph_triggers": (PUSH_PATH,) if pushed else (START,) if task.is_send else (f"branch:to:{task.name}",),
            "langgraph_path": (PUSH_PATH, push_index, False) if pushed else (PULL_PATH, task.name),
            "langgraph_checkpoint_ns": checkpoint_ns,
        }
        if thread_id is not None:
            metadata.setdefault("thread_id", thread_id)
        parent = {**self.config, "callbacks": self.manager.get_child(f"graph:step:{step}"), "metadata": metadata}
        recorded = traced_value(self.policies.get(task.name), "process_inputs", state, task.name)
        run = self._for_config(parent).on_chain_start(None, recorded, name=task.name)
        self.tasks[task.id] = run
        configurable = {**(self.config.get("configurable") or {}), "checkpoint_ns": checkpoint_ns}
        # the node body is the first step of the task's run, as in LangGraph (tag seq:step:1)
        return {**parent, "callbacks": run.get_child("seq:step:1"), "configurable": configurable}

    def task_end(self, task: PlannedTask, output: Any, error: BaseException | None) -> None:
        run = self.tasks.pop(task.id, None)
        if run is None:
            return
        if error is not None:
            run.on_chain_error(error)
            return
        for handler in run.handlers:  # astream_events shows a node's output as on_chain_stream too
            tap = getattr(handler, "tap_output_iter", None)
            if tap is not None:
                for _ in tap(run.run_id, iter([output])):
                    pass
        ended = traced_value(self.policies.get(task.name), "process_outputs", output, task.name)
        if task.id in self.held:
            self.held[task.id] = (run, ended)
        else:
            run.on_chain_end(ended)

async def concluded(tracer: GraphTrace | None, task: PlannedTask, conclude: Callable[..., R], *args: Any) -> R:
    """`conclude(*args)` for an async task; when traced, the task's run ends one loop turn
    after its output streamed, as in LangGraph (a node's run there is an async stream), so
    what the graph's stream already holds (an entrypoint's last `@task` update) is reported
    in between."""
    if tracer is None:
        return conclude(*args)
    tracer.held[task.id] = None
    try:
        result = conclude(*args)
    finally:
        held = tracer.held.pop(task.id, None)
    if held is not None:
        await asyncio.sleep(0)
        held[0].on_chain_end(held[1])
    return result


_HANDLER_CLASS: Any = None


def graph_namespace(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """The namespace of the graph a task ran in: its checkpoint namespace minus its own part."""
    return tuple(str(metadata.get("langgraph_checkpoint_ns", "")).split(NS_SEP)[:-1])


def messages_handler(put: Callable[..., None], subgraphs: bool = False) -> Any:
    """A callback handler for `stream_mode="messages"`: calls `put((message, metadata), ns)`
    for each chat-model token (or whole reply when the model did not stream) and for each
    new message a node returns (`ns`: the subgraph's namespace; a subgraph's messages only
    with `subgraphs`). A message id is sent once: a reply already streamed as
    tokens, or a message the node received in its input, is not sent again."""
    global _HANDLER_CLASS
    if _HANDLER_CLASS is None:
        _HANDLER_CLASS = _make_handler_class()
    return _HANDLER_CLASS(put, subgraphs)


def _is_command(value: Any) -> bool:
    return type(value).__name__ == "Command" and hasattr(value, "update")


def messages_in(value: Any, message: type) -> list[Any]:
    """The messages (of class `message`) in a node's input or output: a message, a state,
    an update, a Command's update, a list of updates and Commands."""
    if isinstance(value, message):
        return [value]
    if _is_command(value):
        value = value.update
    elif isinstance(value, (list, tuple)) and any(_is_command(v) or isinstance(v, Mapping) for v in value):
        return [m for v in value for m in messages_in(v, message)]  # a list of updates and Commands
    if isinstance(value, Mapping):
        values = list(value.values())
    elif isinstance(value, (list, tuple)):
        values = list(value)
    else:
        values = [getattr(value, k) for k in getattr(type(value), "model_fields", {})] or \
                 list(getattr(value, "__dict__", {}).values())
    found: list[Any] = []
    for item in values:
        if isinstance(item, message):
            found.append(item)
        elif isinstance(item, (list, tuple)):
            found.extend(x for x in item if isinstance(x, message))
    return found


class MessagesMoves:
    """What the `messages` mode's callback handler does (`_make_handler_class` puts it on
    langchain-core's handler class, imported only when the mode is used)."""

    run_inline = True
    message_class: Any = object
    generation: Any = object
    generation_chunk: Any = object

    def __init__(self, put: Callable[..., None], subgraphs: bool) -> None:
        self.put = put
        self.subgraphs = subgraphs
        self.meta: dict[uuid.UUID, dict[str, Any]] = {}
        self.seen: set[Any] = set()
        self.home: tuple[str, ...] = ()
        """The namespace of the streamed graph (not () when a node streams a graph)."""

    def _wanted(self, metadata: Mapping[str, Any] | None, tags: Sequence[str] | None) -> bool:
        if not metadata or "langgraph_node" not in metadata or (tags and "nostream" in tags):
            return False
        return self.subgraphs or len(graph_namespace(metadata)) <= len(self.home)

    def _send(self, message: Any, meta: dict[str, Any], dedupe: bool) -> None:
        if dedupe and message.id is not None and message.id in self.seen:
            return
        if message.id is None:
            message.id = str(uuid.uuid4())
        self.seen.add(message.id)
        self.put((message, meta), graph_namespace(meta))

    def push(self, message: Any, metadata: Mapping[str, Any]) -> None:
        """A message a node pushed itself (`push_message`), sent as it is."""
        if self._wanted(metadata, None):
            self._send(message, dict(metadata), dedupe=False)

    def tap_output_aiter(self, run_id: Any, output: Any) -> Any:
        return output

    def tap_output_iter(self, run_id: Any, output: Any) -> Any:
        return output

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: uuid.UUID,
                            tags: Sequence[str] | None = None, metadata: dict[str, Any] | None = None,
                            **kwargs: Any) -> None:
        if self._wanted(metadata, tags):
            meta = dict(metadata or {})
            mine = [t for t in tags or () if not t.startswith("seq:step")]
            if mine:
                meta["tags"] = mine
            self.meta[run_id] = meta

    def on_llm_new_token(self, token: str, *, chunk: Any = None, run_id: uuid.UUID, **kwargs: Any) -> None:
        meta = self.meta.get(run_id)
        if meta is not None and isinstance(chunk, self.generation_chunk):
            self._send(chunk.message, meta, dedupe=False)

    def on_llm_end(self, response: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        meta = self.meta.pop(run_id, None)
        if meta is not None and response.generations and response.generations[0]:
            generation = response.generations[0][0]
            if isinstance(generation, self.generation):
                self._send(generation.message, meta, dedupe=True)

    def on_llm_error(self, error: BaseException, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self.meta.pop(run_id, None)

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: uuid.UUID,
                       tags: Sequence[str] | None = None, metadata: dict[str, Any] | None = None,
                       **kwargs: Any) -> None:
        if not self._wanted(metadata, tags) or kwargs.get("name") != (metadata or {}).get("langgraph_node"):
            return
        self.meta[run_id] = dict(metadata or {})
        for message in messages_in(inputs, self.message_class):
            if message.id is not None:
                self.seen.add(message.id)

    def on_chain_end(self, outputs: Any, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        meta = self.meta.pop(run_id, None)
        if meta is not None:
            for message in messages_in(outputs, self.message_class):
                self._send(message, meta, dedupe=True)

    def on_chain_error(self, error: BaseException, *, run_id: uuid.UUID, **kwargs: Any) -> None:
        self.meta.pop(run_id, None)


def _make_handler_class() -> Any:
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.messages import BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatGenerationChunk

    try:  # chat models stream tokens (even from invoke) only when such a handler listens
        from langchain_core.tracers._streaming import _StreamingCallbackHandler as Streaming
    except ImportError:  # pragma: no cover - older langchain-core
        Streaming = object

    class MessagesHandler(MessagesMoves, BaseCallbackHandler, Streaming):  # type: ignore[misc]
        message_class, generation, generation_chunk = BaseMessage, ChatGeneration, ChatGenerationChunk

    return MessagesHandler
