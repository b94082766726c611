"""History search across the threads of a store, resumable and bounded (Qt-free).

`StoreSearch` finds the checkpoints whose state contains a text (case-insensitive, in the
state as JSON) or makes an expression true (studio/core/expressions.py: the safe
evaluator; the expression is the user's, never read from the database). It scans every
thread of the store (or the ones given), each thread's root graph and then its subgraph
namespaces, newest checkpoint first, every branch included.

Nothing is capped and nothing is skipped: the scan goes a page at a time
(`next_page(store)`, run on the studio's reader thread or in the CLI's loop) and keeps
only a cursor (the thread, the namespace, the last checkpoint read), so a store of any
size costs one page of checkpoints in memory. `next_page(..., max_hits=N)` stops at the
N-th match, so a caller that shows results keeps a bounded list and asks for more
("continue") when the user wants them. `cancel()` (from any thread) ends the scan at
the next checkpoint.
"""
from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.checkpoint.ids import ns_thread_key
from engine.checkpoint.reading import skipping

from .expressions import MISSING_VALUE, Expression, ExpressionError
from .jsonable import jsonable

__all__ = ["SearchHit", "Matcher", "StoreSearch", "PAGE", "search_note"]

PAGE = 200
"""Checkpoints read per page (one trip to the reader thread)."""

_EXCERPT = 70


@dataclass(frozen=True, kw_only=True)
class SearchHit:
    thread_id: str
    namespace: str
    """"" for the root graph, else the subgraph's checkpoint namespace."""
    checkpoint_id: str
    step: int
    source: str
    nodes: tuple[str, ...]
    excerpt: str


def _short(value: Any, limit: int = 60) -> str:
    try:
        text = json.dumps(jsonable(value), ensure_ascii=False, sort_keys=True)
    except Exception:  # a value jsonable cannot take: its type is still worth showing
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Matcher:
    """One query: `mode` "text" or "expression". ValueError (ExpressionError for an
    expression) naming what is wrong with it. Used on one thread at a time."""

    def __init__(self, query: str, mode: str = "text") -> None:
        if mode not in ("text", "expression"):
            raise ValueError(f"unknown search mode {mode!r}: use 'text' or 'expression'")
        if not isinstance(query, str) or not query.strip():
            raise ValueError("the search is empty: type a text, or an expression such as len(messages) > 4")
        self.query, self.mode = query.strip(), mode
        self.expression = Expression.parse(query) if mode == "expression" else None
        self._needle = self.query.lower()
        self.evaluated = 0
        """States the expression gave a value on (true or not): none while failures pile up
        means the expression itself is wrong."""

    def match(self, values: Mapping[str, Any]) -> str | None:
        """An excerpt saying why `values` match, or None. Raises ExpressionError where the
        expression cannot be evaluated on `values` (the scan counts and reports those)."""
        if self.expression is not None:
            value = self.expression.evaluate(values, reuse=True)
            if value is not MISSING_VALUE:
                self.evaluated += 1
            try:
                if value is MISSING_VALUE or not bool(value):
                    return None
            except Exception as e:  # a value whose truth is undefined (an array, say)
                raise ExpressionError(f"`{self.expression.text}`: its value has no truth: "
                                      f"{type(e).__name__}: {e}") from None
            return f"{self.expression.text} → {_short(value)}"
        try:
            text = json.dumps(jsonable(dict(values)), ensure_ascii=False, sort_keys=True)
        except Exception:
            return None
        at = text.lower().find(self._needle)
        if at < 0:
            return None
        start = max(at - 16, 0)  # a little context before, the match early enough to show in a column
        piece = text[start:start + _EXCERPT]
        return ("…" if start else "") + piece + ("…" if start + _EXCERPT < len(text) else "")


def _lister(store: Any) -> Any:
    """What lists full checkpoints by store key: the saver behind an `OwnStore`, else the store."""
    return getattr(store, "saver", store)


def _checkpoints(store: Any, key: str, before: str | None, limit: int, unreadable: Any) -> Iterator[Any]:
    """Full checkpoints newest first; one whose row cannot be decoded is skipped and told
    to `unreadable(checkpoint_id, reason)` when the store can skip (else it raises)."""
    lister = _lister(store)
    if callable(getattr(lister, "history", None)):
        return iter(lister.history(key, before=before, limit=limit, **skipping(lister, unreadable)))
    return (c for h in store.list_headers(key, before=before, limit=limit)
            if (c := store.load(key, h.id)) is not None)


