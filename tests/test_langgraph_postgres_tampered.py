"""A LangGraph PostgreSQL checkpoint database (written by real LangGraph), tampered with in
each way its SQLite files were: msgpack ext types naming os.system / subprocess / eval,
`type = 'pickle'` rows holding a real pickle that would run a command, LangChain `lc`
constructor JSON naming os.system or eval, 200,000-deep nesting, lengths claiming 4 GB,
bad UTF-8, NaN and infinity, unknown types, garbage, and parent links that point nowhere,
at themselves or round in a circle.

For each: `retrograph history --json --values` runs no code (the marker file the payload
would create never appears), finishes (a fresh process under a timeout for the deep and
huge ones), writes nothing (every row of every table in the schema is the same after),
prints one line naming each checkpoint it cannot read, lists every other checkpoint, and
its JSON is strict (no NaN literal)."""
from __future__ import annotations

import json
import os
import pickle
import struct
from pathlib import Path
from typing import Any

import ormsgpack
import pytest

from test_langgraph_stores import history, write_postgres

MARKER_NAME = "pwned"


class _Evil:
    """Unpickling this runs `touch MARKER`."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (f"touch {self.marker}",))


def _ext(code: int, payload: Any) -> bytes:
    return ormsgpack.packb(ormsgpack.Ext(code, ormsgpack.packb(payload)))


def _lc(ident: list[str], kwargs: dict[str, Any]) -> bytes:
    return json.dumps({"lc": 1, "type": "constructor", "id": ident, "kwargs": kwargs}).encode()


def _float64(value: float) -> bytes:
    return b"\xcb" + struct.pack(">d", value)


def _cases(marker: Path) -> dict[str, tuple[str, bytes, str]]:
    """name -> (the blob's type, its bytes, "inert": read as plain data | "named": the
    checkpoints that name the blob are unreadable, each named)."""
    touch = f"touch {marker}"
    return {
        "ext 0 os.system": ("msgpack", _ext(0, ["os", "system", touch]), "inert"),
        "ext 1 subprocess.check_call": ("msgpack", _ext(1, ["subprocess", "check_call", [["touch", str(marker)]]]),
                                        "inert"),
        "ext 2 os.system kwargs": ("msgpack", _ext(2, ["os", "system", {"command": touch}]), "inert"),
        "ext 3 eval method": ("msgpack", _ext(3, ["builtins", "eval", f"__import__('os').system('{touch}')",
                                                  "__call__"]), "inert"),
        "ext 5 pydantic eval": ("msgpack", _ext(5, ["builtins", "eval", {"x": 1}, "model_validate_json"]), "inert"),
        "ext 6 numpy": ("msgpack", _ext(6, ["O", [1], b"abc", "C"]), "inert"),
        "lc os.system in msgpack": ("msgpack", ormsgpack.packb(json.loads(_lc(["os", "system"], {"command": touch}))),
                                    "inert"),
        "lc os.system as json": ("json", _lc(["os", "system"], {"command": touch}), "inert"),
        "lc eval as json": ("json", _lc(["builtins", "eval"], {"source": touch}), "inert"),
        "NaN and infinity": ("msgpack", b"\x93" + _float64(float("nan")) + _float64(float("inf"))
                             + _float64(float("-inf")), "inert"),
        "type pickle": ("pickle", pickle.dumps(_Evil(marker)), "named"),
        "unknown type": ("marshal", b"\xe3\x00", "named"),
        "200k-deep msgpack": ("msgpack", b"\x91" * 200_000 + b"\xc0", "named"),
        "200k-deep json": ("json", b"[" * 200_000 + b"]" * 200_000, "named"),
        "array of 4G items": ("msgpack", b"\xdd\xff\xff\xff\xff", "named"),
        "bin of 4 GB": ("msgpack", b"\xc6\xff\xff\xff\xff", "named"),
        "map of 4G pairs": ("msgpack", b"\xdf\xff\xff\xff\xff", "named"),
        "ext of 4 GB": ("msgpack", b"\xc9\xff\xff\xff\xff\x01", "named"),
        "bad UTF-8 msgpack": ("msgpack", b"\xa4\xff\xfe\xfd\xfc", "named"),
        "bad UTF-8 json": ("json", b'"\xff\xfe"', "named"),
        "NaN as json": ("json", b"NaN", "named"),
        "garbage": ("msgpack", b"\xc1\xc1\xc1", "named"),
    }


FRESH = {"type pickle", "200k-deep msgpack", "200k-deep json", "array of 4G items", "ext 0 os.system"}
"""Run in a fresh process (a timeout, and nothing of LangGraph or LangChain imported)."""


def _dump(url: str) -> dict[str, list[str]]:
    """Every row of every table in the URL's schema."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(url) as conn:
        tables = [r[0] for r in conn.execute("SELECT table_name FROM information_schema.tables"
                                             " WHERE table_schema = current_schema() ORDER BY 1")]
        return {t: sorted(map(repr, conn.execute(sql.SQL("SELECT * FROM {}").format(sql.Identifier(t))).fetchall()))
                for t in tables}


