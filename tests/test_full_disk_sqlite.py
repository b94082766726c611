"""A SQLite checkpoint file after a full disk: SQLite decides whether it is whole.

A run on a tiny file system stops with "disk is full". Its newest pages are then in the
`-wal` only (the main file is shorter than its header says). Once space is back, every
reader lists every checkpoint, gapless, without changing the file or its -wal, and the
next run goes on. A -wal that is really damaged is refused with SQLite's own verdict.
Runs on a real tmpfs (mounting needs root: skipped with the reason elsewhere; CI is root)."""
from __future__ import annotations

import hashlib
import io
import operator
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from engine import END, START, SqliteSaver, StateGraph
from engine.errors import CheckpointError
from studio.cli.history import cmd_history
from studio.cli.commands import parse_args


class S(TypedDict):
    log: Annotated[list, operator.add]
    n: int


def _graph(db: Path, limit: int = 10**6) -> object:
    g = StateGraph(S)
    g.add_node("step", lambda s: {"log": ["x" * 3000 + str(s["n"])], "n": s["n"] + 1})
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < limit else END, ["step", END])
    return g.compile(checkpointer=SqliteSaver(str(db)))


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 3 MB tmpfs, unmounted at the end."""
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (CI runs as root)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill_until_full(folder: Path) -> Path:
    """A run that stops on the full disk, then the space a filler file held is given back."""
    filler = folder / "filler"
    filler.write_bytes(b"\0" * 600_000)
    db = folder / "runs.sqlite"
    graph = _graph(db)
    with pytest.raises(CheckpointError, match="disk is full"):
        graph.invoke({"log": [], "n": 0}, {"configurable": {"thread_id": "t"}, "recursion_limit": 10**6})
    graph.checkpointer.close()  # its final checkpointing fails too: the -wal stays with the pages
    filler.unlink()
    return db


def _digest(*paths: Path) -> list[str]:
    return [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]


def test_nothing_is_reported_lost_after_a_full_disk(small_fs: Path) -> None:
    db = _fill_until_full(small_fs)
    wal = Path(f"{db}-wal")
    head = db.read_bytes()[:100]
    in_header = int.from_bytes(head[28:32], "big") * int.from_bytes(head[16:18], "big")
    assert db.stat().st_size < in_header and wal.stat().st_size > 32  # the header check alone says "truncated"
    before = _digest(db, wal)

    out, err = io.StringIO(), io.StringIO()
    assert cmd_history(parse_args(["history", str(db)]), out=out, err=err) == 0, err.getvalue()
    (line,) = out.getvalue().splitlines()
    count = int(line.split("\t")[1].split()[0])
    assert count > 20, line

    reader = SqliteSaver(str(db), read_only=True)  # as the studio reads it
    config = {"configurable": {"thread_id": "t"}}
    steps = [c.metadata["step"] for c in reader.list(config)]
    assert len(steps) == count and sorted(steps) == list(range(-1, count - 1))  # gapless
    reader.close()
    assert _digest(db, wal) == before  # reading changed neither the file nor its -wal

    again = _graph(db, limit=count + 2)  # the next run goes on from the last checkpoint
    result = again.invoke(None, {**config, "recursion_limit": 10**6})
    assert result["n"] == count + 2 and len(result["log"]) == count + 2


def test_a_damaged_wal_is_refused_with_sqlites_verdict(small_fs: Path) -> None:
    db = _fill_until_full(small_fs)
    wal = Path(f"{db}-wal")
    data = bytearray(wal.read_bytes())
    data[32:len(data) // 2] = b"\xff" * (len(data) // 2 - 32)  # the frames that hold the newest pages
    wal.write_bytes(bytes(data))
    Path(f"{db}-shm").unlink(missing_ok=True)
    before = _digest(db, wal)
    out, err = io.StringIO(), io.StringIO()
    assert cmd_history(parse_args(["history", str(db)]), out=out, err=err) != 0
    (said,) = err.getvalue().splitlines()
    assert "is truncated" in said or "SQLite's quick_check" in said, said
    assert "restore it from a backup" in said
    assert _digest(db, wal) == before
    assert not Path(f"{db}-shm").exists()  # the check ran on a copy: nothing created beside the file


def test_a_file_cut_short_without_a_wal_is_still_named_truncated(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    graph = _graph(db, limit=40)
    graph.invoke({"log": [], "n": 0}, {"configurable": {"thread_id": "t"}})
    graph.checkpointer.close()  # the -wal goes into the file
    assert not Path(f"{db}-wal").exists()
    whole = db.read_bytes()
    db.write_bytes(whole[: len(whole) // 3])
    with pytest.raises(CheckpointError, match=r"is truncated .*no -wal file beside it holds the rest"):
        SqliteSaver(str(db))
    assert len(db.read_bytes()) == len(whole) // 3
