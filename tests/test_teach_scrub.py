"""The scrubber's track (Qt-free): one branch, root to end, cheap on a 100,000-checkpoint thread."""
from __future__ import annotations


from studio.core.history import History
from studio.core.records import TimelineRow
from studio.core.scrub import Track, branch_path


def row(cid: str, parent: str | None, step: int) -> TimelineRow:
    return TimelineRow(id=cid, parent_id=parent, step=step, source="loop", nodes=("n",), next=(), created_at="")


def tree() -> History:
    """a-b-c-d (main line) and a fork from b: b-x-y."""
    return History([row("a", None, 0), row("b", "a", 1), row("c", "b", 2), row("d", "c", 3),
                    row("e1", "b", 2), row("e2", "e1", 3)])


def test_the_branch_through_a_checkpoint_runs_root_to_its_end() -> None:
    h = tree()
    assert branch_path(h, "c", head="d") == ["a", "b", "c", "d"]
    assert branch_path(h, "e1", head="d") == ["a", "b", "e1", "e2"]  # the other branch
    assert branch_path(h, "b", head="e2") == ["a", "b", "e1", "e2"]  # towards the head
    assert branch_path(h, None, head="d") == ["a", "b", "c", "d"]
    assert branch_path(History(), None, None) == []


def test_a_track_grows_at_its_tip_and_switches_branch() -> None:
    h = tree()
    track = Track()
    assert track.update(h, "d", "d") and track.ids == ["a", "b", "c", "d"]
    ids = track.ids
    assert not track.update(h, "b", "d")  # same branch, nothing new
    h.add(row("f", "d", 4))
    assert track.update(h, "f", "f") and track.ids is ids and ids[-1] == "f" and track.index["f"] == 4
    assert track.update(h, "e2", "f") and track.ids == ["a", "b", "e1", "e2"]


def test_a_100000_checkpoint_thread_is_one_walk() -> None:
    rows = [row(f"{i:06d}", f"{i - 1:06d}" if i else None, i) for i in range(100_000)]
    h = History(rows)
    path = branch_path(h, "000010", head="099999")
    track = Track()
    track.update(h, "000010", "099999")
    assert len(path) == 100_000 and track.ids[-1] == "099999"
    h.add(row("100000", "099999", 100_000))
    track.update(h, "100000", "100000")
    assert track.ids[-1] == "100000"
