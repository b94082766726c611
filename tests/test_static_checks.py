"""The static gates, run by the test command so that CI and every developer run them:
ruff (rules chosen in pyproject.toml), mypy (strict on engine/, no per-module exception)
and import-linter's contracts between the layers."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff() -> None:
    out = _run(sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", ".")
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy() -> None:
    out = _run(sys.executable, "-m", "mypy", "--cache-dir", str(ROOT / ".mypy_cache"))
    assert out.returncode == 0, out.stdout + out.stderr


def test_import_contracts() -> None:
    tool = BIN / "lint-imports"
    if not tool.exists():
        pytest.fail(f"import-linter is not installed next to {sys.executable}: pip install -e '.[test]'")
    out = _run(str(tool), "--no-cache")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout
