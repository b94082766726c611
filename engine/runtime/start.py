"""Starting a Run: save the input, or continue / resume / fork a thread's checkpoint.

A mixin of `Run` (run.py), kept apart so each module stays about one idea; the fields
it reads are declared in run_fields.py.
"""
from __future__ import annotations

import asyncio
import builtins
import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..checkpoint.base import (
    DONE,
    ROUTE,
    SEND,
    Checkpoint,
    PendingWrite,
    PlannedTask,
    new_checkpoint_id,
    new_task_id,
    now_iso,
)
from ..checkpoint.task_status import task_statuses
from ..constants import START
from ..errors import EmptyInputError, MissingThreadIdError, ResumeError
from ..types import Command
from .command_input import apply_input_writes, command_writes, is_input_write
from .run_fields import RunFields
from .events import RunStarted, TaskInterrupted
from .time_travel import Replay, address_subgraph
from .task import TaskResult

__all__ = ["RunStart"]


class RunStart(RunFields):
    """start(): the first move of every Run."""

    # -- 0. start -------------------------------------------------------------------
    async def start(self) -> RunStarted:
        """Load the thread, save the input (or fork an old checkpoint) and plan the first superstep."""
        if self.status != "new":
            raise RuntimeError(f"this run was already started (status: {self.status})")
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        if self.tracer is not None:
            self.tracer.namespace = tuple(self.checkpoint_ns.split("|")) if self.checkpoint_ns else ()
            self.tracer.start(self.input)
        cfg = self.config["configurable"]
        if self.saver is not None and self.thread_id is None:
            raise MissingThreadIdError(
                "This graph has a checkpointer, so each run needs a thread: pass "
                "config={'configurable': {'thread_id': 'some-id'}} to invoke/stream."
            )
        addressed, base = self._load_base(cfg)
        is_command = isinstance(self.input, Command)
        resume = self.input.resume if is_command else None
        if self.input is None or (is_command and (resume is not None or base is not None)):
            mode = self._start_resume(base, addressed, resume)
            if is_command and (self.input.update is not None or self.input.goto_targets()):
                self._apply_command_input(self.input)
        else:
            mode = self._start_input(base)
        self.status = "ready"
        return self._report_start(mode)

    def _load_base(self, cfg: Mapping[str, Any]) -> tuple[str | None, Checkpoint | None]:
        """(the checkpoint id the config names, the checkpoint the run starts from)."""
        addressed = cfg.get("checkpoint_id")
        if cfg.get("checkpoint_ns") and not self.namespace and self.saver is not None:
            # a subgraph's own checkpoint config, given to the top graph: replay the top graph
            # from that subgraph's parent checkpoint, and the subgraph from its own
            addressed, targets = address_subgraph(self.saver, self.thread_id or "", cfg)
            self.set_options(replay=Replay(targets=targets))
        base = None
        if self.saver is not None:
            base = self.saver.load(self.store_key, addressed)
            if addressed and base is None:
                raise ValueError(
                    f"thread {self.thread_id!r} has no checkpoint {addressed!r}; "
                    "pick one from get_state_history()"
                )
        return addressed, base

    def _report_start(self, mode: str) -> RunStarted:
        """RunStarted, then the results a continued run got back (each task's event again),
        then, with nothing to run, the run's end."""
        started = RunStarted(
            **self._base(step=self.step),
            checkpoint_id=self.checkpoint.id if self.checkpoint else "",
            mode=mode,
            next=self.plan,
            values=self.values,
            parent_id=self.checkpoint.parent_id if self.checkpoint else None,
            source=self.checkpoint.source if self.checkpoint else "",
            parents=self.options.parents,
            barriers=self.checkpoint.barriers if self.checkpoint else {},
        )
        self._emit(started)
        asked = []
        for result in list(self.results.values()):
            if result.replayed and result.ok:
                self._emit_finished(result)
            elif result.replayed and result.interrupts:
                asked.append(result)
        for result in asked:  # continued without an answer: the task pauses again (LangGraph
            # re-runs it and it asks again), so its interrupt is reported again
            self._emit(TaskInterrupted(**self._base(), task_id=result.task.id, name=result.task.name,
                                       interrupts=result.interrupts, duration_s=0.0))
        if not self.pending and not self.results and not self.plan:
            self._finish("done")
        else:
            self._after_tasks_check()
        return started

    def _start_input(self, base: Checkpoint | None) -> str:
        schema = self.graph.schema
        if self.options.fresh:  # a stateless subgraph: each call starts a history of its own
            base = None
        values = dict(base.values) if base is not None else schema.initial_values()
        cid = new_checkpoint_id()
        versions = dict(base.versions) if base is not None else {k: cid for k in values}
        entry = getattr(self.graph, "input_node", START)  # an @entrypoint's node takes the input itself
        start_task = PlannedTask(id=new_task_id(cid, 0), name=entry, trigger="input",
                                 is_send=True, arg=self.input)
        ckpt = Checkpoint(
            id=cid, thread_id=self.store_key, parent_id=base.id if base else None,
            step=(base.step + 1) if base else -1, source="input", created_at=now_iso(),
            values=values, versions=versions, barriers=dict(base.barriers) if base else {},
            tasks=(start_task,), nodes_ran=(), metadata=self._metadata(),
        )
        self._save(ckpt)
        self._set_checkpoint(ckpt)
        self._first_step = ckpt.step + 1
        return "input"

    def _start_resume(self, base: Checkpoint | None, addressed: str | None, resume: Any) -> str:
        if base is None:
            if self.saver is None and resume is not None:
                raise RuntimeError("Cannot use Command(resume=...) without a checkpointer: compile(checkpointer=...)")
            raise EmptyInputError(
                "Received no input and there is no checkpoint to continue from: pass an input dict, "
                "or a config naming a thread (and checkpoint) that has one."
            )
        latest = self.saver.load(self.store_key) if addressed else base
        superseded = latest is not None and latest.id != base.id
        time_travel = bool(addressed) and resume is None
        mode = "resume"
        pending: list[PendingWrite] = []
        if time_travel and not self.namespace and self.saver is not None:
            # subgraphs start from their state as of this checkpoint (as of the edited one
            # for an update or a fork)
            bound = base.id if base.source not in ("update", "fork") else (base.parent_id or base.id)
            replay = self.options.replay
            if replay is None:
                replay = self.set_options(replay=Replay()).replay
                assert replay is not None
            replay.bound = bound
        elif resume is not None and self.options.replay is not None:
            self.options.replay.resume = resume
        if time_travel and (base.source not in ("update", "fork") or superseded):
            mode = "fork"
            # the copy owns the new branch's writes (the old branch's stay under `base`);
            # a debugger numbers it as `base` so the branch's first commit is step N+1
            fork_id = new_checkpoint_id()
            base = replace(base, id=fork_id, parent_id=base.id, step=base.step + (0 if self.options.fork_same_step else 1),
                           source="fork", created_at=now_iso(), metadata=self._metadata(),
                           tasks=tuple(replace(t, id=new_task_id(fork_id, i)) for i, t in enumerate(base.tasks)))
            self._save(base)
        else:
            pending = self.saver.pending_writes(self.store_key, base.id) if self.saver else []
            self.set_options(resuming=True)
        self._set_checkpoint(base)
        self._first_step = base.step + 1
        self._load_pending(pending, keep_resume=not time_travel)
        if resume is not None:
            self._apply_resume(resume)
        # As LangGraph: a task still waiting for an answer runs again (with the answers it
        # has), so it asks again and the run reports its question again.
        for task_id in [t for t, r in self.results.items() if r.interrupts]:
            del self.results[task_id]
        return mode

    def _apply_command_input(self, command: Command[Any]) -> None:
        """A Command given to a thread with a checkpoint: its update and goto act on the
        pending superstep (see command_input.py); kept as pending writes."""
        assert self.checkpoint is not None
        writes = command_writes(self.graph, command, self.checkpoint.id)
        if not writes:
            return
        if self.saver is not None:
            self._put_writes(writes)
        self.values, self.plan = apply_input_writes(  # type: ignore[assignment]
            self.graph, self.checkpoint.id, self.values, self.plan, writes)

    def _metadata(self) -> dict[str, Any]:
        """Only what the user put under config['metadata']; configurable keys (API keys
        included) are never persisted."""
        meta = self.config.get("metadata")
        out = dict(meta) if meta and isinstance(meta, Mapping) else {}
        parents = self.options.parents
        if parents:
            out["parents"] = parents
        return out

    def _set_checkpoint(self, ckpt: Checkpoint, owned: bool = False) -> None:
        """Make `ckpt` the head; `owned` when its values dict was built by this run (a commit),
        which never changes a values dict in place, so it need not be copied."""
        self.checkpoint = ckpt
        self.values = ckpt.values if owned else dict(ckpt.values)  # type: ignore[assignment]
        self.plan = ckpt.tasks
        self.results = {}
        self._resume_for = {}
        self._resume_map = {}

    def _load_pending(self, pending: Sequence[PendingWrite], keep_resume: bool) -> None:
        """Give back the results of tasks that finished before a crash or an interrupt."""
        cid = self.checkpoint.id if self.checkpoint is not None else ""
        inputs = [w for w in pending if is_input_write(w, cid)]
        if inputs:  # a Command given as input earlier: its update and goto come first
            self.values, self.plan = apply_input_writes(  # type: ignore[assignment]
                self.graph, cid, self.values, self.plan, inputs)
            pending = [w for w in pending if not is_input_write(w, cid)]
        statuses = task_statuses(pending)
        tasks = {t.id: t for t in self.plan}
        for task_id, status in statuses.items():  # a failed node whose error handler took over
            task = tasks.get(task_id)
            if task is not None and status.handler is not None and not status.finished \
                    and status.handler in self.graph.runners:
                failed = TaskResult(task=task, error=saved_error(status.error), replayed=True)
                self.results[task_id] = failed
                self._plan_error_handler(failed, status.handler)  # its handler runs again, not the node
        tasks = {t.id: t for t in self.plan}
        for task_id, status in statuses.items():
            task = tasks.get(task_id)
            if task is None or task_id in self.results:
                continue
            if keep_resume and status.resume is not None:
                self._resume_for[task_id] = list(status.resume)
            if status.finished:  # a task resumed and finished after its interrupt: the result wins
                result = TaskResult(task=task, replayed=True)
                for w in status.output:
                    if w.channel == ROUTE:
                        result.routes.append((w.value[0], w.value[1]))
                    elif w.channel == SEND:
                        result.sends.append(w.value)
                    elif w.channel != DONE:
                        result.writes.append((w.channel, w.value))
                result.update = dict(result.writes) if result.writes else None
                self.results[task_id] = result
            elif status.interrupts:  # a failed task (an error, nothing else) runs again
                self.results[task_id] = TaskResult(task=task, replayed=True, interrupts=status.interrupts)

    def _apply_resume(self, resume: Any) -> None:
        """Hand a resume value to the interrupted task(s); they run again from the top."""
        waiting = [r for r in self.results.values() if r.interrupts]
        if not waiting:  # as LangGraph: a run paused at a static breakpoint (or done) goes on,
            if self.checkpoint is not None:  # and the first interrupt() to come takes the value
                self.set_options(null_resume=(self.checkpoint.id, resume))
            return
        by_id = {i.id: r for r in waiting for i in r.interrupts}
        if isinstance(resume, Mapping) and resume and all(k in by_id for k in resume):
            targets = [(by_id[k], v) for k, v in resume.items()]
            for k, v in resume.items():  # a subgraph inside the task resumes its interrupts by id
                self._resume_map.setdefault(by_id[k].task.id, {})[k] = v
        elif isinstance(resume, Mapping) and resume and any(isinstance(k, str) and len(k) == 32 for k in resume) \
                and not any(k in by_id for k in resume):
            raise ResumeError(
                f"resume names interrupt ids {', '.join(map(repr, resume))} but the pending ones are "
                f"{', '.join(map(repr, by_id))}; the interrupt may have been resumed already"
            )
        else:
            if len(waiting) > 1:
                raise ResumeError(
                    "When there are multiple pending interrupts, you must specify the interrupt id when "
                    f"resuming. {len(waiting)} interrupts are pending ({', '.join(repr(i) for i in by_id)}): "
                    "resume with a dict {interrupt_id: value} to say which value goes where."
                )
            targets = [(waiting[0], resume)]
        for result, value in targets:
            task_id = result.task.id
            self._resume_for[task_id] = [*self._resume_for.get(task_id, []), value]
            self._resume_new = {*(self._resume_new or ()), task_id}
            del self.results[task_id]


def saved_error(record: Any) -> BaseException:
    """A task's error as saved (`{"type", "message"}`) as an exception again: of that
    built-in type when it is one (nothing is imported or looked up elsewhere), else an
    Exception with the saved text."""
    if not isinstance(record, Mapping):
        return Exception(str(record))
    name, message = str(record.get("type", "")), str(record.get("message", ""))
    kind = getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception):
        try:
            return kind(message)
        except Exception:  # a built-in that takes other arguments (UnicodeDecodeError...)
            pass
    return Exception(f"{name}: {message}" if name else message)
