"""Redacting secrets out of an exported thread.

Two passes over what is exported. `learn()` first collects the secrets: every text value
found under a redacted key (a state key, or a dict key or field at any depth), and every
match of a `--redact-pattern` regex in any text. `scrub()` then writes each value with the
values of redacted keys replaced by `REDACTED` and every learned secret replaced wherever
it appears, inside message content, log lines and metadata included (substrings of text
and of bytes). `report()` says what was replaced, by key, by pattern and inside text.

A text value shorter than `MIN_SECRET` characters under a redacted key is replaced under
its key only: replacing "1" or "ok" everywhere would destroy the export.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["REDACTED", "Redactor", "RedactionReport", "MIN_SECRET"]

REDACTED = "<redacted>"
MIN_SECRET = 4
_MAX_DEPTH = 100 + 16
"""The serializer's nesting limit, plus room for the levels a task record wraps around a
node's write in the metadata. Past it a container is redacted whole (fail closed), never
copied unscrubbed."""


@dataclass(frozen=True, kw_only=True)
class RedactionReport:
    """What an export replaced."""

    keys: tuple[tuple[str, int], ...] = ()
    """(key, values replaced under it), for each redacted key found."""
    patterns: tuple[tuple[str, int], ...] = ()
    """(pattern, texts it matched), for each --redact-pattern."""
    in_text: int = 0
    """Occurrences of a secret replaced inside other text (or bytes)."""
    secrets: int = 0
    """Distinct secret values searched for everywhere."""

    def lines(self) -> list[str]:
        out = [f"key {k}: {n} value{'s' if n != 1 else ''} replaced" for k, n in self.keys]
        out += [f"pattern {p}: {n} match{'es' if n != 1 else ''}" for p, n in self.patterns]
        if self.secrets:
            out.append(f"{self.in_text} more occurrence{'s' if self.in_text != 1 else ''} of {self.secrets} "
                       f"secret value{'s' if self.secrets != 1 else ''} replaced inside other text")
        return out


def _has_fields(value: Any) -> bool:
    return (dataclasses.is_dataclass(value) and not isinstance(value, type)) or callable(getattr(value, "model_copy", None))


def _fields(value: Any) -> tuple[list[str], bool] | None:
    """A dataclass's or pydantic model's field names (and whether it is pydantic), else None."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [f.name for f in dataclasses.fields(value) if f.init], False
    if callable(getattr(value, "model_copy", None)) and isinstance(getattr(type(value), "model_fields", None), dict):
        return list(type(value).model_fields), True
    return None


