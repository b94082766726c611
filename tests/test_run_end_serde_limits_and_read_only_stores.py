"""Issue 12, engine side: the run always ends with RunFinished (24), the serializer's depth
limit and round trips (23, 25), shared stored segments decoded once (17), read-only opening (22)."""
from __future__ import annotations

import asyncio
import enum
import operator
import sqlite3
from typing import Annotated, TypedDict

import pytest

from engine import END, START, SqliteSaver, StateGraph
from engine.runtime.events import RunFinished, TaskFinished


class _Par(TypedDict):
    items: Annotated[list, operator.add]


class Color(enum.Enum):
    RED = "r"
    BLUE = "b"


class _Colored(TypedDict):
    color: Color
    seen: list[Color]


class _FlakySaver(SqliteSaver):
    """A real SQLite saver whose second `put_writes` fails (a full disk, say)."""

    calls = 0

    def put_writes(self, thread_id, checkpoint_id, writes):  # noqa: D102
        type(self).calls += 1
        if type(self).calls == 2:
            raise OSError("disk full")
        return super().put_writes(thread_id, checkpoint_id, writes)


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_run_finished_is_last_when_saving_writes_fails(tmp_path, kind) -> None:
    async def a_async(s):
        return {"items": ["a"]}

    async def b_async(s):
        await asyncio.sleep(0.01)
        return {"items": ["b"]}

    def a_sync(s):
        return {"items": ["a"]}

    def b_sync(s):
        return {"items": ["b"]}

    fa, fb = (a_async, b_async) if kind == "async" else (a_sync, b_sync)
    b = StateGraph(_Par)
    b.add_node("a", fa)
    b.add_node("b", fb)
    b.add_edge(START, "a")
    b.add_edge(START, "b")
    b.add_edge("a", END)
    b.add_edge("b", END)
    _FlakySaver.calls = 0
    saver = _FlakySaver(str(tmp_path / "x.sqlite"))
    graph = b.compile(checkpointer=saver)
    from engine.runtime.run import Run

    run = Run(graph, {"items": []}, {"configurable": {"thread_id": "t"}})
    events = []
    run.subscribe(events.append)

    async def drive():
        await run.start()
        await run.superstep()  # __start__
        with pytest.raises(OSError, match="disk full"):
            await run.superstep()

    asyncio.run(drive())
    saver.close()
    assert isinstance(events[-1], RunFinished), [type(e).__name__ for e in events[-4:]]
    assert events[-1].status == "failed"
    assert sorted(e.name for e in events if isinstance(e, TaskFinished) and e.name in "ab") == ["a", "b"]
    assert run.status == "failed"


def test_deep_untagged_list_hits_the_depth_limit() -> None:
    from engine.checkpoint.serde import MAX_DEPTH, Serializer
    from engine.errors import CheckpointDecodeError

    data = b"[" * 1000 + b"]" * 1000
    with pytest.raises(CheckpointDecodeError, match=f"more than {MAX_DEPTH} levels"):
        Serializer().loads(data)
    with pytest.raises(CheckpointDecodeError, match="levels deep"):
        Serializer().loads(data, plain=True)
    wide = b"[" + b",".join([b"[1]"] * 5000) + b"]"  # many brackets, shallow: still loads
    assert len(Serializer().loads(wide)) == 5000


def test_deep_list_in_a_sqlite_file_is_refused(tmp_path) -> None:
    from engine.errors import CheckpointDecodeError

    class S(TypedDict):
        x: list

    b = StateGraph(S)
    b.add_node("n", lambda s: {"x": [1]})
    b.add_edge(START, "n")
    path = tmp_path / "deep.sqlite"
    saver = SqliteSaver(str(path))
    b.compile(checkpointer=saver).invoke({"x": []}, {"configurable": {"thread_id": "t"}})
    saver.close()
    conn = sqlite3.connect(path)
    deep = b"[" * 1000 + b"]" * 1000
    n = conn.execute("UPDATE segments SET data = ?", (deep,)).rowcount
    if n == 0:  # small values live inline in the row
        conn.execute("UPDATE checkpoints SET inline = ?", (b'{"x":"' + deep + b'"}',))
    conn.commit()
    conn.close()
    saver = SqliteSaver(str(path))
    try:
        with pytest.raises(CheckpointDecodeError, match="levels deep"):
            saver.load("t")
    finally:
        saver.close()


def test_zoneinfo_and_fold_round_trip() -> None:
    import datetime as dt
    from zoneinfo import ZoneInfo

    from engine.checkpoint.serde import Serializer

    zone = ZoneInfo("America/New_York")
    repeated = dt.datetime(2024, 11, 3, 1, 30, fold=1, tzinfo=zone)  # the second 01:30
    naive = dt.datetime(2024, 11, 3, 1, 30, fold=1)
    s = Serializer()
    back = s.loads(s.dumps([repeated, naive]))
    assert back[0].tzinfo == zone and back[0].fold == 1 and back[0] == repeated
    assert back[0].utcoffset() == repeated.utcoffset()
    assert back[1].fold == 1 and back[1].tzinfo is None