def _strict(line: str) -> dict[str, Any]:
    def refuse(constant: str) -> Any:
        raise AssertionError(f"not strict JSON: {constant} in {line[:200]}")

    return json.loads(line, parse_constant=refuse)


def _ids(url: str, *, root_only: bool = False) -> list[str]:
    """The thread's checkpoints (of every namespace, or of the root graph)."""
    import psycopg

    where = " AND checkpoint_ns = ''" if root_only else ""
    with psycopg.connect(url) as conn:
        return sorted(str(r[0]) for r in conn.execute("SELECT checkpoint_id FROM checkpoints WHERE thread_id = 't1'"
                                                       + where))


def _check(url: str, marker: Path, named_expected: set[str], *, fresh: bool) -> list[dict[str, Any]]:
    """The rule, for one tampered database; returns the listed checkpoints."""
    before = _dump(url)
    result = history(url, "--thread", "t1", "--json", "--values", fresh=fresh)
    assert not marker.exists(), "a tampered value ran code"
    assert _dump(url) == before, "reading changed the database"
    assert "Traceback" not in result.stderr
    rows = [_strict(line) for line in result.stdout.splitlines()]
    named = {r["checkpoint_id"] for r in rows if "unreadable" in r}
    listed = [r for r in rows if "unreadable" not in r]
    assert named == named_expected
    said = result.stderr.splitlines()
    assert len(said) == len(named), said
    for cid in named:
        assert sum(cid in line for line in said) == 1, (cid, said)
    assert {r["checkpoint_id"] for r in listed} | named == set(_ids(url)), "a readable checkpoint was not listed"
    assert result.returncode == (0 if listed else 1)
    return listed


def _naming(url: str, channel: str, version: str) -> set[str]:
    import psycopg

    with psycopg.connect(url) as conn:
        return {str(r[0]) for r in conn.execute(
            "SELECT checkpoint_id FROM checkpoints WHERE checkpoint->'channel_versions'->>%s = %s", (channel, version))}


@pytest.mark.parametrize("case", sorted(_cases(Path(MARKER_NAME))))
def test_a_tampered_blob_in_a_langgraph_postgres_database(pg_server, tmp_path: Path, case: str) -> None:
    import psycopg

    marker = tmp_path / MARKER_NAME
    kind, blob, verdict = _cases(marker)[case]
    url = pg_server.url()
    write_postgres(url, "chat")
    with psycopg.connect(url, autocommit=True) as conn:
        (version,) = conn.execute("SELECT version FROM checkpoint_blobs WHERE channel = 'messages'"
                                  " ORDER BY version LIMIT 1 OFFSET 2").fetchone()
        conn.execute("UPDATE checkpoint_blobs SET type = %s, blob = %s WHERE channel = 'messages' AND version = %s",
                     (kind, blob, version))
    naming = _naming(url, "messages", version)
    assert naming
    listed = _check(url, marker, naming if verdict == "named" else set(), fresh=case in FRESH)
    if verdict == "inert":
        shown = [r["values"]["messages"] for r in listed if r["checkpoint_id"] in naming]
        assert shown and all(not isinstance(v, list) or "nan" in v for v in shown), shown


