"""Issue 12 item 11: a clear message when Qt's platform cannot start, and the README."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_qt_platform_failure_names_the_libraries_or_the_display(tmp_path: Path) -> None:
    from studio.cli.qtcheck import missing_libraries

    graph = tmp_path / "g.py"
    graph.write_text("from engine import StateGraph\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "studio", str(graph), "--db", str(tmp_path / "r.sqlite")],
                          env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("retrograph: "), done.stderr[-2000:]
    missing = missing_libraries()
    if missing:
        assert "apt-get install" in lines[0]
        for lib, package in missing:
            assert lib in lines[0] and package in lines[0]
    else:
        assert "DISPLAY is not set" in lines[0]
    assert "offscreen" in lines[0]


def test_missing_libraries_are_found_by_loading_them() -> None:
    from studio.cli.qtcheck import missing_libraries

    wanted = {"libc.so.6": "libc6", "libretrograph-none.so.7": "libretrograph-none7"}
    assert missing_libraries(wanted) == [("libretrograph-none.so.7", "libretrograph-none7")]


def test_readme_names_qt_libraries_no_shared_and_shift_f9() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "libxcb-cursor0" in readme and "libxcb-icccm4" in readme and "libxcb-keysyms1" in readme
    assert "../shared" not in readme
    assert "Shift+F9" in readme
