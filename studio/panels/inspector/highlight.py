"""A small Python syntax highlighter for source shown in the inspector."""
from __future__ import annotations

import keyword
import re

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

__all__ = ["PythonHighlighter"]


def _fmt(colour: str, *, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    f = QTextCharFormat()
    f.setForeground(QColor(colour))
    if bold:
        f.setFontWeight(QFont.Weight.Bold)
    f.setFontItalic(italic)
    return f


_KEYWORD = _fmt("#7c3aed", bold=True)
_BUILTIN = _fmt("#0369a1")
_STRING = _fmt("#15803d")
_COMMENT = _fmt("#7b8794", italic=True)
_NUMBER = _fmt("#b45309")
_DECORATOR = _fmt("#c2410c")
_DEF_NAME = _fmt("#1d4ed8", bold=True)

_RULES: list[tuple[re.Pattern[str], QTextCharFormat, int]] = [
    (re.compile(r"\b(" + "|".join(keyword.kwlist + ["match", "case", "self"]) + r")\b"), _KEYWORD, 0),
    (re.compile(r"\b(print|len|range|list|dict|set|tuple|str|int|float|bool|isinstance|super|Any|None)\b"),
     _BUILTIN, 0),
    (re.compile(r"\b\d+(\.\d+)?\b"), _NUMBER, 0),
    (re.compile(r"^\s*@[\w.]+", re.M), _DECORATOR, 0),
    (re.compile(r"\b(?:def|class)\s+(\w+)"), _DEF_NAME, 1),
]
_SHORT_STRING = re.compile(r"""[rbfuRBFU]{0,2}("([^"\\\n]|\\.)*"|'([^'\\\n]|\\.)*')""")
_COMMENT_RE = re.compile(r"#[^\n]*")
_TRIPLE = ('"""', "'''")


class PythonHighlighter(QSyntaxHighlighter):
    """Keywords, builtins, numbers, strings (triple-quoted across lines), comments."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)

    def highlightBlock(self, text: str) -> None:
        for pattern, fmt, group in _RULES:
            for m in pattern.finditer(text):
                self.setFormat(m.start(group), m.end(group) - m.start(group), fmt)
        strings: list[tuple[int, int]] = []
        for m in _SHORT_STRING.finditer(text):
            self.setFormat(m.start(), m.end() - m.start(), _STRING)
            strings.append((m.start(), m.end()))
        for m in _COMMENT_RE.finditer(text):
            if not any(a <= m.start() < b for a, b in strings):
                self.setFormat(m.start(), len(text) - m.start(), _COMMENT)
                break
        self._triple_quotes(text)

    def _triple_quotes(self, text: str) -> None:
        """Block state n > 0: inside a triple-quoted string opened with _TRIPLE[n - 1]."""
        self.setCurrentBlockState(0)
        start = 0
        state = self.previousBlockState()
        if state > 0:
            delim = _TRIPLE[state - 1]
            end = text.find(delim)
            if end < 0:
                self.setFormat(0, len(text), _STRING)
                self.setCurrentBlockState(state)
                return
            self.setFormat(0, end + 3, _STRING)
            start = end + 3
        while True:
            found = [(text.find(d, start), n) for n, d in enumerate(_TRIPLE) if text.find(d, start) >= 0]
            if not found:
                return
            begin, n = min(found)
            end = text.find(_TRIPLE[n], begin + 3)
            if end < 0:
                self.setFormat(begin, len(text) - begin, _STRING)
                self.setCurrentBlockState(n + 1)
                return
            self.setFormat(begin, end + 3 - begin, _STRING)
            start = end + 3
