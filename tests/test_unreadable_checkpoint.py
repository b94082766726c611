"""One damaged checkpoint row must not hide the rest of its thread: `retrograph history`,
the studio's timeline load and search skip it, say which one and why, and write nothing."""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sqlite3
from pathlib import Path
from typing import Any, TypedDict

from engine import SqliteSaver, StateGraph
from studio.__main__ import main


class S(TypedDict, total=False):
    n: int
    text: str


def _db(tmp_path: Path, steps: int = 4) -> tuple[Path, list[str]]:
    """A thread "t" with a few checkpoints; returns the file and the ids, newest first."""
    db = tmp_path / "runs.db"
    g = StateGraph(S)
    g.add_node("inc", lambda s: {"n": s.get("n", 0) + 1, "text": f"needle {s.get('n', 0) + 1}"})
    g.set_entry_point("inc")
    g.add_conditional_edges("inc", lambda s: "inc" if s["n"] < steps else "__end__")
    saver = SqliteSaver(str(db))
    app = g.compile(checkpointer=saver)
    app.invoke({"n": 0}, {"configurable": {"thread_id": "t"}})
    ids = [c.id for c in saver.history("t")]
    saver.close()
    return db, ids


def _damage(db: Path, checkpoint_id: str, column: str, value: Any) -> None:
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute(f"UPDATE checkpoints SET {column} = ? WHERE id = ?", (value, checkpoint_id))
        conn.commit()


def _digest(db: Path) -> str:
    return hashlib.sha256(db.read_bytes()).hexdigest()


def _history(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["history", *args])
    return code, out.getvalue(), err.getvalue()


def test_history_lists_the_rest_and_names_the_damaged_checkpoint(tmp_path: Path) -> None:
    db, ids = _db(tmp_path)
    bad = ids[2]
    _damage(db, bad, "step", "not a number")
    before = _digest(db)
    code, out, err = _history(str(db), "--thread", "t", "--json")
    assert code == 0, err
    lines = [json.loads(x) for x in out.splitlines()]
    listed = [x["checkpoint_id"] for x in lines if "unreadable" not in x]
    assert listed == [c for c in ids if c != bad]
    (report,) = [x for x in lines if "unreadable" in x]
    assert report["checkpoint_id"] == bad
    assert f"checkpoint {bad} could not be read" in report["unreadable"]
    assert "the rest is listed" in report["unreadable"]
    assert f"checkpoint {bad} could not be read" in err and "malformed" in err
    assert _digest(db) == before  # nothing written


def test_history_values_skips_a_checkpoint_whose_values_cannot_be_decoded(tmp_path: Path) -> None:
    db, ids = _db(tmp_path)
    bad = ids[1]
    _damage(db, bad, "versions", b"\xff not json")
    code, out, err = _history(str(db), "--thread", "t", "--values")
    assert code == 0, err
    assert bad not in out and ids[0] in out and ids[2] in out
    assert f"checkpoint {bad} could not be read" in err


def test_history_fails_only_when_nothing_could_be_read(tmp_path: Path) -> None:
    db, ids = _db(tmp_path, steps=1)
    for cid in ids:
        _damage(db, cid, "step", "seven")
    code, out, err = _history(str(db), "--thread", "t")
    assert code == 1
    assert all(f"checkpoint {cid} could not be read" in err for cid in ids)


def test_saver_list_without_the_callback_still_raises(tmp_path: Path) -> None:
    """The engine's own contract is unchanged: a bad row fails `list` unless the reader asks to skip."""
    import pytest

    from engine.errors import CheckpointDecodeError

    db, ids = _db(tmp_path)
    _damage(db, ids[1], "extras", b"\x00garbage")
    saver = SqliteSaver(str(db), read_only=True)
    try:
        with pytest.raises(CheckpointDecodeError, match=ids[1]):
            list(saver.history("t"))
        told: list[tuple[str, str]] = []
        got = [c.id for c in saver.history("t", on_unreadable=lambda cid, why: told.append((cid, why)))]
        assert got == [ids[0], *ids[2:]]
        assert [cid for cid, _ in told] == [ids[1]]
    finally:
        saver.close()


from test_studio_support import open_window, settings, studio_loop  # noqa: E402,F401 (fixtures)


def test_the_studio_timeline_lists_the_rest_and_the_banner_names_the_damaged_one(
        open_window: Any, tmp_path: Path) -> None:
    db, ids = _db(tmp_path)
    bad = ids[1]
    _damage(db, bad, "step", "not a number")
    before = _digest(db)
    window = open_window(database=db, thread_id="t", db=tmp_path / "other.sqlite")
    s = window.session
    assert s.thread_id == "t"
    assert [r.id for r in s.history.rows()] == sorted(c for c in ids if c != bad)
    error = window.banner.error
    assert error is not None and f"checkpoint {bad} could not be read" in error.message
    assert "the rest is listed" in error.message
    window.close()
    assert _digest(db) == before


def test_search_skips_a_damaged_checkpoint_and_finds_the_rest(tmp_path: Path) -> None:
    from engine.checkpoint.reading import open_store
    from studio.core.search import StoreSearch

    db, ids = _db(tmp_path)
    bad = ids[1]
    _damage(db, bad, "versions", b"\xff not json")
    store = open_store(str(db))
    try:
        search = StoreSearch("needle")
        hits = []
        while not search.done:
            hits += search.next_page(store, budget=2)
    finally:
        store.close()
    assert sorted(h.checkpoint_id for h in hits) == sorted(c for c in ids[:-2] if c != bad)  # the first two have no text
    assert [cid for cid, _ in search.unreadable] == [bad]
    assert f"checkpoint {bad} could not be read" in search.describe()
