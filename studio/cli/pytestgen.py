"""`retrograph pytest DB --thread T --graph FILE.py [--record NODE,...] -o tests/test_NAME.py`:
turn a recorded run into a regression test.

Writes two files: the test (readable: every superstep's recorded updates and the final
state are literals in it) and, beside it, `test_NAME.recording.sqlite`, the recorded
branch exported (engine/checkpoint/export.py, `--redact` applies) so that the test needs
neither the original database nor any network: the nodes named in `--record` are
answered from the recording, every other node runs with the current code. Before writing,
the replay is run once and must match, so a non-deterministic node is named at once.
"""
from __future__ import annotations

import argparse
import os
import pprint
import re
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

__all__ = ["pytest_parser", "cmd_pytest", "render_test"]


def pytest_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="retrograph pytest",
        description="Write a pytest file that replays a recorded run and checks every superstep's updates "
                    "and the final state.")
    p.add_argument("db", help="the checkpoint database holding the run (SQLite file or postgresql:// URL)")
    p.add_argument("--thread", required=True, help="the thread of the run")
    p.add_argument("--graph", required=True, help="the graph file, FILE.py[:NAME] (its code runs)")
    p.add_argument("--record", default="", metavar="NODE,...",
                   help="nodes answered from the recording instead of being called (LLM and API calls); "
                        "a node inside a subgraph node is named SUBGRAPH:NODE (e.g. research:extract)")
    p.add_argument("--checkpoint", help="replay from this checkpoint (default: the thread's first)")
    p.add_argument("--head", help="the recorded branch ends at this checkpoint (default: the newest)")
    p.add_argument("--redact", default="", metavar="KEY,...", help="replace these keys' values in the recording")
    p.add_argument("-o", "--output", required=True, help="the test file to write, e.g. tests/test_my_run.py")
    p.set_defaults(command="pytest")
    return p