def test_unknown_tag_is_written_back_unchanged() -> None:
    import orjson

    from engine.checkpoint.registry import UnknownTypeWarning
    from engine.checkpoint.serde import Serializer

    stored = {"k": {"$t": "future_thing", "v": [1, 2], "extra": "x"}}
    s = Serializer()
    with pytest.warns(UnknownTypeWarning):
        value = s.loads(orjson.dumps(stored))
    assert orjson.loads(s.dumps(value)) == stored


def test_enum_in_the_state_schema_is_registered(tmp_path) -> None:
    b = StateGraph(_Colored)
    b.add_node("n", lambda s: {"color": Color.BLUE, "seen": [Color.RED]})
    b.add_edge(START, "n")
    saver = SqliteSaver(str(tmp_path / "e.sqlite"))
    graph = b.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"color": Color.RED, "seen": []}, cfg)
    assert graph.get_state(cfg).values == {"color": Color.BLUE, "seen": [Color.RED]}
    saver.close()


def test_reducer_type_error_names_node_and_key() -> None:
    class S(TypedDict):
        items: Annotated[list, operator.add]

    b = StateGraph(S)
    b.add_node("a", lambda s: {"items": ["ok"]})
    b.add_node("bad", lambda s: {"items": "not a list"})
    b.add_edge(START, "a")
    b.add_edge(START, "bad")
    with pytest.raises(TypeError) as info:
        b.compile().invoke({"items": []})
    text = str(info.value)
    assert "`bad`" in text and "`items`" in text and "operator.add" in text, text


class _Four(TypedDict):
    a: list
    b: list
    c: list
    d: list


def _four_channel_file(tmp_path, size: int):
    """A real file whose last checkpoint has four big list channels."""
    b = StateGraph(_Four)
    b.add_node("n", lambda s: {k: ["x" * size] for k in "abcd"})
    b.add_edge(START, "n")
    path = tmp_path / "shared.sqlite"
    saver = SqliteSaver(str(path))
    b.compile(checkpointer=saver).invoke({k: [] for k in "abcd"}, {"configurable": {"thread_id": "t"}})
    saver.close()
    return path


def test_shared_segment_is_decoded_once(tmp_path) -> None:
    import orjson

    path = _four_channel_file(tmp_path, 1000)
    conn = sqlite3.connect(path)
    cid, versions = conn.execute("SELECT cid, versions FROM checkpoints ORDER BY cid DESC LIMIT 1").fetchone()
    record = orjson.loads(versions)
    record["b"] = record["c"] = record["d"] = record["a"]  # a crafted file: four channels, one segment
    conn.execute("UPDATE checkpoints SET versions = ? WHERE cid = ?", (orjson.dumps(record), cid))
    conn.commit()
    conn.close()
    saver = SqliteSaver(str(path))
    try:
        values = saver.load("t").values
    finally:
        saver.close()
    assert values["a"] == ["x" * 1000]
    assert values["a"] is values["b"] is values["c"] is values["d"]  # one decode, shared


def test_total_decoded_size_of_a_checkpoint_is_bounded(tmp_path) -> None:
    from engine.errors import CheckpointDecodeError

    path = _four_channel_file(tmp_path, 3000)
    saver = SqliteSaver(str(path), max_value_bytes=3100)
    try:
        assert saver.max_checkpoint_bytes == 4 * 3100
        assert saver.load("t").values["a"] == ["x" * 3000]  # 4 x 3 KB fits in 12.4 KB
        saver.max_checkpoint_bytes = 9000
        with pytest.raises(CheckpointDecodeError, match="in all"):
            saver.load("t")
    finally:
        saver.close()


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _retrograph_file(folder):
    class S(TypedDict):
        n: int

    b = StateGraph(S)
    b.add_node("inc", lambda s: {"n": s["n"] + 1})
    b.add_edge(START, "inc")
    path = folder / "mine.sqlite"
    saver = SqliteSaver(str(path))
    b.compile(checkpointer=saver).invoke({"n": 1}, {"configurable": {"thread_id": "t"}})
    saver.close()
    return path


def test_read_only_open_changes_and_creates_nothing(tmp_path) -> None:
    from engine.errors import CheckpointError, NotARetrographDatabase

    folder = tmp_path / "files"
    folder.mkdir()
    path = _retrograph_file(folder)
    (folder / "empty.sqlite").write_bytes(b"")
    foreign = sqlite3.connect(folder / "foreign.sqlite")
    foreign.execute("PRAGMA user_version = 7")
    foreign.close()
    before = _snapshot(folder)
    saver = SqliteSaver(str(path), read_only=True)
    assert saver.load("t").values == {"n": 2}
    assert [h.step for h in saver.list_headers("t")] == [1, 0, -1]
    with pytest.raises(CheckpointError, match="read-only"):
        saver.delete_thread("t")
    saver.close()
    for name in ("empty.sqlite", "foreign.sqlite"):
        with pytest.raises(NotARetrographDatabase, match="untouched"):
            SqliteSaver(str(folder / name), read_only=True)
    with pytest.raises(CheckpointError, match="no such file"):
        SqliteSaver(str(folder / "absent.sqlite"), read_only=True)
    assert _snapshot(folder) == before  # no byte changed, no -wal/-shm/new file


