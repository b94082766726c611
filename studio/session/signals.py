"""The session's Qt signals: each carries a plain record of `studio.core` to the panels."""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal

__all__ = ["SessionSignals"]


class SessionSignals(QObject):
    """Every signal the session emits; the collaborators emit them through this object."""

    graphLoaded = Signal(object)        # GraphShape
    stateChanged = Signal(object)       # Mapping of the viewed checkpoint's values
    diffChanged = Signal(object)        # StepDiff | None
    marksChanged = Signal(object)       # GraphMarks
    timelineReset = Signal(object)      # tuple[TimelineRow, ...] (oldest first)
    timelineRowAdded = Signal(object)   # TimelineRow
    timelineExtended = Signal(object)   # the rows with an older page added (a PlannedRows, oldest first)
    timelineMore = Signal(int)          # older checkpoints not listed yet: 0 none, -1 some (count unknown)
    headChanged = Signal(object)        # checkpoint id | None
    viewChanged = Signal(object)        # checkpoint id being viewed (the head when live)
    eventsAdded = Signal(object)        # list[EventRow]: live ones in small batches, or a history's
    eventsCleared = Signal()
    interruptsChanged = Signal(object)  # tuple[InterruptInfo, ...]
    detailsChanged = Signal(object)     # NodeDetails
    subgraphShown = Signal(object, object)  # node name, GraphShape of its inner graph
    compareReady = Signal(object)       # Comparison
    threadsChanged = Signal(object)     # tuple[ThreadSummary, ...]
    statusChanged = Signal(object)      # SessionStatus
    busyChanged = Signal(bool)
    errorChanged = Signal(object)       # ErrorReport | None
    message = Signal(str)               # a transient status-bar line
    commandFinished = Signal(str, object)  # command name, Outcome | Exception | None
    graphOpened = Signal(object, bool)  # the graph file's Path, whether it loaded
    stopChanged = Signal(object)        # StopReport | None: why the run stopped (the banner over the graph)
    whyChanged = Signal(object)         # studio.core.records.WhyMarks: why the next tasks run
