"""The layout's rules, checked on the code itself: the studio's core stays Qt-free."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _modules(package: str) -> list[str]:
    folder = ROOT / Path(*package.split("."))
    names = []
    for path in sorted(folder.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def test_studio_core_imports_no_qt() -> None:
    modules = _modules("studio.core")
    assert "studio.core.driver" in modules and "studio.core.convert" in modules
    code = ("import importlib, sys\n"
            f"for name in {modules!r}: importlib.import_module(name)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'qasync')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]", f"studio.core imported Qt: {out.stdout}"
