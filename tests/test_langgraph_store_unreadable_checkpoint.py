"""One unreadable checkpoint in a LangGraph store (written by real LangGraph) hides nothing
else: `retrograph history` and the studio's timeline data list the rest and name the bad
one, on SQLite and PostgreSQL; the file is not changed and no tampered value runs code."""
from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import ormsgpack

from test_langgraph_stores import history, write_postgres, write_sqlite


def _root_ids(rows: list[tuple[Any, ...]]) -> list[str]:
    return sorted(str(r[0]) for r in rows)


def _listed(result: Any) -> tuple[list[str], list[str]]:
    """(ids listed, ids named unreadable) of `history --json`."""
    assert "Traceback" not in result.stderr
    objs = [json.loads(line) for line in result.stdout.splitlines()]
    return ([o["checkpoint_id"] for o in objs if "unreadable" not in o and o["checkpoint_ns"] == ""],
            [o["checkpoint_id"] for o in objs if "unreadable" in o])


def _timeline(target: str) -> tuple[list[str], list[tuple[str, str]]]:
    """What the studio's loader reads for the timeline: rows shown, rows skipped (named)."""
    from engine.checkpoint.reading import open_store
    from studio.session.loading import _read_history

    store = open_store(target)
    try:
        history_, _, unreadable = _read_history(store, "t1")
        return [row.id for row in history_.rows()], unreadable  # the root graph's rows
    finally:
        store.close()


def test_a_corrupt_checkpoint_blob_in_a_langgraph_sqlite_file(tmp_path: Path) -> None:
    db = tmp_path / "lg.sqlite"
    write_sqlite(db, "flow")
    conn = sqlite3.connect(db)
    ids = _root_ids(conn.execute("SELECT checkpoint_id FROM checkpoints WHERE checkpoint_ns = ''").fetchall())
    bad = ids[2]  # the 3rd checkpoint
    conn.execute("UPDATE checkpoints SET checkpoint = x'c1c1c1c1' WHERE checkpoint_id = ?", (bad,))
    conn.commit()
    conn.close()
    before = hashlib.sha256(db.read_bytes()).hexdigest()

    result = history(str(db), "--thread", "t1", "--json")
    assert result.returncode == 0, result.stderr
    listed, named = _listed(result)
    assert named == [bad] and sorted(listed) == [i for i in ids if i != bad]
    (said,) = result.stderr.splitlines()
    assert f"checkpoint {bad} could not be read" in said and "the rest is listed" in said

    plain = history(str(db), "--thread", "t1")  # the text listing too
    assert plain.returncode == 0 and len(plain.stdout.splitlines()) >= len(ids) - 1

    shown, skipped = _timeline(str(db))
    assert sorted(shown) == [i for i in ids if i != bad]
    assert [cid for cid, _ in skipped] == [bad] and "msgpack" in skipped[0][1]
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_a_corrupt_checkpoint_in_a_langgraph_postgres_database(pg_url: str, tmp_path: Path) -> None:
    import psycopg

    write_postgres(pg_url, "flow")
    with psycopg.connect(pg_url, autocommit=True) as conn:
        ids = _root_ids(conn.execute("SELECT checkpoint_id FROM checkpoints WHERE checkpoint_ns = ''").fetchall())
        bad = ids[2]
        conn.execute("UPDATE checkpoints SET checkpoint = '[\"not\", \"a record\"]'::jsonb WHERE checkpoint_id = %s",
                     (bad,))
    result = history(pg_url, "--thread", "t1", "--json")
    assert result.returncode == 0, result.stderr
    listed, named = _listed(result)
    assert named == [bad] and sorted(listed) == [i for i in ids if i != bad]
    shown, skipped = _timeline(pg_url)
    assert sorted(shown) == [i for i in ids if i != bad] and [cid for cid, _ in skipped] == [bad]


def test_a_tampered_postgres_blob_hides_only_the_checkpoints_that_name_it(pg_url: str, tmp_path: Path) -> None:
    import psycopg

    write_postgres(pg_url, "flow")
    marker = tmp_path / "pwned"
    evil = ormsgpack.packb(ormsgpack.Ext(5, ormsgpack.packb(["subprocess", "check_call", [["touch", str(marker)]]])))
    with psycopg.connect(pg_url, autocommit=True) as conn:
        ids = _root_ids(conn.execute("SELECT checkpoint_id FROM checkpoints WHERE checkpoint_ns = ''").fetchall())
        # a trigger blob (read while listing) made unreadable, one value made a call to subprocess
        row = conn.execute("SELECT channel, version FROM checkpoint_blobs WHERE channel LIKE 'join:%%'"
                           " ORDER BY version LIMIT 1").fetchone()
        assert row is not None
        conn.execute("UPDATE checkpoint_blobs SET blob = %s WHERE channel = %s AND version = %s",
                     (b"\xc1\xc1\xc1", row[0], row[1]))
        conn.execute("UPDATE checkpoint_blobs SET blob = %s WHERE channel = 'tags'", (evil,))
        naming = {str(r[0]) for r in conn.execute(
            "SELECT checkpoint_id FROM checkpoints WHERE checkpoint_ns = '' AND checkpoint->'channel_versions'->>%s = %s",
            (row[0], row[1]))}
    assert naming and len(naming) < len(ids)
    result = history(pg_url, "--thread", "t1", "--json", "--values")
    listed, named = _listed(result)
    assert set(named) == naming and sorted(listed) == sorted(set(ids) - naming)
    assert result.returncode == 0
    assert not marker.exists()  # the tampered value ran nothing
