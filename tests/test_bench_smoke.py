"""The benchmark suite's smoke mode runs to the end and prints every workload's row.

No timing is asserted here: figures belong to the benchmark's table, not to a test.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

EXPECTED_ROWS = (
    "`import engine` in a fresh interpreter",
    "`from engine import StateGraph` in a fresh interpreter",
    "superstep, no checkpointer",
    "superstep, InMemorySaver",
    "superstep, SqliteSaver",
    "superstep, SqliteSaver / a bare one-INSERT-per-step loop",
    "Send fan-out and join",
    "10-wide fan-out/fan-in, per round",
    "create_react_agent, fake chat model",
    "storage, 20 appends",
    "storage growth",
    "get_state, first checkpoint of a 300-step thread",
    "get_state, middle checkpoint of a 300-step thread",
    "get_state, last checkpoint of a 300-step thread",
    "list_headers(limit=100)",
    "get_state_history, first 100",
    "step cost after 300 steps / after 10, a 300-step thread",
    "get_state, last checkpoint of a 300-step append-only thread",
    "step cost after 300 steps / after 10, a 300-step append-only thread",
    "get_state, oldest checkpoint of a 500-step thread (SQLite)",
    "get_state_history, first 100 of a 500-step thread (SQLite)",
    "step cost after 500 steps / after 10 (SQLite)",
    "studio: `retrograph react_agent.py` until the window is shown",
    "studio: 20-node, 40-edge graph laid out and drawn",
    "studio: 20-node, 40-edge graph laid out and drawn, longest UI-thread stall",
    "studio: one node step",
    "studio: 500-checkpoint thread opened, timeline shown",
    "studio: … Home: all 500 checkpoints read into the timeline",
    "studio: paging through 500 timeline rows",
    "studio: peak process memory",
    "studio: 500-checkpoint thread opened and all of it read (Home), longest UI-thread stall",
    "post-mortem selected, longest UI-thread stall",
    "post-mortem at 100%, dragged and zoomed a step at a time, longest UI-thread stall",
    "open a 300-checkpoint LangGraph thread (SQLite)",
    "every header of that thread (SQLite)",
)
# With a PostgreSQL server at hand (tests/pg_server.py; always in CI):
POSTGRES_ROWS = ("superstep, PostgresSaver", "a bare psycopg INSERT-per-step loop", "get_state, oldest checkpoint of a 500-step thread (PostgreSQL)", "open a 300-checkpoint LangGraph thread (PostgreSQL)",
                 "every header of that thread (PostgreSQL)")


@pytest.mark.timeout(300)
def test_smoke_run_prints_every_workload(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-m", "tests.bench", "--smoke", "--json", str(out)],
        check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=280,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    from pg_server import find_bin_dir, in_ci

    expected = EXPECTED_ROWS + (POSTGRES_ROWS if find_bin_dir() is not None or in_ci() else ())
    for label in expected:
        assert label in proc.stdout, f"no row `{label}` in:\n{proc.stdout}"
    assert "crashed" not in proc.stdout
    rows = json.loads(out.read_text(encoding="utf-8"))["rows"]
    verdicts = {row["verdict"] for row in rows}
    # every row was measured: a workload that could not run is an "error" row, never "pending"
    assert verdicts <= {"met", "MISSED", "no ref", "info"}, verdicts
    unmeasured = [row["workload"] for row in rows if row["engine"] is None]
    assert not unmeasured, unmeasured
