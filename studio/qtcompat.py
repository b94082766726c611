"""Guards against Qt for Python reference-count bugs that would crash the studio.

PySide6 6.12.0 has two: `SignalInstance.emit()` returns `True` without taking a
reference to it, and a QVariant that holds nothing (`index.data(role)` of a role the
model does not answer, `QSettings.value()` of a missing key...) comes back as `None`
without a reference. Each call drops one reference to `True` or `None`; when a count
reaches zero the interpreter aborts ("Fatal Python error: bool_dealloc / none_dealloc"),
after some hundred steps of the studio, or at exit. 6.11.3 and older are fine: pin
`PySide6-Essentials!=6.12.0`. Until then, `install()` detects each bug with a probe (not
from the version number) and wraps the affected Python-facing methods to give the
reference back. Imported by every studio module that uses Qt.
"""
from __future__ import annotations

import ctypes
import sys
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QSettings, Qt, Signal, SignalInstance

__all__ = ["install", "EMIT_FIXED", "VARIANT_FIXED"]

EMIT_FIXED = False
"""True when the running PySide6 had the emit bug and `emit` was wrapped."""
VARIANT_FIXED = False
"""True when an empty QVariant came back as an unowned None and the getters were wrapped."""

_PROBES = 16


class _Probe(QObject):
    ping = Signal()


def _refs_lost_per_emit() -> int:
    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(_PROBES):
        probe.ping.emit()
    lost = before - sys.getrefcount(True)
    return lost // _PROBES if lost >= _PROBES else 0


def _incref() -> Any:
    incref = ctypes.pythonapi.Py_IncRef
    incref.argtypes = [ctypes.py_object]
    incref.restype = None
    return incref


def _none_lost_per_empty_variant() -> int:
    from PySide6.QtGui import QStandardItem, QStandardItemModel

    model = QStandardItemModel(1, 1)
    model.setItem(0, 0, QStandardItem("probe"))
    index = model.index(0, 0)
    role = Qt.ItemDataRole.UserRole + 77
    before = sys.getrefcount(None)
    for _ in range(_PROBES):
        index.data(role)
    lost = before - sys.getrefcount(None)
    return lost // _PROBES if lost >= _PROBES else 0


def _variant_getters() -> list[tuple[type, str]]:
    """Python-facing methods that return a QVariant (the ones the studio and its panels call)."""
    from PySide6.QtGui import QAction, QStandardItem, QStandardItemModel
    from PySide6.QtWidgets import QComboBox, QListWidgetItem, QTableWidgetItem, QTreeWidgetItem

    return [(QModelIndex, "data"), (QPersistentModelIndex, "data"), (QStandardItem, "data"),
            (QStandardItemModel, "data"), (QStandardItemModel, "headerData"), (QSettings, "value"),
            (QObject, "property"), (QAction, "data"), (QComboBox, "itemData"), (QComboBox, "currentData"),
            (QListWidgetItem, "data"), (QTreeWidgetItem, "data"), (QTableWidgetItem, "data")]


def _fix_variants() -> None:
    global VARIANT_FIXED
    incref = _incref()
    for _ in range(_PROBES):  # give back what the probe took
        incref(None)
    for owner, name in _variant_getters():
        original = getattr(owner, name)

        def getter(*args: Any, __original: Any = original, **kwargs: Any) -> Any:
            result = __original(*args, **kwargs)
            if result is None:
                incref(None)
            return result

        setattr(owner, name, getter)
    VARIANT_FIXED = True


def install() -> bool:
    """Wrap the methods that drop references, when they do; True when any was (idempotent)."""
    global EMIT_FIXED
    if not VARIANT_FIXED and _none_lost_per_empty_variant() == 1:
        _fix_variants()
    if EMIT_FIXED:
        return True
    lost = _refs_lost_per_emit()
    if lost != 1:
        return VARIANT_FIXED
    incref = _incref()
    for _ in range(_PROBES):  # give back what the probe took
        incref(True)
    original = SignalInstance.emit

    def emit(self: SignalInstance, *args: Any) -> Any:
        result = original(self, *args)
        if result is True or result is False:
            incref(result)
        return result

    SignalInstance.emit = emit  # type: ignore[method-assign]
    EMIT_FIXED = True
    return True


install()
