"""Check a `--screenshot` PNG: it is the studio window with its style sheet applied.

`python .ci/check_screenshot.py shot.png` exits 1 with one line when the picture is too
small, blank, or unstyled: the style sheet paints the dock titles #eef1f5 and the window
#f5f7fa, colours Qt's own style never uses, so an install that lost resources/style.qss
shows none of them. Run with the installed studio's Python (it reads the PNG with Qt).
"""
from __future__ import annotations

import sys

from PySide6.QtGui import QColor, QImage

STYLED = (QColor("#eef1f5").rgb(), QColor("#f5f7fa").rgb())


def main(path: str) -> int:
    image = QImage(path)
    if image.isNull() or image.width() < 800 or image.height() < 500:
        print(f"check_screenshot: {path} is not a window screenshot ({image.width()}x{image.height()})",
              file=sys.stderr)
        return 1
    counts = dict.fromkeys(STYLED, 0)
    for y in range(0, image.height(), 2):
        for x in range(0, image.width(), 2):
            rgb = image.pixel(x, y)
            if rgb in counts:
                counts[rgb] += 1
    if min(counts.values()) < 500:
        print(f"check_screenshot: {path} does not show the styled window (style colours found: "
              f"{list(counts.values())}); the style sheet was not found by the installed studio", file=sys.stderr)
        return 1
    print(f"check_screenshot: {path} shows the styled window ({image.width()}x{image.height()})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
