"""`retrograph export`: one thread or one branch to a single portable checkpoint file
that `retrograph open` (open_store) reads, with chosen keys redacted."""
from __future__ import annotations

import io
import operator
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from engine import END, START, SqliteSaver, StateGraph
from engine.checkpoint.export import REDACTED, export_thread
from engine.checkpoint.reading import open_store
from studio.cli.commands import parse_args
from studio.cli.debugtools import cmd_export


class S(TypedDict, total=False):
    n: int
    api_key: str
    log: Annotated[list, operator.add]
    config: dict


def build() -> StateGraph:
    g = StateGraph(S)
    g.add_node("a", lambda s: {"n": s["n"] + 1, "log": ["a"], "config": {"token": "t-123", "mode": "fast"}})
    g.add_node("b", lambda s: {"n": s["n"] * 10, "log": ["b"]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    return g


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Thread t: one run, then a fork from the checkpoint after `a` (two branches)."""
    path = tmp_path / "runs.sqlite"
    app = build().compile(checkpointer=SqliteSaver(str(path)))
    cfg = {"configurable": {"thread_id": "t"}, "record": True}
    app.invoke({"n": 1, "api_key": "sk-secret", "log": []}, cfg)
    after_a = next(s for s in app.get_state_history(cfg) if s.next == ("b",))
    app.update_state(after_a.config, {"n": 100})
    app.invoke(None, {"configurable": {"thread_id": "t"}, "record": True})
    app.invoke({"n": 5, "api_key": "other", "log": []}, {"configurable": {"thread_id": "u"}})
    return path


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return cmd_export(parse_args(list(argv)), out=out, err=err), out.getvalue(), err.getvalue()


def test_whole_thread_round_trips_through_open(db: Path, tmp_path: Path):
    out = tmp_path / "bug.sqlite"
    code, text, err = cli("export", str(db), "--thread", "t", "-o", str(out))
    assert code == 0, err
    src, dst = SqliteSaver(str(db)), open_store(out)
    assert [t.thread_id for t in dst.threads()] == ["t"]  # only that thread
    want = [(c.id, c.parent_id, c.step, c.source, dict(c.values)) for c in src.history("t")]
    got = [(c.id, c.parent_id, c.step, c.source, dict(c.values))
           for c in (dst.load("t", h.id) for h in dst.list_headers("t"))]
    assert got == want and f"wrote {len(want)} checkpoints" in text


def test_one_branch_only(db: Path, tmp_path: Path):
    src = SqliteSaver(str(db))
    old_head = next(c for c in src.history("t") if c.values.get("n") == 20)  # (1+1)*10: the first branch's end
    out = tmp_path / "branch.sqlite"
    assert cli("export", str(db), "--thread", "t", "--branch", old_head.id, "-o", str(out))[0] == 0
    dst = SqliteSaver(str(out))
    ids = [c.id for c in dst.history("t")]
    assert ids[0] == old_head.id and all(c.values.get("n") != 1000 for c in dst.history("t"))
    assert len(ids) == 4  # input, start, a, b


def test_redact_replaces_keys_everywhere(db: Path, tmp_path: Path):
    out = tmp_path / "redacted.sqlite"
    code, text, err = cli("export", str(db), "--thread", "t", "--redact", "api_key,token", "-o", str(out))
    assert code == 0, err
    assert "redacted: api_key, token" in text
    raw = out.read_bytes()
    assert b"sk-secret" not in raw and b"t-123" not in raw
    dst = SqliteSaver(str(out))
    latest = dst.load("t")
    assert latest.values["api_key"] == REDACTED and latest.values["config"] == {"token": REDACTED, "mode": "fast"}
    records = [r for c in dst.history("t") for r in c.metadata.get("record", ()) if r["node"] == "__start__"]
    assert records and all(w[1] == REDACTED for r in records for w in r["writes"] if w[0] == "api_key")


def test_bad_inputs_name_the_culprit(db: Path, tmp_path: Path):
    code, _, err = cli("export", str(db), "--thread", "zz", "-o", str(tmp_path / "x.sqlite"))
    assert code == 1 and "--thread zz: no such thread" in err and ("t, u" in err or "u, t" in err)
    code, _, err = cli("export", str(db), "--thread", "t", "--branch", "nope", "-o", str(tmp_path / "x.sqlite"))
    assert code == 1 and "no checkpoint `nope`" in err and not (tmp_path / "x.sqlite").exists()
    (tmp_path / "exists.sqlite").write_text("")
    code, _, err = cli("export", str(db), "--thread", "t", "-o", str(tmp_path / "exists.sqlite"))
    assert code == 1 and "exists already" in err
    code, _, err = cli("export", str(db), "--thread", "t", "--redact", "passwd", "-o", str(tmp_path / "y.sqlite"))
    assert code == 0 and "--redact passwd: no such key" in err
    with pytest.raises(ValueError, match="thread `none` has no checkpoints"):
        export_thread(SqliteSaver(str(db)), "none", tmp_path / "z.sqlite")


def test_an_output_that_cannot_be_created_is_one_clear_line(db: Path, tmp_path: Path):
    """A CheckpointError (here: the output's folder does not exist) gets its own line
    naming the thread and the output, not the generic "export failed" of the last net."""
    target = tmp_path / "no-such-folder" / "x.sqlite"
    code, out, err = cli("export", str(db), "--thread", "t", "-o", str(target))
    assert code == 1 and out == ""
    assert f"export of thread t to {target} failed" in err and "folder exists" in err
    assert not target.exists()