def test_tampered_pending_writes_run_nothing_and_name_their_checkpoint(pg_server, tmp_path: Path) -> None:
    import psycopg

    from engine.checkpoint.reading import open_store
    from engine.errors import CheckpointDecodeError

    marker = tmp_path / MARKER_NAME
    url = pg_server.url()
    write_postgres(url, "chat")
    with psycopg.connect(url, autocommit=True) as conn:
        bad = {str(r[0]) for r in conn.execute(
            "UPDATE checkpoint_writes SET type = 'pickle', blob = %s WHERE channel = 'messages' AND checkpoint_ns = ''"
            " RETURNING checkpoint_id", (pickle.dumps(_Evil(marker)),))}
        conn.execute("UPDATE checkpoint_writes SET blob = %s WHERE channel = 'items'", (b"\xdd\xff\xff\xff\xff",))
    assert bad
    before = _dump(url)
    _check(url, marker, set(), fresh=False)  # listing never needs the writes' values
    with open_store(url) as store:
        for cid in sorted(bad):
            with pytest.raises(CheckpointDecodeError, match=cid):
                store.pending_writes("t1", cid)
    assert not marker.exists() and _dump(url) == before


def test_lc_json_kept_inline_in_the_checkpoint_row_is_plain_data(pg_server, tmp_path: Path) -> None:
    import psycopg

    marker = tmp_path / MARKER_NAME
    url = pg_server.url()
    write_postgres(url, "chat")
    evil = {"lc": 1, "type": "constructor", "id": ["os", "system"], "kwargs": {"command": f"touch {marker}"}}
    with psycopg.connect(url, autocommit=True) as conn:
        changed = conn.execute("UPDATE checkpoints SET checkpoint = jsonb_set(checkpoint, '{channel_values,n}', %s::jsonb)"
                               " WHERE checkpoint->'channel_values' ? 'n'", (json.dumps(evil),)).rowcount
        conn.execute("UPDATE checkpoints SET metadata = jsonb_set(metadata, '{writes}', %s::jsonb)",
                     (json.dumps({**evil, "id": ["builtins", "eval"]}),))
    listed = _check(url, marker, set(), fresh=True)
    assert sum(r["values"].get("n") == evil for r in listed) == changed > 0


@pytest.mark.parametrize("how", ["missing", "itself", "a circle"])
def test_broken_parent_links_list_every_checkpoint_once(pg_server, tmp_path: Path, how: str) -> None:
    import psycopg

    from engine.checkpoint.reading import open_store
    from studio.session.loading import _read_history

    url = pg_server.url()
    write_postgres(url, "flow")
    ids = _ids(url, root_only=True)
    with psycopg.connect(url, autocommit=True) as conn:
        set_parent = "UPDATE checkpoints SET parent_checkpoint_id = %s WHERE checkpoint_id = %s"
        if how == "missing":
            conn.execute(set_parent, ("1f000000-dead-6000-8000-000000000000", ids[4]))
        elif how == "itself":
            conn.execute(set_parent, (ids[4], ids[4]))
        else:
            conn.execute(set_parent, (ids[6], ids[3]))  # 3 -> 6 -> 5 -> 4 -> 3
    listed = _check(url, tmp_path / MARKER_NAME, set(), fresh=True)
    assert sorted(r["checkpoint_id"] for r in listed if r["checkpoint_ns"] == "") == ids
    with open_store(url) as store:  # what the studio's timeline reads
        rows, _, unreadable = _read_history(store, "t1")
    assert sorted(row.id for row in rows.rows()) == ids and unreadable == []
