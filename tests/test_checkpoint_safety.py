"""A checkpoint file someone hands you is safe to open: crafted, corrupt, foreign or
newer files give a clear error or inert data, never code execution or a memory blow-up;
and a superstep whose put returned survives a SIGKILL."""
from __future__ import annotations

import hashlib
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path
from typing import Any

import orjson
import pytest

from engine.checkpoint import (
    Checkpoint,
    PendingWrite,
    SqliteSaver,
    UnknownTypeWarning,
    UnknownValue,
)
from engine.errors import (
    CheckpointDecodeError,
    CheckpointError,
    NotARetrographDatabase,
    UnsupportedSchemaVersion,
)

REPO = Path(__file__).resolve().parents[1]


def saved_db(tmp_path: Path, steps: int = 1) -> Path:
    """A real checkpoint file: thread `t`, checkpoints c0001..cN; `notes` (a dict too big
    to be kept inline) and `flag` (kept inline in its row) set once, `items` appended to
    at every step."""
    path = tmp_path / "run.db"
    with SqliteSaver(path) as saver:
        parent = None
        for n in range(1, steps + 1):
            cid = f"c{n:04d}"
            items = [f"item {i}" for i in range(n)]
            versions = {"notes": "c0001", "flag": "c0001", "items": cid}
            c = Checkpoint(id=cid, thread_id="t", parent_id=parent, step=n, source="loop", created_at="2026",
                           values={"notes": {"text": "hello " * 60}, "flag": True, "items": items}, versions=versions)
            saver.save(c, appended={"items": (parent, items[-1:])} if parent else None)
            parent = cid
    return path


def segment_of(path: Path, channel: str, checkpoint: str = "c0001") -> int:
    with sqlite3.connect(path) as conn:
        (versions,) = conn.execute("SELECT versions FROM checkpoints WHERE id = ?", (checkpoint,)).fetchone()
    return orjson.loads(versions)[channel][1]


def craft(path: Path, channel: str, data: bytes) -> None:
    """Replace the stored value of `channel` in c0001, flagged as holding tagged values
    (so the decoder looks at the tags, the path a hostile file would aim for)."""
    poke(path, "UPDATE segments SET data = ? WHERE sid = ?", data, segment_of(path, channel))
    with sqlite3.connect(path) as conn:
        versions = orjson.loads(conn.execute("SELECT versions FROM checkpoints WHERE id = 'c0001'").fetchone()[0])
        versions[channel][4] = 1
        conn.execute("UPDATE checkpoints SET versions = ? WHERE id = 'c0001'", (orjson.dumps(versions),))
    conn.close()


