"""Regression tests from a recorded run: what `retrograph pytest` writes, and the helper
the written test calls.

A generated test replays the recorded run (engine/replay) with the chosen nodes answered
from the recording, every other node run with the current code, and compares, superstep
by superstep, what each task wrote, then the final state, with the values the test file
holds as plain literals. Values are compared in a plain JSON-like form (messages as
`{"type", "content", ...}` without their `id`, which add_messages draws anew on every
run), so a test reads like the run it came from and a failure says which superstep,
which node and which key differ.
"""
from __future__ import annotations

import difflib
import json
import pprint
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["plain", "plain_update", "recorded_steps", "replay_recording", "RecordingReplay", "compare_steps"]


def plain(value: Any) -> Any:
    """The JSON-like form values are compared in (message ids left out)."""
    from studio.cli.history import jsonable

    return _drop_ids(jsonable(value))


def _drop_ids(value: Any) -> Any:
    if isinstance(value, dict):
        is_message = isinstance(value.get("type"), str) and "content" in value
        return {k: _drop_ids(v) for k, v in value.items() if not (is_message and k == "id")}
    if isinstance(value, list):
        return [_drop_ids(v) for v in value]
    return value


def plain_update(writes: Sequence[tuple[str, Any]]) -> Any:
    """A task's writes as a dict (a list of [key, value] when it wrote a key twice)."""
    keys = [k for k, _ in writes]
    if len(set(keys)) == len(keys):
        return {k: plain(v) for k, v in writes}
    return [[k, plain(v)] for k, v in writes]


def recorded_steps(branch: Any) -> list[list[tuple[str, Any]]]:
    """Each recorded superstep as [(node, update)]; ValueError naming a step with no record."""
    out: list[list[tuple[str, Any]]] = []
    for superstep in branch.steps:
        if superstep.after is None:
            break
        if superstep.tasks is None:
            raise ValueError(
                f"step {superstep.step} of thread `{branch.thread_id}` has no record of what its tasks wrote "
                f"(checkpoint {superstep.after.id}): record the run (the studio and `retrograph run --db` do; "
                "in code pass config={..., 'record': True})")
        out.append([(t.node, plain_update(t.writes)) for t in superstep.tasks])
    return out


def _line(node: str, update: Any) -> str:
    return f"{node}: {json.dumps(update, ensure_ascii=False, sort_keys=True, default=str)}"


def compare_steps(expected: Sequence[Sequence[tuple[str, Any]]], actual: Sequence[Sequence[tuple[str, Any]]]) -> str:
    """'' when equal, else a readable account of the first superstep that differs."""
    for i in range(max(len(expected), len(actual))):
        want = [tuple(t) for t in expected[i]] if i < len(expected) else None
        got = [tuple(t) for t in actual[i]] if i < len(actual) else None
        if want == got:
            continue
        if want is None:
            return f"superstep {i + 1}: the replay ran {', '.join(n for n, _ in got or [])}, past the recorded end"
        if got is None:
            return (f"superstep {i + 1}: the replay stopped before it; the recording ran "
                    f"{', '.join(n for n, _ in want)} there")
        diff = difflib.unified_diff([_line(*t) for t in want], [_line(*t) for t in got],
                                    "recorded", "replayed", lineterm="", n=0)
        return f"superstep {i + 1}: " + _step_difference(want, got) + "\n" + "\n".join(diff)
    return ""


def _step_difference(want: list[tuple[Any, ...]], got: list[tuple[Any, ...]]) -> str:
    """What differs in one superstep: the nodes that ran, or what they wrote (key by key)."""
    if [n for n, _ in want] != [n for n, _ in got]:
        return f"the recording ran {', '.join(n for n, _ in want)}, the replay ran {', '.join(n for n, _ in got)}"
    bad = [(n, w, g) for (n, w), (_, g) in zip(want, got) if w != g]
    text = f"node{'s' if len(bad) > 1 else ''} {', '.join(f'`{n}`' for n, _, _ in bad)} wrote something else"
    for n, w, g in bad:
        if isinstance(w, dict) and isinstance(g, dict):
            for k in sorted(set(w) | set(g), key=str):
                if w.get(k, "<not written>") != g.get(k, "<not written>"):
                    text += (f"\n  `{n}` key `{k}`: recorded {_short(w.get(k, '<not written>'))}, "
                             f"replayed {_short(g.get(k, '<not written>'))}")
    return text


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= 160 else text[:157] + "..."


def _diff_values(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> str:
    if expected == actual:
        return ""
    keys = sorted(set(expected) | set(actual))
    bad = [k for k in keys if expected.get(k, "<missing>") != actual.get(k, "<missing>")]
    want = pprint.pformat(dict(expected), width=100, sort_dicts=True).splitlines()
    got = pprint.pformat(dict(actual), width=100, sort_dicts=True).splitlines()
    return (f"final state differs at {', '.join(f'`{k}`' for k in bad)}\n"
            + "\n".join(difflib.unified_diff(want, got, "recorded", "replayed", lineterm="", n=1)))


@dataclass(frozen=True, kw_only=True)
class RecordingReplay:
    """A finished replay of a recording, in the plain form the test compares."""

    steps: list[list[tuple[str, Any]]]
    final: dict[str, Any]
    status: str
    error: BaseException | None

    def assert_steps(self, expected: Sequence[Sequence[tuple[str, Any]]]) -> None:
        __tracebackhide__ = True  # pytest shows the failure at the test's line
        if self.error is not None:
            raise AssertionError(f"the replay failed: {type(self.error).__name__}: {self.error}") from self.error
        problem = compare_steps(expected, self.steps)
        if problem:
            raise AssertionError(problem)

    def assert_final(self, expected: Mapping[str, Any]) -> None:
        __tracebackhide__ = True
        problem = _diff_values(expected, self.final)
        if problem:
            raise AssertionError(problem)


def _load(graph_file: str | Path) -> Any:
    from studio.core.loader import LoadError, load_graph

    loaded = load_graph(str(graph_file))
    if isinstance(loaded, LoadError):
        raise ValueError(f"cannot load the graph {graph_file}: {loaded.message}")
    return loaded.graph


def replay_recording(graph_file: str | Path, recording: str | Path, *, record: Iterable[str] = (),
                     workdir: str | Path, thread: str | None = None) -> RecordingReplay:
    """Replay the recording (a copy in `workdir`; the file itself is never written) with the
    graph in `graph_file`, answering `record` nodes from it."""
    from engine.checkpoint import SqliteSaver
    from engine.replay import replay

    source = Path(recording)
    if not source.is_file():
        raise ValueError(f"the recording {source} is missing: regenerate the test with `retrograph pytest`")
    copy = Path(workdir) / source.name
    shutil.copyfile(source, copy)
    graph = _load(graph_file)
    saver: Any = SqliteSaver(str(copy))
    try:
        threads = [t.thread_id for t in saver.threads()]
        if thread is None:
            if len(threads) != 1:
                raise ValueError(f"the recording {source} holds {len(threads)} threads: name one with thread=")
            thread = threads[0]
        result = replay(graph.with_checkpointer(saver), thread, record=record)
    finally:
        saver.close()
    steps = [[(name, plain_update(writes)) for name, writes in s.tasks] for s in result.steps]
    return RecordingReplay(steps=steps, final=plain(dict(result.values)), status=result.status, error=result.error)
