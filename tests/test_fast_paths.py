"""The per-superstep fast paths keep their contracts: the engine's frozen records built
by `fast_frozen_init` behave as the dataclass-made ones; InMemorySaver keeps a plain
plan without encoding it and gives back what the SQLite store gives back; a store subclass that
overrides its own-protocol `save` is still the one the engine calls."""
from __future__ import annotations

import dataclasses
import inspect
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, InMemorySaver, Send, SqliteSaver, StateGraph
from engine.checkpoint.data import Checkpoint, CheckpointHeader, PendingWrite, PlannedTask
from engine.fast_init import fast_frozen_init
from engine.policies import TimeoutPolicy


def _twin(name: str, frozen: bool = True) -> tuple[type, type]:
    """Two identical frozen dataclasses, one with the fast __init__."""
    def make() -> type:
        return dataclasses.make_dataclass(
            name, [("a", int), ("b", str, dataclasses.field(default="x")),
                   ("c", dict, dataclasses.field(default_factory=dict)),
                   ("d", int, dataclasses.field(default=0, kw_only=True))], frozen=frozen)
    return make(), fast_frozen_init(make())


def test_fast_init_behaves_as_the_dataclass_init() -> None:
    plain, fast = _twin("R")
    assert str(inspect.signature(fast)) == str(inspect.signature(plain))
    for args, kwargs in [((1,), {}), ((1, "y"), {"d": 3}), ((), {"a": 2, "c": {"k": 1}})]:
        p, f = plain(*args, **kwargs), fast(*args, **kwargs)
        assert repr(p).replace("R(", "") == repr(f).replace("R(", "") and dataclasses.asdict(p) == dataclasses.asdict(f)
    assert fast(1).c is not fast(1).c, "a default factory runs once per instance"
    for bad_args, bad_kwargs in [((), {}), ((1,), {"e": 1}), ((1, "y", {}, 4), {})]:
        with pytest.raises(TypeError) as p_err:
            plain(*bad_args, **bad_kwargs)
        with pytest.raises(TypeError) as f_err:
            fast(*bad_args, **bad_kwargs)
        assert str(p_err.value).split("()", 1)[-1] == str(f_err.value).split("()", 1)[-1]
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast(1).a = 2  # type: ignore[misc]
    assert fast(1) == fast(1) and hash(fast(1, c=())) == hash(fast(1, c=()))  # type: ignore[arg-type]
    assert dataclasses.replace(fast(1), b="z").b == "z"


def test_fast_init_leaves_what_it_cannot_serve() -> None:
    @dataclasses.dataclass(frozen=True)
    class Post:
        a: int

        def __post_init__(self) -> None:
            object.__setattr__(self, "a", self.a * 2)

    init = Post.__init__
    assert fast_frozen_init(Post).__init__ is init and Post(2).a == 4
    mutable, _ = _twin("M", frozen=False)
    init = mutable.__init__
    assert fast_frozen_init(mutable).__init__ is init


@pytest.mark.parametrize("record", [Checkpoint, CheckpointHeader, PendingWrite, PlannedTask])
def test_the_engine_records_keep_their_signature(record: type) -> None:
    fields = dataclasses.fields(record)
    params = inspect.signature(record).parameters
    assert list(params) == [f.name for f in fields]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())


def _plans() -> list[tuple[PlannedTask, ...]]:
    return [
        (PlannedTask(id="c/0", name="a", trigger="edge:x"), PlannedTask(id="other", name="b", trigger="join:a+b")),
        (PlannedTask(id="c/0", name="w", trigger="send:a", is_send=True, arg={"i": 1}),),
        (PlannedTask(id="c/0", name="w", trigger="send:a", is_send=True, arg=1, timeout=TimeoutPolicy(run_timeout=2.0)),),
        (),
    ]


@pytest.mark.parametrize("metadata", [{}, {"user": "x"}])
def test_memory_gives_back_the_plan_the_sqlite_store_gives_back(tmp_path: Path, metadata: dict) -> None:
    mem, lite = InMemorySaver(), SqliteSaver(str(tmp_path / "c.sqlite"))
    for i, plan in enumerate(_plans()):
        cid = f"c{i}"
        plan = tuple(dataclasses.replace(t, id=t.id.replace("c/", f"{cid}/")) for t in plan)
        ckpt = Checkpoint(id=cid, thread_id="t", parent_id=None, step=0, source="loop", created_at="2026-01-01",
                          values={"n": i}, versions={"n": cid}, tasks=plan, metadata=metadata)
        for store in (mem, lite):
            store.save(ckpt)
        got_mem, got_lite = mem.load("t", cid), lite.load("t", cid)
        assert got_mem == got_lite and got_mem.tasks == plan and got_mem.next == tuple(t.name for t in plan)
        assert [h.next for h in mem.list_headers("t")] == [h.next for h in lite.list_headers("t")]
    lite.close()


class Recording(InMemorySaver):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[int] = []

    def save(self, checkpoint: Any, *, appended: Any = None) -> None:
        self.seen.append(checkpoint.step)
        super().save(checkpoint, appended=appended)


def test_a_store_subclass_overriding_save_is_the_one_the_engine_calls() -> None:
    class S(TypedDict):
        log: Annotated[list, operator.add]

    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_conditional_edges(START, lambda s: [Send("a", s)])
    g.add_edge("a", END)
    store = Recording()
    graph = g.compile(checkpointer=store)
    graph.invoke({"log": []}, {"configurable": {"thread_id": "t"}})
    assert store.seen == [-1, 0, 1] and graph.get_state({"configurable": {"thread_id": "t"}}).values == {"log": ["a"]}
    # LangGraph's put goes on to the same override
    cfg = store.put({"configurable": {"thread_id": "u", "checkpoint_ns": ""}},
                    {"id": "x1", "ts": "2026-01-01", "channel_values": {"n": 1}, "channel_versions": {}},
                    {"step": 5, "source": "update"}, {})
    assert cfg["configurable"]["checkpoint_id"] == "x1" and store.seen[-1] == 5