def poke(path: Path, sql: str, *args: Any) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(sql, args)
    conn.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Boom:
    """Unpickling this would run a shell command that creates a marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


# -- data never runs code -----------------------------------------------------------------


def test_a_pickle_in_a_value_is_refused_and_never_run(tmp_path: Path) -> None:
    path, marker = saved_db(tmp_path), tmp_path / "pwned"
    craft(path, "notes", pickle.dumps(Boom(marker)))
    with SqliteSaver(path) as saver, pytest.raises(
        CheckpointDecodeError, match=r"run\.db`, checkpoint 'c0001': channel `notes`: stored value is not valid checkpoint data"
    ):
        saver.load("t", "c0001")
    assert not marker.exists()


def test_a_pickle_in_a_pending_write_is_refused_and_never_run(tmp_path: Path) -> None:
    path, marker = saved_db(tmp_path), tmp_path / "pwned"
    with SqliteSaver(path) as saver:
        saver.save_writes("t", "c0001", [PendingWrite(task_id="x", task_name="a", channel="items", value=1)])
    poke(path, "UPDATE writes SET value = ?", pickle.dumps(Boom(marker)))
    with SqliteSaver(path) as saver, pytest.raises(CheckpointDecodeError, match="a pending write of `c0001`"):
        saver.pending_writes("t", "c0001")
    assert not marker.exists()


@pytest.mark.parametrize("name", ["os.system", "posix.system", "builtins.eval", "subprocess.Popen"])
def test_a_reference_to_a_callable_loads_as_inert_data(tmp_path: Path, name: str) -> None:
    path, marker = saved_db(tmp_path), tmp_path / "pwned"
    craft(path, "notes", orjson.dumps({"$t": "obj", "n": name, "v": {"command": f"touch {marker}"}}))
    with SqliteSaver(path) as saver, pytest.warns(UnknownTypeWarning, match=f"holds a `{name}`, a type not registered"):
        value = saver.load("t", "c0001").values["notes"]
    assert value == UnknownValue(name, {"command": f"touch {marker}"})
    assert not marker.exists()


def test_values_kept_inline_are_as_inert(tmp_path: Path) -> None:
    path, marker = saved_db(tmp_path, steps=2), tmp_path / "pwned"
    crafted = orjson.dumps({"$t": "obj", "n": "os.system", "v": {"command": f"touch {marker}"}}).decode()
    poke(path, "UPDATE checkpoints SET inline = ? WHERE id = 'c0001'", orjson.dumps({"flag": crafted}))
    with SqliteSaver(path) as saver, pytest.warns(UnknownTypeWarning, match="holds a `os.system`"):
        assert saver.load("t", "c0002").values["flag"] == UnknownValue("os.system", {"command": f"touch {marker}"})
    poke(path, "UPDATE checkpoints SET inline = ? WHERE id = 'c0001'", pickle.dumps(Boom(marker)))
    with SqliteSaver(path) as saver, pytest.raises(
        CheckpointDecodeError, match=r"checkpoint 'c0002': its inline values are malformed"
    ):
        saver.load("t", "c0002")
    assert not marker.exists()


def test_a_tag_in_a_value_saved_as_plain_stays_a_plain_dict(tmp_path: Path) -> None:
    path = saved_db(tmp_path)
    crafted = {"$t": "obj", "n": "os.system", "v": {"command": "touch x"}}
    poke(path, "UPDATE segments SET data = ? WHERE sid = ?", orjson.dumps(crafted), segment_of(path, "notes"))
    with SqliteSaver(path) as saver:
        assert saver.load("t").values["notes"] == crafted


def test_a_type_name_never_imports_its_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "imported"
    (tmp_path / "rg_import_marker.py").write_text(f"open({str(marker)!r}, 'w').close()\nclass Payload: pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    path = saved_db(tmp_path)
    craft(path, "notes", orjson.dumps([{"$t": "obj", "n": "rg_import_marker.Payload", "v": {}},
                                       {"$t": "enum", "n": "rg_import_marker.Payload", "v": "X"}]))
    with SqliteSaver(path) as saver, pytest.warns(UnknownTypeWarning):
        value = saver.load("t").values["notes"]
    assert value == [UnknownValue("rg_import_marker.Payload", {}), UnknownValue("rg_import_marker.Payload", "X")]
    assert "rg_import_marker" not in sys.modules
    assert not marker.exists()


# -- absurd sizes never exhaust memory ------------------------------------------------------


def test_a_50_mb_value_is_refused_before_it_reaches_memory(tmp_path: Path) -> None:
    path = saved_db(tmp_path)
    huge = b'"' + b"x" * (50 * 1024 * 1024) + b'"'
    poke(path, "UPDATE segments SET data = ? WHERE sid = ?", huge, segment_of(path, "notes"))
    del huge
    with SqliteSaver(path) as saver:
        tracemalloc.start()
        try:
            with pytest.raises(CheckpointDecodeError, match=r"run\.db` holds a stored value larger than the 32 MB "
                                                             r"limit; it was not loaded\. If you trust the file"):
                saver.load("t", "c0001")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 5 * 1024 * 1024


def test_a_declared_10_gb_size_is_refused_without_reading(tmp_path: Path) -> None:
    path = saved_db(tmp_path)
    with sqlite3.connect(path) as conn:
        versions = orjson.loads(conn.execute("SELECT versions FROM checkpoints WHERE id = 'c0001'").fetchone()[0])
        versions["items"][3] = 10 * 1024**3
        conn.execute("UPDATE checkpoints SET versions = ? WHERE id = 'c0001'", (orjson.dumps(versions),))
    conn.close()
    with SqliteSaver(path) as saver, pytest.raises(
        CheckpointDecodeError, match=r"channel `items` of checkpoint `c0001` takes 10240\.0 MB, over the 32 MB limit"
    ):
        saver.load("t", "c0001")


def test_the_size_limit_is_the_same_for_saving_and_loading(tmp_path: Path) -> None:
    c = Checkpoint(id="c1", thread_id="t", parent_id=None, step=0, source="input", created_at="x",
                   values={"blob": "x" * (2 * 1024 * 1024)}, versions={"blob": "c1"})
    with SqliteSaver(tmp_path / "small.db", max_value_bytes=1024 * 1024) as saver:
        with pytest.raises(TypeError, match=r"Cannot checkpoint `blob`: it takes 2\.0 MB encoded, over the 1 MB limit"):
            saver.save(c)
        assert saver.load("t") is None  # nothing was saved that could not be loaded
    with SqliteSaver(tmp_path / "big.db") as default:
        default.save(c)
    with SqliteSaver(tmp_path / "big.db", max_value_bytes=1024 * 1024) as cautious, pytest.raises(
        CheckpointDecodeError, match=r"channel `blob` of checkpoint `c1` takes 2\.0 MB, over the 1 MB"
    ):
        cautious.load("t")
    with SqliteSaver(tmp_path / "big.db", max_value_bytes=4 * 1024 * 1024) as trusting:
        assert trusting.load("t") == c


# -- broken, foreign and newer files ---------------------------------------------------------


def test_malformed_records_raise_the_decode_error_naming_the_checkpoint(tmp_path: Path) -> None:
    path = saved_db(tmp_path, steps=2)
    poke(path, "UPDATE checkpoints SET versions = x'00ff' WHERE id = 'c0001'")
    poke(path, "UPDATE checkpoints SET next = 'not json' WHERE id = 'c0002'")
    with SqliteSaver(path) as saver:
        with pytest.raises(CheckpointDecodeError, match=r"checkpoint 'c0001': its versions record is malformed"):
            saver.load("t", "c0001")
        with pytest.raises(CheckpointDecodeError, match=r"checkpoint 'c0002': its record is malformed"):
            list(saver.list_headers("t"))


def test_a_missing_value_names_the_channel_and_checkpoint(tmp_path: Path) -> None:
    path = saved_db(tmp_path)
    poke(path, "DELETE FROM segments WHERE sid = ?", segment_of(path, "notes"))
    with SqliteSaver(path) as saver, pytest.raises(
        CheckpointError, match=r"the stored value of channel `notes` of checkpoint `c0001` is missing"
    ):
        saver.load("t")


def test_a_corrupt_file_is_reported_with_what_to_do(tmp_path: Path) -> None:
    path = saved_db(tmp_path, steps=300)
    data = bytearray(path.read_bytes())
    data[4096:] = b"\xaa" * (len(data) - 4096)  # every page after the first is garbage
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"run\.db` is corrupt or truncated \(SQLite: .*\)\. Retrograph changed "
                                              r"nothing; restore it from a backup, or salvage .*\.recover"), SqliteSaver(path) as saver:
        saver.load("t")  # the damage shows when opening or, at the latest, when reading


def test_a_truncated_file_is_reported_before_sqlite_reads_it(tmp_path: Path) -> None:
    path = saved_db(tmp_path, steps=300)
    size = path.stat().st_size
    with open(path, "r+b") as f:
        f.truncate(size // 2)
    before = digest(path)
    with pytest.raises(CheckpointError, match=rf"run\.db` is truncated \({size // 2} bytes; its header says {size}\)"):
        SqliteSaver(path)
    assert digest(path) == before


def test_a_file_from_a_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    path = saved_db(tmp_path)
    poke(path, "PRAGMA user_version = 7")
    before = digest(path)
    with pytest.raises(UnsupportedSchemaVersion, match=r"run\.db` was written by a newer Retrograph \(checkpoint "
                                                       r"schema 7; this version reads schema 1 and older\)\. Upgrade"):
        SqliteSaver(path)
    assert digest(path) == before


def test_a_foreign_sqlite_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    poke(path, "CREATE TABLE users(name TEXT)")
    poke(path, "INSERT INTO users VALUES ('ada')")
    before = digest(path)
    with pytest.raises(NotARetrographDatabase, match=r"app\.db` is a SQLite database but not a Retrograph checkpoint "
                                                     r"file \(its tables: users\)\. Retrograph left it untouched"):
        SqliteSaver(path)
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.db"]


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.csv"
    path.write_text("name,age\nada,36\n")
    with pytest.raises(NotARetrographDatabase, match=r"notes\.csv` is not a SQLite database \(it starts with "
                                                     r"b'name,age\\nada,36\\n'\), so it is not a Retrograph"):
        SqliteSaver(path)
    assert path.read_text() == "name,age\nada,36\n"


def test_a_closed_saver_says_so(tmp_path: Path) -> None:
    saver = SqliteSaver(tmp_path / "x.db")
    saver.close()
    with pytest.raises(CheckpointError, match=r"SqliteSaver\('.*x\.db'\) is closed"):
        saver.load("t")


# -- a committed superstep survives SIGKILL ------------------------------------------------


CHILD = textwrap.dedent("""
    import sys
    sys.path.insert(0, {repo!r})
    from engine.checkpoint import Checkpoint, SqliteSaver
    saver = SqliteSaver({path!r})
    parent, items, n = None, [], 0
    while True:
        n += 1
        cid = f"c{{n:06d}}"
        items = items + [f"item {{n}}" * 20]
        saver.save(Checkpoint(id=cid, thread_id="t", parent_id=parent, step=n, source="loop", created_at="x",
                             values={{"items": items}}, versions={{"items": cid}}),
                  appended={{"items": (parent, items[-1:])}} if parent else None)
        print(cid, flush=True)
        parent = cid
