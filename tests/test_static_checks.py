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


MAX_MODULE_LINES = 600
"""Past this a module holds more than one idea: split it (docs/ARCHITECTURE.md)."""


def modules_over(limit: int, root: Path = ROOT, packages: tuple[str, ...] = ("engine", "studio")) -> list[str]:
    """`path: lines` of each Python module under `packages` longer than `limit` lines."""
    found = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > limit:
                found.append(f"{path.relative_to(root)}: {lines}")
    return found


def test_no_module_over_600_lines() -> None:
    assert modules_over(MAX_MODULE_LINES) == []


def test_the_size_check_finds_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "short.py").write_text("x = 1\n" * MAX_MODULE_LINES)
    (tmp_path / "engine" / "long.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    assert modules_over(MAX_MODULE_LINES, tmp_path, ("engine",)) == [f"engine/long.py: {MAX_MODULE_LINES + 1}"]


def test_ruff_counts_complexity_past_25(tmp_path: Path) -> None:
    # the C901 gate is on, at 25, with no file exempt (a function 26 branches deep fails)
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(25))
    (tmp_path / "deep.py").write_text(f"def deep(x):\n{branches}    return -1\n")
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise",
                          "--config", str(ROOT / "pyproject.toml"), str(tmp_path / "deep.py")],
                         capture_output=True, text=True, timeout=120)
    assert "C901" in out.stdout and "(26 > 25)" in out.stdout, out.stdout + out.stderr
    per_file = subprocess.run([sys.executable, "-c", "import tomllib,sys; c=tomllib.load(open(sys.argv[1],'rb'));"
                               "print([k for k, v in c['tool']['ruff']['lint']['per-file-ignores'].items()"
                               " if 'C901' in v or 'C90' in v or 'C' in v])", str(ROOT / "pyproject.toml")],
                              capture_output=True, text=True, check=True)
    assert per_file.stdout.strip() == "[]"