def test_read_only_open_leaves_a_foreign_wal_alone_and_sees_new_writes(tmp_path) -> None:
    folder = tmp_path / "files"
    folder.mkdir()
    path = _retrograph_file(folder)
    writer = sqlite3.connect(path, isolation_level=None)  # another process, mid-run
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("UPDATE checkpoints SET source = source")
    main_bytes = path.read_bytes()
    wal = (folder / "mine.sqlite-wal").read_bytes()
    saver = SqliteSaver(str(path), read_only=True)
    assert saver.load("t").values == {"n": 2}
    saver.close()
    assert path.read_bytes() == main_bytes  # the WAL was not checkpointed into the file
    assert (folder / "mine.sqlite-wal").read_bytes() == wal
    writer.close()


def test_read_only_database_can_be_browsed(tmp_path) -> None:
    import os

    folder = tmp_path / "ro"
    folder.mkdir()
    path = _retrograph_file(folder)
    os.chmod(path, 0o444)
    os.chmod(folder, 0o555)
    try:
        saver = SqliteSaver(str(path), read_only=True)
        assert saver.load("t").values == {"n": 2}
        saver.close()
        assert sorted(p.name for p in folder.iterdir()) == ["mine.sqlite"]
    finally:
        os.chmod(folder, 0o755)


def test_read_only_saver_sees_checkpoints_written_after_it_opened(tmp_path) -> None:
    path = _retrograph_file(tmp_path)
    reader = SqliteSaver(str(path), read_only=True)
    assert len(list(reader.list_headers("t"))) == 3
    writer = SqliteSaver(str(path))
    base = writer.load("t")
    from dataclasses import replace

    writer.save(replace(base, id=base.id[:-1] + "z", parent_id=base.id, step=base.step + 1))
    assert len(list(reader.list_headers("t"))) == 4
    writer.close()
    assert len(list(reader.list_headers("t"))) == 4
    reader.close()


def test_cancel_abandons_a_stuck_sync_node_and_asyncio_run_returns() -> None:
    import threading

    from engine.runtime.run import Run

    entered, release = threading.Event(), threading.Event()

    def stuck(s):
        entered.set()
        release.wait(60)  # a node that never returns (released at the end of the test)
        return {"items": ["late"]}

    def quick(s):
        return {"items": ["quick"]}

    b = StateGraph(_Par)
    b.add_node("stuck", stuck)
    b.add_node("quick", quick)
    b.add_edge(START, "stuck")
    b.add_edge(START, "quick")
    run = Run(b.compile(), {"items": []})
    events = []
    run.subscribe(events.append)

    async def drive():
        await run.start()
        await run.superstep()  # __start__
        task = asyncio.ensure_future(run.run_pending())  # a batch of two sync tasks
        while not entered.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(drive())  # returns: the stuck thread is not the loop's executor's
        assert run.status == "cancelled"
        assert isinstance(events[-1], RunFinished) and events[-1].status == "cancelled"
        stuck_threads = [t for t in threading.enumerate() if t.is_alive() and t.name.startswith("engine-worker")]
        assert stuck_threads and all(t.daemon for t in stuck_threads)  # exit never waits for them
    finally:
        release.set()


def _chain(saver):
    builder = StateGraph(_Par)
    for name in ("a", "b", "c"):
        builder.add_node(name, lambda s, name=name: {"items": [name]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", "c")
    builder.add_edge("c", END)
    return builder.compile(checkpointer=saver)


def test_a_fork_that_keeps_its_step_goes_on_at_n_plus_1(tmp_path) -> None:
    graph = _chain(SqliteSaver(str(tmp_path / "t.db")))
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"items": []}, config)
    old = next(s for s in graph.get_state_history(config) if s.next == ("b",))
    old_id, n = old.config["configurable"]["checkpoint_id"], old.metadata["step"]
    before = {s.config["configurable"]["checkpoint_id"] for s in graph.get_state_history(config)}

    async def one_step() -> None:
        run = graph.new_run(None, old.config)
        run.set_options(fork_same_step=True)  # what the studio asks for
        await run.start()
        await run.run_task()
        run.commit()

    asyncio.run(one_step())
    new = [s for s in graph.get_state_history(config) if s.config["configurable"]["checkpoint_id"] not in before]
    fork, step = new[1], new[0]  # newest first
    assert (fork.metadata["step"], fork.metadata["source"], fork.parent_config["configurable"]["checkpoint_id"]) \
        == (n, "fork", old_id)  # the copy keeps step N: it owns the branch's writes
    assert (step.metadata["step"], step.metadata["source"], step.values["items"]) == (n + 1, "loop", ["a", "b"])
    # invoke() keeps LangGraph's numbering: the "fork" copy at N+1, the node at N+2
    graph.invoke(None, old.config)
    latest = list(graph.get_state_history(config))[:3]
    assert [(s.metadata["source"], s.metadata["step"]) for s in latest] == [("loop", n + 3), ("loop", n + 2),
                                                                             ("fork", n + 1)]