class StoreSearch:
    """A resumable scan of a store's history (see the module docstring).

    `threads`: the thread ids to search, in order (None: every thread of the store, most
    recently updated first; `first` comes first when it is one of them). `subgraphs`: also
    the threads' subgraph namespaces."""

    def __init__(self, query: str, mode: str = "text", *, threads: Sequence[str] | None = None,
                 first: str | None = None, subgraphs: bool = True) -> None:
        self.matcher = Matcher(query, mode)
        self.subgraphs = subgraphs
        self.first = first
        self._threads: list[str] | None = list(threads) if threads is not None else None
        self._thread = 0
        self._spaces: list[str] | None = None
        self._space = 0
        self._before: str | None = None
        self.scanned = 0
        """Checkpoints read so far."""
        self.matched = 0
        self.failed = 0
        """Checkpoints the expression could not be evaluated on (a type error on some states)."""
        self.first_failure: str | None = None
        """The first of those errors and where: "`x > 1`: TypeError: ... (thread t1, step 3)"."""
        self.total: int | None = None
        """The root graphs' checkpoints in the threads searched, when the store says (progress)."""
        self.done = False
        self.cancelled = False
        self.unreadable: list[tuple[str, str]] = []
        """(checkpoint id, reason) of the checkpoints skipped because they cannot be read."""

    @property
    def threads(self) -> int:
        """How many threads the scan covers (known after the first page)."""
        return len(self._threads or ())

    @property
    def thread_id(self) -> str | None:
        """The thread being scanned (None before the first page and once done)."""
        if self._threads is None or self._thread >= len(self._threads):
            return None
        return self._threads[self._thread]

    def cancel(self) -> None:
        """Stop at the next checkpoint (safe from any thread); the scan is then done."""
        self.cancelled = self.done = True

    def _start(self, store: Any) -> None:
        infos = store.threads()
        if self._threads is None:
            self._threads = [t.thread_id for t in infos]
        if self.first is not None and self.first in self._threads:
            self._threads.remove(self.first)
            self._threads.insert(0, self.first)
        wanted = set(self._threads)
        counts = [t.checkpoints for t in infos if t.thread_id in wanted]
        self.total = sum(counts) if counts else 0

    def _namespaces(self, store: Any, thread_id: str) -> list[str]:
        spaces = getattr(store, "namespaces", None) if self.subgraphs else None
        found = [ns for ns in spaces(thread_id) if ns] if callable(spaces) else []
        return ["", *found]

    def next_page(self, store: Any, *, budget: int = PAGE, max_hits: int | None = None) -> list[SearchHit]:
        """Read at most `budget` checkpoints from where the scan stopped and return their
        matches (at most `max_hits`; the scan then resumes right after the last one)."""
        if self.done:
            return []
        if self._threads is None or self.total is None:
            self._start(store)
        assert self._threads is not None
        hits: list[SearchHit] = []
        left = max(budget, 1)
        while left > 0 and not self.cancelled and (max_hits is None or len(hits) < max_hits):
            if self._thread >= len(self._threads):
                break
            thread_id = self._threads[self._thread]
            if self._spaces is None:
                self._spaces = self._namespaces(store, thread_id)
                self._space, self._before = 0, None
            if self._space >= len(self._spaces):
                self._thread, self._spaces = self._thread + 1, None
                continue
            ns = self._spaces[self._space]
            read = self._read_space(store, thread_id, ns, left, hits, max_hits)
            if read < left and not self.cancelled and (max_hits is None or len(hits) < max_hits):
                self._space, self._before = self._space + 1, None  # the namespace is read to its end
            left -= read
        self.matched += len(hits)
        if self.cancelled or self._thread >= len(self._threads):
            self.done = True
        return hits

    def _read_space(self, store: Any, thread_id: str, ns: str, left: int, hits: list[SearchHit],
                    max_hits: int | None) -> int:
        """Read up to `left` checkpoints of one thread's namespace from where the scan
        stopped, adding the matches to `hits`; returns how many it read."""
        read = 0

        def unreadable(cid: str, reason: str) -> None:
            nonlocal read
            read += 1  # it took its place in the page: the scan goes on after it
            self.scanned += 1
            self._before = cid
            self.unreadable.append((cid, reason))

        for ckpt in _checkpoints(store, ns_thread_key(thread_id, ns), self._before, left, unreadable):
            read += 1
            self.scanned += 1
            self._before = ckpt.id
            hit = self._match(ckpt, thread_id, ns)
            if hit is not None:
                hits.append(hit)
                if max_hits is not None and len(hits) >= max_hits:
                    break
            if self.cancelled:
                break
        return read

    def _match(self, ckpt: Any, thread_id: str, ns: str) -> SearchHit | None:
        """The hit `ckpt` makes, if it matches (a failure of the expression is counted)."""
        try:
            excerpt = self.matcher.match(ckpt.values)
        except ExpressionError as e:
            excerpt = None
            self.failed += 1
            if self.first_failure is None:
                where = f", subgraph {ns}" if ns else ""
                self.first_failure = f"{e} (thread {thread_id}{where}, step {ckpt.step})"
        if excerpt is None:
            return None
        return SearchHit(thread_id=thread_id, namespace=ns, checkpoint_id=ckpt.id, step=ckpt.step,
                         source=ckpt.source, excerpt=excerpt,
                         nodes=tuple(ckpt.nodes_ran) if ckpt.source != "fork" else ())

    @property
    def failed_everywhere(self) -> bool:
        """The expression failed on checkpoints and gave a value on none (so it is wrong, not
        the states); checkpoints lacking its names do not count either way."""
        return self.failed > 0 and self.matcher.evaluated == 0

    def failures(self) -> str:
        """The evaluation errors in words ("" when none): every checkpoint failed, or how
        many did and the first error with where it happened."""
        if not self.failed:
            return ""
        if self.failed_everywhere:
            return (f"the expression could not be evaluated on any checkpoint ({self.failed:,} tried): "
                    f"{self.first_failure}")
        return (f"{self.failed:,} checkpoint{'s' if self.failed != 1 else ''} could not be evaluated: "
                f"first error {self.first_failure}")

    def describe(self) -> str:
        """Progress in words: "3 matches in 1,200 checkpoints of 2 threads (searching…)"."""
        of = f" of about {self.total:,}" if self.total and self.total > self.scanned else ""
        threads = self.threads
        where = f" in {threads:,} thread{'s' if threads != 1 else ''}" if threads else ""
        state = "stopped" if self.cancelled else "done" if self.done else "more to search"
        skipped = ""
        if self.unreadable:
            cid, reason = self.unreadable[0]
            more = f" and {len(self.unreadable) - 1} more" if len(self.unreadable) > 1 else ""
            skipped = f"; checkpoint {cid} could not be read: {reason}{more}; the rest is searched"
        return (f"{self.matched:,} match{'es' if self.matched != 1 else ''} in {self.scanned:,} checkpoints{of}"
                f"{where} ({state}){skipped}")


def search_note(search: StoreSearch, shown: int, most: int) -> tuple[str, str]:
    """(the status line of a search that stopped, an error for the search box or "").
    `shown` matches are listed, `most` is the most the list holds."""
    if search.cancelled:
        note = f"{shown:,} matches shown; search cancelled after {search.scanned:,} checkpoints."
    elif search.done:
        note = f"{shown:,} match{'es' if shown != 1 else ''} in {search.scanned:,} checkpoints " \
               f"of {search.threads:,} thread{'s' if search.threads != 1 else ''}, every branch searched."
    elif shown >= most:
        note = f"{shown:,} matches shown, the most this list holds; {search.scanned:,} checkpoints searched " \
               "so far. Narrow the search to see the others."
    else:
        note = f"{shown:,} matches shown; {search.scanned:,} checkpoints searched so far, more to search: " \
               "Continue for the next matches."
    why = search.failures()
    why = why[:1].upper() + why[1:] + "." if why else ""
    if search.failed_everywhere:  # a wrong expression (a type error on every state): say why, not "0 matches"
        return note, why
    return (note + " " + why if why else note), ""