class Redactor:
    """`Redactor(names, patterns)`: learn the secrets, then scrub every value exported.
    A pattern that is not a valid regex raises ValueError naming it."""

    def __init__(self, names: Iterable[str] = (), patterns: Iterable[str] = ()) -> None:
        self.names = frozenset(n.strip() for n in names if n and n.strip())
        self.patterns: list[tuple[str, re.Pattern[str]]] = []
        for text in patterns:
            try:
                self.patterns.append((text, re.compile(text)))
            except re.error as e:
                raise ValueError(f"--redact-pattern {text!r} is not a valid regular expression: {e}") from None
        self.found: set[str] = set()
        self._secrets: set[str] = set()
        self._key_counts: dict[str, int] = {}
        self._pattern_counts: dict[str, int] = {p: 0 for p, _ in self.patterns}
        self._in_text = 0
        self._regex: re.Pattern[str] | None = None
        self._bytes_regex: re.Pattern[bytes] | None = None

    @property
    def active(self) -> bool:
        return bool(self.names or self.patterns)

    # -- pass 1 ------------------------------------------------------------------------
    def learn(self, value: Any, depth: int = 0) -> None:
        """Collect the secrets in `value`: texts under a redacted key, pattern matches."""
        if depth > _MAX_DEPTH:
            return
        if isinstance(value, str):
            for _, pattern in self.patterns:
                self._secrets.update(m.group(0) for m in pattern.finditer(value) if m.group(0))
        elif isinstance(value, Mapping):
            for k, v in value.items():
                if isinstance(k, str) and k in self.names:
                    self._learn_secret(v)
                else:
                    self.learn(v, depth + 1)
        elif isinstance(value, (list, tuple)):
            for v in value:
                self.learn(v, depth + 1)
        elif (fields := _fields(value)) is not None:
            for name in fields[0]:
                try:
                    v = getattr(value, name)
                except Exception:
                    continue
                if name in self.names:
                    self._learn_secret(v)
                else:
                    self.learn(v, depth + 1)
        self._regex = None

    def learn_key(self, key: str, value: Any) -> None:
        """A state key or a pending write's channel: `value` is secret when `key` is redacted."""
        if key in self.names:
            self._learn_secret(value)
        else:
            self.learn(value)

    def _learn_secret(self, value: Any, depth: int = 0) -> None:
        if depth > _MAX_DEPTH:
            return
        if isinstance(value, str):
            if len(value) >= MIN_SECRET:
                self._secrets.add(value)
        elif isinstance(value, bytes):
            if len(value) >= MIN_SECRET:
                self._secrets.add(value.decode("utf-8", "replace"))
        elif isinstance(value, Mapping):
            for v in value.values():
                self._learn_secret(v, depth + 1)
        elif isinstance(value, (list, tuple)):
            for v in value:
                self._learn_secret(v, depth + 1)
        elif (fields := _fields(value)) is not None:
            for name in fields[0]:
                try:
                    self._learn_secret(getattr(value, name), depth + 1)
                except Exception:
                    continue

    # -- pass 2 ------------------------------------------------------------------------
    def key_value(self, key: str, value: Any) -> Any:
        """A state key's or a write's value: `REDACTED` when `key` is redacted, else scrubbed."""
        if key in self.names:
            self._count_key(key)
            return REDACTED
        return self.scrub(value)

    def _count_key(self, key: str) -> None:
        self.found.add(key)
        self._key_counts[key] = self._key_counts.get(key, 0) + 1

    def scrub(self, value: Any, depth: int = 0, record: bool = False) -> Any:
        if depth > _MAX_DEPTH:
            return REDACTED if isinstance(value, (Mapping, list, tuple)) or _has_fields(value) else value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, bytes):
            return self._bytes(value)
        if isinstance(value, Mapping) and type(value) is dict:
            return self._scrub_dict(value, depth, record)
        if isinstance(value, list):
            return [self.scrub(v, depth + 1, record) for v in value]
        if isinstance(value, tuple) and type(value) is tuple:
            return tuple(self.scrub(v, depth + 1, record) for v in value)
        return self._scrub_fields(value, depth)

    def _scrub_dict(self, value: Mapping[Any, Any], depth: int, record: bool) -> dict[Any, Any]:
        out = {}
        for k, v in value.items():
            if isinstance(k, str) and k in self.names:
                self._count_key(k)
                out[k] = REDACTED
            else:
                out[k] = self.scrub(v, depth + 1, record)
        writes = out.get("writes") if record else None
        if isinstance(writes, list):  # a task record: [[key, value]...]
            kept = []
            for w in writes:
                if isinstance(w, list) and len(w) == 2 and isinstance(w[0], str) and w[0] in self.names:
                    self._count_key(w[0])
                    kept.append([w[0], REDACTED])
                else:
                    kept.append(w)
            out["writes"] = kept
        return out

    def _scrub_fields(self, value: Any, depth: int) -> Any:
        """A dataclass or a pydantic model (a message, a user's record) with its fields
        scrubbed as dict keys are; the value itself when nothing changed or it cannot be copied."""
        fields = _fields(value)
        if fields is None:
            return value
        names, pydantic = fields
        changed: dict[str, Any] = {}
        for name in names:
            try:
                old = getattr(value, name)
            except Exception:
                continue
            if name in self.names:
                self._count_key(name)
                changed[name] = REDACTED
                continue
            new = self.scrub(old, depth + 1)
            if new is not old and new != old:
                changed[name] = new
        if not changed:
            return value
        try:
            return value.model_copy(update=changed) if pydantic else dataclasses.replace(value, **changed)
        except Exception:
            return REDACTED  # fail closed: a value that cannot be rebuilt scrubbed is not copied

    def _compiled(self) -> re.Pattern[str] | None:
        if self._regex is None and (self._secrets or self.patterns):
            parts = [re.escape(s) for s in sorted(self._secrets, key=len, reverse=True)]
            parts += [f"(?:{p.pattern})" for _, p in self.patterns]
            self._regex = re.compile("|".join(parts))
            self._bytes_regex = re.compile(
                b"|".join(re.escape(s.encode("utf-8")) for s in sorted(self._secrets, key=len, reverse=True))
            ) if self._secrets else None
        return self._regex

    def text(self, value: str) -> str:
        """`value` with every secret and every pattern match replaced."""
        regex = self._compiled()
        if regex is None or not value:
            return value

        def replace(match: re.Match[str]) -> str:
            found = match.group(0)
            if not found:
                return found
            for text, pattern in self.patterns:
                if pattern.fullmatch(found):
                    self._pattern_counts[text] += 1
                    break
            else:
                self._in_text += 1
            return REDACTED

        return regex.sub(replace, value)

    def _bytes(self, value: bytes) -> bytes:
        self._compiled()
        if self._bytes_regex is None:
            return value
        out, count = self._bytes_regex.subn(REDACTED.encode(), value)
        self._in_text += count
        return out

    def report(self) -> RedactionReport:
        return RedactionReport(keys=tuple(sorted(self._key_counts.items())),
                               patterns=tuple(self._pattern_counts.items()),
                               in_text=self._in_text, secrets=len(self._secrets))