""")


def test_every_reported_put_survives_a_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "killed.db"
    child = subprocess.Popen([sys.executable, "-c", CHILD.format(repo=str(REPO), path=str(path))],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    reported = [child.stdout.readline().strip() for _ in range(60)]
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()
    with SqliteSaver(path) as saver:
        for n, cid in enumerate(reported, start=1):
            assert saver.load("t", cid).values["items"] == [f"item {i}" * 20 for i in range(1, n + 1)]


def test_classes_written_by_this_process_read_back_here_but_not_in_a_fresh_one(tmp_path: Path) -> None:
    """A locally defined pydantic model and dataclass put in the state by the running code
    round-trip through a SqliteSaver in this process; another process opening the file gets
    inert UnknownValues (nothing is imported from the data)."""
    import dataclasses
    from typing import TypedDict

    import pydantic

    from engine import START, StateGraph

    class Order(pydantic.BaseModel):
        sku: str
        qty: int

    @dataclasses.dataclass
    class Note:
        text: str

    class S(TypedDict):
        items: list

    g = StateGraph(S)
    g.add_node("a", lambda s: {"items": [Order(sku="x", qty=2), Note("hi")]})
    g.add_edge(START, "a")
    path = tmp_path / "local.db"
    cfg = {"configurable": {"thread_id": "t"}}
    with SqliteSaver(path) as saver:
        graph = g.compile(checkpointer=saver)
        graph.invoke({"items": []}, cfg)
    with SqliteSaver(path) as reader:  # a second saver of this process reads them back
        assert g.compile(checkpointer=reader).get_state(cfg).values["items"] == [Order(sku="x", qty=2), Note("hi")]
    script = textwrap.dedent(f"""
        import warnings
        from engine.checkpoint import SqliteSaver, UnknownValue
        warnings.simplefilter("ignore")
        with SqliteSaver({str(path)!r}) as saver:
            values = saver.load("t").values["items"]
        print([type(v).__name__ for v in values], [v.data for v in values])
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, check=True)
    assert out.stdout.strip() == "['UnknownValue', 'UnknownValue'] [{'sku': 'x', 'qty': 2}, {'text': 'hi'}]"
