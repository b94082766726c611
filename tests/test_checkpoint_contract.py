"""The contract every checkpoint store keeps, run against each store; and what the SQLite
store promises beyond it (a file that outlives the saver, size, per-call cost)."""
from __future__ import annotations

import itertools
import os
import random
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from engine.checkpoint import (
    Checkpoint,
    InMemorySaver,
    MemorySaver,
    PendingWrite,
    PlannedTask,
    SqliteSaver,
)
from engine.errors import SerializationError
from engine.types import Send


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def saver(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    if request.param == "postgres":  # a real server (tests/pg_server.py), a fresh schema per test
        from engine.checkpoint.postgres import PostgresSaver

        store = PostgresSaver(request.getfixturevalue("pg_url"))
    else:
        store = InMemorySaver() if request.param == "memory" else SqliteSaver(tmp_path / "checkpoints.db")
    yield store
    store.close()


_clock = itertools.count()


def _stride(saver: Any, full: int, server: int) -> int:
    """A sample step: every item on the in-process stores, fewer on a database server
    (each call there is a network round trip; the suite stays fast)."""
    return server if type(saver).__name__ == "PostgresSaver" else full


class Thread:
    """Builds a thread's checkpoints the way the runtime does: each put names the
    channels it changed by giving them the new checkpoint's id as their version."""

    def __init__(self, saver: Any, thread_id: str = "t") -> None:
        self.saver, self.thread_id, self.count = saver, thread_id, 0

    def put(
        self,
        parent: Checkpoint | None,
        changes: dict[str, Any],
        *,
        appended: dict[str, Sequence[Any]] | None = None,
        **fields: Any,
    ) -> Checkpoint:
        self.count += 1
        cid = f"{self.thread_id}-{self.count:05d}"
        values = dict(parent.values) if parent else {}
        versions = dict(parent.versions) if parent else {}
        values.update(changes)
        versions.update({k: cid for k in changes})
        c = Checkpoint(
            id=cid, thread_id=self.thread_id, parent_id=parent.id if parent else None,
            step=parent.step + 1 if parent else -1, source=fields.pop("source", "loop"),
            created_at=f"2026-01-01T00:00:{next(_clock):09d}", values=values, versions=versions, **fields,
        )
        hints = {k: (parent.versions[k], items) for k, items in (appended or {}).items()} if parent else None
        self.saver.save(c, appended=hints)
        return c


def appender(saver: Any, steps: int, thread_id: str = "t") -> tuple[Thread, list[Checkpoint]]:
    """`steps` checkpoints, each appending one item to `items` (with the append hint)."""
    th = Thread(saver, thread_id)
    c = th.put(None, {"items": ["first"], "count": 0})
    made = [c]
    for i in range(steps - 1):
        item = f"item {i}"
        c = th.put(c, {"items": c.values["items"] + [item], "count": i + 1}, appended={"items": [item]})
        made.append(c)
    return th, made


# -- the contract -----------------------------------------------------------------------


def test_a_checkpoint_comes_back_exactly_as_it_was_put(saver: Any) -> None:
    th = Thread(saver)
    first = th.put(None, {"question": "why?", "answers": []}, source="input")
    task = PlannedTask(id=f"{first.id}/0", name="answer", trigger="edge:ask")
    send = PlannedTask(id="custom-id", name="grade", trigger="send:answer", is_send=True, arg={"n": (1, 2)})
    second = th.put(
        first, {"answers": ["because"]}, barriers={"join:a+b": ("a",)}, tasks=(task, send),
        nodes_ran=("ask",), metadata={"user": "ada", "tags": ["x"]},
    )
    got = saver.load("t", second.id)
    assert got == second
    assert got.next == ("answer", "grade")
    assert saver.load("t", first.id) == first


def test_get_without_an_id_gives_the_latest_and_unknowns_give_none(saver: Any) -> None:
    _, made = appender(saver, 3)
    assert saver.load("t").id == made[-1].id
    assert saver.load("t", "no-such-id") is None
    assert saver.load("nobody") is None
    assert list(saver.history("nobody")) == [] and list(saver.list_headers("nobody")) == []


def test_history_is_listed_newest_first_with_before_and_limit(saver: Any) -> None:
    _, made = appender(saver, 6)
    ids = [c.id for c in made]
    assert [c.id for c in saver.history("t")] == ids[::-1]
    assert [c.id for c in saver.history("t", limit=2)] == ids[:-3:-1]
    assert [c.id for c in saver.history("t", before=ids[3])] == ids[2::-1]
    assert [c.id for c in saver.history("t", before=ids[3], limit=2)] == [ids[2], ids[1]]
    assert [c.id for c in saver.history("t", before=ids[0])] == []
    assert [c.id for c in saver.history("t", before="unknown")] == []
    assert [c.id for c in saver.history("t", limit=0)] == []
    assert [c.values for c in saver.history("t")] == [c.values for c in made[::-1]]


def test_headers_list_the_timeline_without_values(saver: Any) -> None:
    th, made = appender(saver, 4)
    last = th.put(made[-1], {"count": 99}, tasks=(PlannedTask(id="x", name="b", trigger="edge:a"),), nodes_ran=("a",))
    headers = list(saver.list_headers("t", limit=2))
    assert [h.id for h in headers] == [last.id, made[-1].id]
    h = headers[0]
    assert (h.thread_id, h.parent_id, h.step, h.source, h.created_at) == ("t", made[-1].id, last.step, "loop", last.created_at)
    assert h.next == ("b",) and h.nodes_ran == ("a",)
    assert [h.id for h in saver.list_headers("t", before=made[1].id)] == [made[0].id]
    assert [h.id for h in saver.list_headers("t")] == [c.id for c in saver.history("t")]


def test_pending_writes_are_kept_in_order_and_outlive_the_next_checkpoint(saver: Any) -> None:
    th, made = appender(saver, 2)
    base = made[-1]
    saver.save_writes("t", base.id, [PendingWrite(task_id="t1", task_name="a", channel="items", value=["x"])])
    saver.save_writes("t", base.id, [
        PendingWrite(task_id="t2", task_name="b", channel="__send__", value=Send("c", {"k": 1})),
        PendingWrite(task_id="t2", task_name="b", channel="count", value=7),
    ])
    got = saver.pending_writes("t", base.id)
    assert [(w.task_id, w.channel, w.value) for w in got] == [
        ("t1", "items", ["x"]), ("t2", "__send__", Send("c", {"k": 1})), ("t2", "count", 7),
    ]
    assert saver.pending_writes("t", made[0].id) == []
    child = th.put(base, {"count": 8})  # the superstep commits: its writes stay as its record
    assert [(w.task_id, w.channel) for w in saver.pending_writes("t", base.id)] == [
        ("t1", "items"), ("t2", "__send__"), ("t2", "count"),
    ]
    assert saver.pending_writes("t", child.id) == []
    saver.save_writes("t", base.id, [PendingWrite(task_id="t3", task_name="c", channel="count", value=9)])
    assert [w.task_id for w in saver.pending_writes("t", base.id)][-1] == "t3"  # a late write still lands


def test_pending_writes_need_their_checkpoint(saver: Any) -> None:
    with pytest.raises(ValueError, match="no checkpoint `ghost` in thread `t`; save the checkpoint with put"):
        saver.save_writes("t", "ghost", [PendingWrite(task_id="x", task_name="a", channel="c", value=1)])


def test_the_writes_of_one_call_are_kept_all_or_none(saver: Any) -> None:
    for writes in ([PendingWrite(task_id="x", task_name="a", channel="c", value=1)] * 3, []):
        with pytest.raises(ValueError, match="no checkpoint `ghost` in thread `t`"):
            saver.save_writes("t", "ghost", writes)
    _, made = appender(saver, 1)
    with pytest.raises(SerializationError, match=r"`items`: it is a `_thread.lock`"):
        saver.save_writes("t", made[0].id, [
            PendingWrite(task_id="x", task_name="a", channel="count", value=1),
            PendingWrite(task_id="x", task_name="a", channel="items", value=threading.Lock()),
        ])
    assert saver.pending_writes("t", made[0].id) == []


def test_a_plan_or_metadata_that_cannot_be_stored_is_named_and_stores_nothing(saver: Any) -> None:
    th = Thread(saver)
    first = th.put(None, {"a": 1})
    ok = PlannedTask(id="x/0", name="ok", trigger="edge:a")
    with pytest.raises(SerializationError, match=r"Cannot checkpoint `tasks\[1\]`"):
        th.put(first, {"a": 2}, tasks=(ok, PlannedTask(id="x/1", name="bad\ud800", trigger="edge:a")))
    with pytest.raises(SerializationError, match=r"`metadata\['lock'\]`: it is a `_thread.lock`"):
        th.put(first, {"a": 2}, tasks=(ok,), metadata={"lock": threading.Lock()})
    assert [h.id for h in saver.list_headers("t")] == [first.id]


def test_threads_are_listed_most_recent_first_and_deleted_alone(saver: Any) -> None:
    appender(saver, 3, "old")
    appender(saver, 2, "new")
    infos = saver.threads()
    assert [(i.thread_id, i.checkpoints, i.latest_id) for i in infos] == [
        ("new", 2, "new-00002"), ("old", 3, "old-00003"),
    ]
    assert infos[0].updated_at == saver.load("new").created_at
    saver.delete_thread("new")
    assert [i.thread_id for i in saver.threads()] == ["old"]
    assert saver.load("new") is None and list(saver.list_headers("new")) == []
    assert [c.values["items"] for c in saver.history("old", limit=1)] == [["first", "item 0", "item 1"]]
    saver.delete_thread("never-existed")


def test_every_checkpoint_of_an_appended_list_loads_exactly(saver: Any) -> None:
    _, made = appender(saver, 40)
    for c in made:
        assert saver.load("t", c.id).values == c.values


def test_two_branches_from_one_checkpoint_each_keep_their_own_items(saver: Any) -> None:
    th, made = appender(saver, 5)
    fork = made[2]
    left = th.put(fork, {"items": fork.values["items"] + ["left"]}, appended={"items": ["left"]})
    right = th.put(fork, {"items": fork.values["items"] + ["right", "more"]}, appended={"items": ["right", "more"]})
    right2 = th.put(right, {"items": right.values["items"] + ["r2"]}, appended={"items": ["r2"]})
    left2 = th.put(left, {"items": left.values["items"] + ["l2"]}, appended={"items": ["l2"]})
    for c in [*made, left, right, right2, left2]:
        assert saver.load("t", c.id).values["items"] == c.values["items"]
    assert saver.load("t", left2.id).values["items"] == ["first", "item 0", "item 1", "left", "l2"]


def test_long_lists_load_exactly_at_every_step_and_from_every_branch_point(saver: Any) -> None:
    """Past 64 appends the SQLite store packs a chain's segments into chunks; branching
    from inside, at the edge of, and after a chunk must still give exact values."""
    th, made = appender(saver, 200)
    for c in made[::_stride(saver, 1, 10)]:
        assert saver.load("t", c.id).values["items"] == c.values["items"]
    for point in (10, 62, 63, 64, 127, 128, 199)[::_stride(saver, 1, 2)]:
        c = made[point]
        for n in range(70):  # long enough to fill chunks on the branch too
            item = f"branch {point}.{n}"
            c = th.put(c, {"items": c.values["items"] + [item]}, appended={"items": [item]})
            if n in (0, 1, 63, 64, 69):
                assert saver.load("t", c.id).values["items"] == c.values["items"]
    for c in made[::7]:
        assert saver.load("t", c.id).values["items"] == c.values["items"]


def test_a_random_tree_of_appends_and_replacements_loads_exactly(saver: Any) -> None:
    rng = random.Random(4)
    th = Thread(saver)
    made = [th.put(None, {"items": ["root"], "other": 0})]
    for n in range(600 // _stride(saver, 1, 4)):
        parent = made[-1] if rng.random() < 0.98 else rng.choice(made)
        roll = rng.random()
        if roll < 0.99:
            new = [f"{n}.{i}" for i in range(rng.choice([0, 1, 1, 1, 2, 5]))]
            c = th.put(parent, {"items": parent.values["items"] + new}, appended={"items": new})
        elif roll < 0.994:
            c = th.put(parent, {"items": parent.values["items"][1:]})  # not an append
        else:
            c = th.put(parent, {"other": n})
        made.append(c)
    for c in made:
        assert saver.load("t", c.id).values == c.values


def test_a_wrong_append_hint_is_not_trusted(saver: Any) -> None:
    th, made = appender(saver, 2)
    c = made[-1]
    replaced = ["rewritten"]  # the hint claims an append, but the list was replaced
    bad = th.put(c, {"items": replaced}, appended={"items": ["x", "y"]})
    not_a_list = th.put(bad, {"items": ("a", "tuple")}, appended={"items": ["a"]})
    assert saver.load("t", bad.id).values["items"] == ["rewritten"]
    assert saver.load("t", not_a_list.id).values["items"] == ("a", "tuple")


def test_history_is_isolated_from_later_in_place_mutation(saver: Any) -> None:
    th = Thread(saver)
    items, state = ["a"], {"nested": {"k": [1]}}
    c = th.put(None, {"items": items, "state": state})
    items.append("mutated")
    state["nested"]["k"].append(2)
    got = saver.load("t", c.id)
    assert got.values == {"items": ["a"], "state": {"nested": {"k": [1]}}}
    got.values["items"].append("caller mutates what it got")
    assert saver.load("t", c.id).values["items"] == ["a"]


def test_unchanged_channels_refer_to_the_version_that_made_them(saver: Any) -> None:
    th = Thread(saver)
    a = th.put(None, {"x": {"big": list(range(50))}, "y": 1})
    b = th.put(a, {"y": 2})
    c = th.put(b, {"y": 3})
    got = saver.load("t", c.id)
    assert got.values == {"x": {"big": list(range(50))}, "y": 3}
    assert got.versions == {"x": a.id, "y": c.id}
    ghost = Checkpoint(id="t-ghost", thread_id="t", parent_id=c.id, step=9, source="loop", created_at="x",
                       values={"x": 1}, versions={"x": "t-never-saved"})
    with pytest.raises(ValueError, match="channel `x` has version `t-never-saved`, but no value was stored"):
        saver.save(ghost)


def test_a_channel_with_a_version_but_no_value_stays_without_value(saver: Any) -> None:
    c = Checkpoint(id="c1", thread_id="t", parent_id=None, step=0, source="input", created_at="x",
                   values={"a": 1}, versions={"a": "c1", "ephemeral": "c1"})
    saver.save(c)
    got = saver.load("t", "c1")
    assert got.values == {"a": 1} and got.versions == {"a": "c1", "ephemeral": "c1"}


def test_checkpoints_are_immutable(saver: Any) -> None:
    th = Thread(saver)
    c = th.put(None, {"a": 1})
    with pytest.raises(ValueError, match="checkpoint `t-00001` already exists in thread `t`: checkpoints are immutable"):
        saver.save(c)
    assert len(list(saver.history("t"))) == 1


def test_a_value_that_cannot_be_stored_names_its_key_and_stores_nothing(saver: Any) -> None:
    th = Thread(saver)
    first = th.put(None, {"messages": []})
    with pytest.raises(SerializationError, match=r"`messages\[0\]\['socket'\]`: it is a `_thread.lock`"):
        th.put(first, {"messages": [{"socket": threading.Lock()}], "other": 1})
    assert saver.load("t").id == first.id
    assert [h.id for h in saver.list_headers("t")] == [first.id]


def test_history_can_be_read_from_another_thread_while_a_run_writes(saver: Any) -> None:
    """The studio lists history from a worker thread while the run puts checkpoints."""
    errors: list[BaseException] = []

    def write() -> None:
        try:
            appender(saver, 120)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    worker = threading.Thread(target=write)
    worker.start()
    pages = 0
    while worker.is_alive():
        headers = saver.list_headers("t")
        first = next(headers, None)  # a half-consumed listing must not block the writer
        latest = saver.load("t")
        if first is not None and latest is not None:
            assert len(latest.values["items"]) == latest.values["count"] + 1
            pages += 1
    worker.join()
    assert not errors
    assert len(list(saver.list_headers("t"))) == 120


def test_memory_saver_has_its_langgraph_name() -> None:
    assert MemorySaver is InMemorySaver


# -- the SQLite file --------------------------------------------------------------------


def test_a_sqlite_file_outlives_its_saver_and_can_be_continued(tmp_path: Any) -> None:
    path = tmp_path / "run.db"
    with SqliteSaver.from_conn_string(path) as first:
        th, made = appender(first, 5)
        first.save_writes("t", made[-1].id, [PendingWrite(task_id="a", task_name="a", channel="items", value=["p"])])
    with SqliteSaver(str(path)) as again:
        assert [c.values for c in again.history("t")] == [c.values for c in made[::-1]]
        assert [w.value for w in again.pending_writes("t", made[-1].id)] == [["p"]]
        th.saver = again  # continue the same thread after reopening: the caches start cold
        c = made[-1]
        c = th.put(c, {"items": c.values["items"] + ["after reopen"]}, appended={"items": ["after reopen"]})
        assert again.load("t").values["items"][-2:] == ["item 3", "after reopen"]
        assert [w.value for w in again.pending_writes("t", made[-1].id)] == [["p"]]


def test_a_second_connection_reads_while_one_writes(tmp_path: Any) -> None:
    path = tmp_path / "shared.db"
    writer, reader = SqliteSaver(path), SqliteSaver(path)
    errors: list[BaseException] = []

    def write() -> None:
        try:
            appender(writer, 150)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    worker = threading.Thread(target=write)
    worker.start()
    seen = 0
    while worker.is_alive() or seen < 150:
        latest = reader.load("t")
        if latest is not None:  # every snapshot is whole: a value matches its step
            assert latest.values["items"][-1] == ("first" if latest.values["count"] == 0 else f"item {latest.values['count'] - 1}")
            assert len(latest.values["items"]) == latest.values["count"] + 1
            seen = latest.values["count"] + 1
        steps = [h.step for h in reader.list_headers("t", limit=3)]
        assert steps == sorted(steps, reverse=True)
    worker.join()
    assert not errors and seen == 150
    writer.close()
    reader.close()


def _statements(saver: SqliteSaver) -> list[str]:
    seen: list[str] = []
    saver._db().set_trace_callback(seen.append)
    return seen


def test_sqlite_work_per_call_does_not_grow_with_history(tmp_path: Any) -> None:
    saver = SqliteSaver(tmp_path / "long.db")
    th, made = appender(saver, 300)
    seen = _statements(saver)
    saver.load("t", made[5].id)
    early = len(seen)
    seen.clear()
    saver.load("t", made[-1].id)
    # the row, then per list: its chunks, the segments after them, its origin; per other value one read
    assert early <= 7 and len(seen) <= 7
    seen.clear()
    c = made[-1]
    th.put(c, {"items": c.values["items"] + ["x"], "count": -1}, appended={"items": ["x"]})
    assert len(seen) <= 4  # BEGIN, the new items after their base, the checkpoint row, COMMIT
    seen.clear()
    headers = list(saver.list_headers("t", limit=100))
    assert len(headers) == 100 and len(seen) <= 3
    saver.close()


def test_a_superstep_of_small_values_is_one_statement(tmp_path: Any) -> None:
    """The common superstep (a counter, a short text) costs SQLite one INSERT, which is
    its own transaction: nothing is read back."""
    saver = SqliteSaver(tmp_path / "one.db")
    th = Thread(saver)
    c = th.put(None, {"n": 0, "note": "", "items": []})
    c = th.put(c, {"n": 1})
    seen = _statements(saver)
    plan = (PlannedTask(id=f"t-{th.count + 1:05d}/0", name="step", trigger="branch:step"),)
    c = th.put(c, {"n": 2, "note": "x" * 200}, tasks=plan, nodes_ran=("step",))
    assert len(seen) == 1 and seen[0].startswith("INSERT INTO checkpoints")
    assert saver.load("t") == c
    saver.close()


def test_a_saver_goes_on_after_another_deletes_its_thread(tmp_path: Any) -> None:
    """A saver remembers thread and row numbers; another saver on the file can make them stale."""
    path = tmp_path / "shared.db"
    with SqliteSaver(path) as writer, SqliteSaver(path) as other:
        th = Thread(writer)
        c = th.put(None, {"n": 0})
        th.put(c, {"n": 1})
        other.delete_thread("t")
        fresh = th.put(None, {"n": 5})
        assert other.load("t") == fresh
        assert [h.id for h in other.list_headers("t")] == [fresh.id]


def test_storage_grows_with_what_changed_not_with_the_state(tmp_path: Any) -> None:
    """Issue 4: 500 supersteps each appending 200 characters fit in 400 KB, and twice
    the steps take at most twice the room (the payload alone is 100 KB)."""

    def size(steps: int) -> int:
        path = tmp_path / f"size{steps}.db"
        saver = SqliteSaver(path)
        th = Thread(saver)
        c = th.put(None, {"items": []})
        for i in range(steps):
            item = f"{i:06d}" + "x" * 194
            c = th.put(
                c, {"items": c.values["items"] + [item]}, appended={"items": [item]},
                tasks=(PlannedTask(id=f"{th.thread_id}-{th.count + 1:05d}/0", name="append", trigger="edge:append"),),
                nodes_ran=("append",),
            )
        saver._db().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert saver.load("t").values["items"] == c.values["items"]
        saver.close()
        return os.path.getsize(path)

    small, large = size(500), size(1000)
    assert small <= 400 * 1024
    assert large <= 2 * small
