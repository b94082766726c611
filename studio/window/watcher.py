"""Watch the graph file so the studio reloads it when the user saves it."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

__all__ = ["FileWatcher"]


class FileWatcher(QObject):
    """Emits `changed(path)` once per burst of saves (editors write in several steps,
    and some replace the file, which drops it from QFileSystemWatcher: it is re-added)."""

    changed = Signal(str)

    def __init__(self, parent: QObject | None = None, *, debounce_ms: int = 250) -> None:
        super().__init__(parent)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_file_changed)
        self._watcher.directoryChanged.connect(self._on_directory_changed)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._on_timeout)
        self._path: Path | None = None
        self._mtime: float | None = None
        self.enabled = True

    @property
    def path(self) -> Path | None:
        return self._path

    def watch(self, path: str | Path | None) -> None:
        """Watch `path` (and its folder, to see a replaced file come back); None stops."""
        for old in self._watcher.files() + self._watcher.directories():
            self._watcher.removePath(old)
        self._path = Path(path).resolve() if path else None
        if self._path is None:
            return
        self._mtime = self._stat()
        self._watcher.addPath(str(self._path.parent))
        if self._path.exists():
            self._watcher.addPath(str(self._path))

    def _stat(self) -> float | None:
        try:
            return self._path.stat().st_mtime_ns if self._path else None
        except OSError:
            return None

    def _on_file_changed(self, _path: str) -> None:
        self._timer.start()

    def _on_directory_changed(self, _path: str) -> None:
        if self._path is not None and self._stat() != self._mtime:
            self._timer.start()

    def _on_timeout(self) -> None:
        if self._path is None:
            return
        if str(self._path) not in self._watcher.files() and self._path.exists():
            self._watcher.addPath(str(self._path))
        mtime = self._stat()
        if mtime is None or mtime == self._mtime:
            return
        self._mtime = mtime
        if self.enabled:
            self.changed.emit(str(self._path))