def _fail(err: TextIO, message: str, code: int = 2) -> int:
    print(f"retrograph: {message}", file=err)
    return code


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def cmd_pytest(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    from engine.checkpoint.export import export_thread
    from engine.checkpoint.reading import describe_target, open_store
    from engine.replay import ReplayError, check_nodes, load_branch

    from ..core.loader import LoadError, load_graph
    from ..core.regression import plain, recorded_steps, replay_recording

    out, err = out or sys.stdout, err or sys.stderr
    target = Path(args.output)
    if target.suffix != ".py" or not target.stem.startswith("test_"):
        return _fail(err, f"-o {args.output}: name the test file test_NAME.py so that pytest collects it")
    if not target.parent.is_dir():
        return _fail(err, f"-o {args.output}: the folder {target.parent} does not exist")
    if target.exists() and not _generated(target):  # a test written by hand is never overwritten
        return _fail(err, f"-o {args.output}: the file exists and was not written by `retrograph pytest`; "
                          "pick another name (nothing was changed)")
    loaded = load_graph(args.graph)
    if isinstance(loaded, LoadError):
        return _fail(err, f"--graph {args.graph}: {loaded.message}")
    try:
        record = check_nodes(loaded.graph, _names(args.record))
    except ReplayError as e:
        return _fail(err, f"--record: {e}")
    try:
        store = open_store(args.db)
    except Exception as e:
        return _fail(err, f"cannot open {describe_target(args.db)}: {e}")
    recording = target.with_name(target.stem + ".recording.sqlite")
    try:
        threads = [t.thread_id for t in store.threads()]
        if args.thread not in threads:
            shown = ", ".join(threads[:10]) or "none"
            return _fail(err, f"--thread {args.thread}: no such thread in {store.describe()} (threads: {shown})", 1)
        try:
            branch = load_branch(loaded.graph, store, args.thread, args.checkpoint, args.head)
            expected = recorded_steps(branch)
        except (ReplayError, ValueError) as e:
            return _fail(err, str(e), 1)
        final = plain(dict(branch.final.values))
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(str(recording) + suffix):
                os.remove(str(recording) + suffix)
        export_thread(store, args.thread, recording, branch=branch.final.id, redact=_names(args.redact))
    finally:
        store.close()
    with tempfile.TemporaryDirectory() as work:  # the replay must match now, or the test would never pass
        try:
            check = replay_recording(args.graph, recording, record=record, workdir=work)
            check.assert_steps(expected)
            check.assert_final(final)
        except (AssertionError, ValueError) as e:
            os.remove(recording)
            return _fail(err, "the replay of the unchanged graph does not match the recording, so the test "
                              "could never pass; answer the nodes that are not deterministic (LLM, API, clock, "
                              f"random) from the recording with --record NODE,...\n{e}", 1)
    text = render_test(graph_file=args.graph, test_file=target, recording=recording, record=record,
                       expected=expected, final=final, db=args.db, thread=args.thread,
                       first=branch.start.id if args.checkpoint else None, recorded_nodes=record,
                       edit_steps=frozenset(i for i, st in enumerate(branch.steps) if st.edit))
    target.write_text(text, encoding="utf-8")
    print(f"retrograph: wrote {target} and {recording.name} ({len(expected)} supersteps)", file=out)
    return 0


def _dict_literal(value: dict[str, Any]) -> str:
    """A dict as a literal with one key per line (readable in a diff of the test file)."""
    if not value:
        return "{}"
    rows = []
    for k in sorted(value):
        shown = pprint.pformat(value[k], width=92, sort_dicts=True).replace("\n", "\n    ")
        rows.append(f"    {k!r}: {shown},")
    return "{\n" + "\n".join(rows) + "\n}"


_GENERATED = '"""Regression test generated by `retrograph pytest`'


def _generated(path: Path) -> bool:
    """Whether `path` is a test this command wrote (so writing it again replaces nothing of the user's)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(len(_GENERATED)) == _GENERATED
    except OSError:
        return False


def render_test(*, graph_file: str, test_file: Path, recording: Path, record: tuple[str, ...],
                expected: list[list[tuple[str, Any]]], final: dict[str, Any], db: str, thread: str,
                first: str | None, recorded_nodes: tuple[str, ...], edit_steps: frozenset[int] = frozenset()) -> str:
    """The text of the generated test module; `edit_steps`: indexes of the supersteps that
    were a person's edits (update_state), which the replay makes again."""
    graph_path, _, graph_name = graph_file.partition(":") if not os.path.exists(graph_file) else (graph_file, "", "")
    rel = os.path.relpath(os.path.abspath(graph_path), os.path.abspath(test_file.parent))
    spec = repr(Path(rel).as_posix() + (f":{graph_name}" if graph_name else ""))
    name = re.sub(r"\W", "_", test_file.stem[len("test_"):]) or "run"
    lines: list[str] = []
    for i, tasks in enumerate(expected, start=1):
        if i - 1 in edit_steps:
            who = "an edit (update_state) as " + ", ".join(n for n, _ in tasks) + ", made again"
        else:
            who = ", ".join(f"{n} (from the recording)" if n in recorded_nodes else n for n, _ in tasks)
        lines.append(f"    # superstep {i}: {who}")
        lines.append("    " + pprint.pformat(list(tasks), width=100, sort_dicts=True).replace("\n", "\n    ") + ",")
    steps = "\n".join(lines)
    regen = (f"retrograph pytest {db} --thread {thread} --graph {graph_file}"
             + (f" --record {','.join(record)}" if record else "") + (f" --checkpoint {first}" if first else "")
             + f" -o {test_file.as_posix()}")
    answered = ", ".join(f"`{n}`" for n in record) or "no node"
    return f'''"""Regression test generated by `retrograph pytest` from thread `{thread}`.

It replays the recorded run with {answered} answered from the recording (no LLM or API
call) and every other node run with the current code, and checks that each superstep
writes the same updates and that the run ends in the same state. Messages are compared
without their ids. Regenerate it (after an intended change) with:

    {regen}
"""
from pathlib import Path

from studio.core.regression import replay_recording

HERE = Path(__file__).parent
GRAPH = HERE / {spec}
RECORDING = HERE / {recording.name!r}
RECORD = {list(record)!r}

EXPECTED_STEPS = [
{steps}
]

EXPECTED_FINAL_STATE = {_dict_literal(final)}


def test_{name}_replays_as_recorded(tmp_path):
    replayed = replay_recording(GRAPH, RECORDING, record=RECORD, workdir=tmp_path)
    replayed.assert_steps(EXPECTED_STEPS)
    replayed.assert_final(EXPECTED_FINAL_STATE)
'''
