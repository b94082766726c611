"""The results table (plain text and Markdown), the machine it ran on, and JSON."""
from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from .harness import Row

__all__ = ["machine", "markdown_table", "notes", "text_table", "write_json"]

HEADERS = ("workload", "engine", "LangGraph", "ratio", "target", "floor", "verdict")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def machine() -> dict[str, Any]:
    """Where and with what the suite ran."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count() or 0
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": cpus,
        "cpu": _cpu_model(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "langgraph": _version("langgraph"),
        "langgraph-checkpoint-sqlite": _version("langgraph-checkpoint-sqlite"),
    }


def _number(value: float) -> str:
    magnitude = abs(value)
    if magnitude >= 100:
        return f"{value:,.0f}"
    if magnitude >= 10:
        return f"{value:.1f}"
    if 0 < magnitude < 0.1:
        return f"{value:.3f}"
    return f"{value:.2f}"


def _with_unit(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    return f"{_number(value)}{unit}" if unit == "×" else f"{_number(value)} {unit}"


def _cells(row: Row) -> tuple[str, ...]:
    ratio = row.ratio
    return (
        row.workload,
        _with_unit(row.engine, row.unit),
        _with_unit(row.langgraph, row.unit),
        f"{ratio:.3f}×" if ratio is not None else "—",
        row.target.text(row.unit) if row.target else "—",
        _with_unit(row.floor, row.unit),
        row.verdict(),
    )


def text_table(rows: Sequence[Row]) -> str:
    cells = [HEADERS, *(_cells(r) for r in rows)]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEADERS))]
    lines = []
    for n, line in enumerate(cells):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown_table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "|".join(["---"] + ["---:"] * 5 + [":---:"]) + "|"]
    for row in rows:
        cells = list(_cells(row))
        if cells[-1] == "MISSED":
            cells[-1] = "**MISSED**"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def notes(rows: Sequence[Row]) -> list[str]:
    """One line per row that carries a note."""
    return [f"{r.key}: {r.note}" for r in rows if r.note]


def write_json(path: str, profile: str, rows: Sequence[Row]) -> None:
    data = {"profile": profile, "machine": machine(), "rows": [r.as_dict() for r in rows]}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
        f.write("\n")
