"""The lesson panel: the short text that comes with a lesson example, beside the graph."""
from __future__ import annotations

from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

from studio.panels._common import title_label

__all__ = ["LessonPanel"]


class LessonPanel(QWidget):
    """Methods:
        set_lesson(title, markdown): show a lesson ("" hides nothing: the dock decides).
        text() -> str: the text shown, as plain text.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title_label("Lesson")
        self.body = QTextBrowser()
        self.body.setObjectName("lessonText")
        self.body.setOpenExternalLinks(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        layout.addWidget(self.body, 1)

    def set_lesson(self, title: str, markdown: str) -> None:
        self.title.setText(title or "Lesson")
        self.body.setMarkdown(markdown)

    def text(self) -> str:
        return self.body.toPlainText()
