"""The window on screens of 1280x720, 1920x1080 and 1000x600: each size runs the pytest-qt
tests of screen_layouts.py in a child pytest whose offscreen platform reports a screen of
that size (Qt's offscreen plugin takes a JSON screen list: offscreen:configfile=FILE)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _child(tmp_path: Path, size: str, *extra: str, settings: Path | None = None) -> subprocess.CompletedProcess[str]:
    width, height = (int(n) for n in size.split("x"))
    config = tmp_path / f"screen-{size}.json"
    config.write_text(json.dumps({"screens": [{"name": f"virtual-{size}", "x": 0, "y": 0, "width": width,
                                               "height": height, "logicalDpi": 96, "dpr": 1}]}))
    env = dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={config}", SCREEN_SIZE=size)
    env.pop("SCREEN_SETTINGS", None)
    if settings is not None:
        env["SCREEN_SETTINGS"] = str(settings)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
                           str(HERE / "screen_layouts.py"), "--basetemp", str(tmp_path / f"child-{size}"), *extra],
                          cwd=HERE.parent, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("size", ["1280x720", "1920x1080", "1000x600"])
def test_the_window_fits_a_screen_of(size: str, tmp_path: Path) -> None:
    out = _child(tmp_path, size)
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-3000:]
    assert " passed" in out.stdout and " failed" not in out.stdout, out.stdout[-3000:]


def test_a_layout_saved_on_a_small_screen_is_not_restored_on_a_big_one(tmp_path: Path) -> None:
    settings = tmp_path / "studio.ini"
    for size in ("1280x720", "1920x1080"):
        out = _child(tmp_path, size, "-k", "kept", settings=settings)
        assert out.returncode == 0 and "1 passed" in out.stdout, size + "\n" + out.stdout[-6000:] + out.stderr[-3000:]
    assert "window/compact/state" in settings.read_text() or "compact" in settings.read_text()
