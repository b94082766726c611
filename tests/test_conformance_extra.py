"""Retrograph's own conformance cases (tests/conformance_extra), recorded from LangGraph 1.2
with `run.py --record`, replayed against the engine with the shared runner."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNNER = ROOT.parent / "shared" / "conformance" / "run.py"


@pytest.mark.skipif(not RUNNER.exists(), reason="the shared conformance runner is not beside the checkout")
def test_extra_conformance_cases_match_langgraph():
    proc = subprocess.run(
        [sys.executable, str(RUNNER), "--cases", str(ROOT / "tests" / "conformance_extra"), "-v"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )
    last = proc.stdout.strip().splitlines()[-1]
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert last.endswith(" 0 failed") and not last.startswith("0 passed")
