"""Before Qt starts on Linux: the system libraries its X11 platform needs, and a display.

When Qt's `xcb` platform plugin cannot load (a library missing) or finds no display, Qt
aborts the whole process with a message that names neither the package to install nor
the way out. So `retrograph` checks first, loading each library the plugin links to, and
stops with one message that names the missing Debian/Ubuntu packages.
"""
from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Mapping

__all__ = ["XCB_LIBRARIES", "missing_libraries", "platform_problem"]

XCB_LIBRARIES: Mapping[str, str] = {
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libfontconfig.so.1": "libfontconfig1",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libdbus-1.so.3": "libdbus-1-3",
}
"""Shared libraries Qt 6's xcb platform plugin loads -> the Debian/Ubuntu package of each."""


def _loads(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def missing_libraries(libraries: Mapping[str, str] = XCB_LIBRARIES,
                      load: Callable[[str], bool] = _loads) -> list[tuple[str, str]]:
    """(library, package) pairs of the libraries that cannot be loaded here."""
    return [(lib, pkg) for lib, pkg in libraries.items() if not load(lib)]


def platform_problem(env: Mapping[str, str] | None = None) -> str | None:
    """Why Qt's platform would not start here, in words, or None (not Linux, another
    platform chosen with QT_QPA_PLATFORM, or all is well)."""
    env = os.environ if env is None else env
    if not sys.platform.startswith("linux"):
        return None
    chosen = env.get("QT_QPA_PLATFORM", "")
    if chosen and not chosen.startswith("xcb"):
        return None  # offscreen, wayland, vnc...: Qt says what it lacks itself
    if not chosen and env.get("WAYLAND_DISPLAY"):
        return None
    missing = missing_libraries()
    if missing:
        names = ", ".join(lib for lib, _ in missing)
        packages = " ".join(pkg for _, pkg in missing)
        return (f"Qt's X11 platform (xcb) cannot start: these system libraries are missing: {names}. "
                f"On Debian or Ubuntu: sudo apt-get install {packages} (other distributions name the "
                "packages alike). Without a display, `QT_QPA_PLATFORM=offscreen` still renders "
                "--screenshot.")
    if not env.get("DISPLAY"):
        return ("No display to open the window on: DISPLAY is not set. Run it in a desktop session "
                "(or over `ssh -X`, or under `xvfb-run`); `QT_QPA_PLATFORM=offscreen` renders "
                "--screenshot without one.")
    return None
