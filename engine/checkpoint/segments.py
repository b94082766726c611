"""Appended lists in the SQLite file, stored as their new items only.

A list that a reducer only appended to is stored as segment `seq` of a *chain*
(`sid = chain << 20 | seq`): the list's encoded new items, the inside of a JSON array.
Version `seq` of a chain is the chain's origin (another chain's segment, where a branch
started) plus segments 0..seq. Every 64 segments of a chain are moved into one chunk row,
with where each segment ends, so loading any version of a list reads one range of chunks
and at most 63 segments per chain, plus one chain per branch point above it. No value is
ever stored twice. A value that is not an appended list is a chain of one segment.
"""
from __future__ import annotations

import itertools
import sqlite3
import struct

from ..errors import CheckpointDecodeError
from .encoding import join_list_segments
from .sqlite_schema import missing_value_error

__all__ = ["Segments"]

_SEQ_BITS, _CHUNK = 20, 64
_SEQ_MASK = (1 << _SEQ_BITS) - 1
_ENDS = struct.Struct(f"<{_CHUNK}I")
_MB = 1024 * 1024

# One statement: a segment goes after its base only while no chunk already holds that
# place (else the chain went on past the base, and this append is a branch).
_APPEND = (
    "INSERT INTO segments(sid, tid, data) SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM chunks WHERE sid = ?)"
)
_START = "INSERT INTO segments(sid, tid, data) VALUES (?, ?, ?)"
_SEGMENT_RANGE = "SELECT data FROM segments WHERE sid BETWEEN ? AND ? ORDER BY sid"


def _chunk_of(sid: int) -> int:
    """The sid of the chunk that holds (or will hold) segment `sid`."""
    return (sid & ~_SEQ_MASK) | ((sid & _SEQ_MASK) // _CHUNK)


class Segments:
    """The segments, chunks and origins tables of one file, as one saver writes them.

    Holds the next free chain number (counted once per connection); call `forget()`
    when another saver may have written to the file."""

    def __init__(self, path: str, max_bytes: int) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self._next_chain: int | None = None

    def forget(self) -> None:
        self._next_chain = None

    # -- writing (inside the caller's transaction) ------------------------------------------
    def store(self, conn: sqlite3.Connection, tid: int, data: bytes | bytearray, base_sid: int | None) -> int:
        """Insert one segment; returns its sid. An append goes right after its base when
        the base is its chain's tip, else it starts a new chain whose origin is the base."""
        if base_sid is not None and (base_sid & _SEQ_MASK) != _SEQ_MASK:
            sid = base_sid + 1
            try:
                if conn.execute(_APPEND, (sid, tid, data, _chunk_of(sid))).rowcount == 1:
                    if (sid & _SEQ_MASK) % _CHUNK == _CHUNK - 1:
                        self._close_chunk(conn, tid, sid)
                    return sid
            except sqlite3.IntegrityError:
                pass  # the base already has a successor: this is a branch
        while True:
            if self._next_chain is None:
                top = conn.execute("SELECT max(sid) FROM segments").fetchone()[0]
                self._next_chain = (top >> _SEQ_BITS) + 1 if top is not None else 1
            chain = self._next_chain
            self._next_chain += 1
            try:
                conn.execute(_START, (chain << _SEQ_BITS, tid, data))
                break
            except sqlite3.IntegrityError:  # another saver on this file took that chain
                self._next_chain = None
        if base_sid is not None:
            conn.execute("INSERT INTO origins(chain, tid, origin) VALUES (?, ?, ?)", (chain, tid, base_sid))
        return chain << _SEQ_BITS

    def _close_chunk(self, conn: sqlite3.Connection, tid: int, last: int) -> None:
        """Move the 64 segments ending at `last` into one chunk row, so that loading a long
        list reads a row per 64 appends."""
        first = last - _CHUNK + 1
        parts = [r[0] for r in conn.execute(_SEGMENT_RANGE, (first, last))]
        if len(parts) != _CHUNK:  # a damaged chain: leave it as it is
            return
        joined: list[bytes] = []
        ends, pos = [], 0
        for part in parts:
            if part:
                pos += len(part) + (1 if joined else 0)
                joined.append(part)
            ends.append(pos)
        conn.execute(
            "INSERT INTO chunks(sid, tid, data, ends) VALUES (?, ?, ?, ?)",
            (_chunk_of(last), tid, b",".join(joined), _ENDS.pack(*ends)),
        )
        conn.execute("DELETE FROM segments WHERE sid BETWEEN ? AND ?", (first, last))

    @staticmethod
    def delete_thread(conn: sqlite3.Connection, tid: int) -> None:
        conn.execute("DELETE FROM segments WHERE tid = ?", (tid,))
        conn.execute("DELETE FROM chunks WHERE tid = ?", (tid,))
        conn.execute("DELETE FROM origins WHERE tid = ?", (tid,))

    # -- reading --------------------------------------------------------------------------
    def load(self, conn: sqlite3.Connection, checkpoint_id: str, key: str,
             sid: int, count: int | None, size: int) -> bytes:
        """The encoded value of one channel: its chunks and segments, chain by chain.
        `count` is None for a value that is not a list (a chain of one segment)."""
        limit = self.max_bytes
        if size > limit:
            raise CheckpointDecodeError(
                f"`{self.path}`: channel `{key}` of checkpoint `{checkpoint_id}` takes {size / _MB:.1f} MB, over "
                f"the {limit / _MB:.0f} MB limit; it was not loaded. If you trust the file, open it with "
                "`SqliteSaver(path, max_value_bytes=...)`."
            )
        if count is None:
            row = conn.execute("SELECT data FROM segments WHERE sid = ?", (sid,)).fetchone()
            if row is None:
                raise missing_value_error(self.path, checkpoint_id, key)
            data: bytes = row[0]
            return data
        pieces: list[list[bytes]] = []
        total = 0
        while True:
            part = self._chain_part(conn, sid, checkpoint_id, key)
            total += sum(map(len, part)) + len(part)
            if total > limit or len(pieces) > 10_000:
                raise self._malformed(checkpoint_id, key)
            pieces.append(part)
            row = conn.execute("SELECT origin FROM origins WHERE chain = ?", (sid >> _SEQ_BITS,)).fetchone()
            if row is None:
                break
            sid = row[0]
        return join_list_segments(itertools.chain.from_iterable(reversed(pieces)))

    def _chain_part(self, conn: sqlite3.Connection, sid: int, checkpoint_id: str, key: str) -> list[bytes]:
        """One chain's segments up to `sid`: whole chunks, then the segments after them (or
        the part of the chunk that holds `sid`)."""
        base, seq = sid & ~_SEQ_MASK, sid & _SEQ_MASK
        rows = conn.execute(
            "SELECT sid, data, ends FROM chunks WHERE sid BETWEEN ? AND ? ORDER BY sid", (base, base + seq // _CHUNK)
        ).fetchall()
        if any(r[0] != base + i for i, r in enumerate(rows)) or len(rows) < seq // _CHUNK:
            raise missing_value_error(self.path, checkpoint_id, key)
        part = [r[1] for r in rows]
        if len(rows) > seq // _CHUNK:  # `sid` lies inside the last chunk: keep its start
            ends = rows[-1][2]
            if type(ends) is not bytes or len(ends) != _ENDS.size:
                raise self._malformed(checkpoint_id, key)
            part[-1] = part[-1][: struct.unpack_from("<I", ends, 4 * (seq % _CHUNK))[0]]
            return part
        first = base + len(rows) * _CHUNK
        tail = [r[0] for r in conn.execute(_SEGMENT_RANGE, (first, sid))]
        if len(tail) != sid - first + 1:
            raise missing_value_error(self.path, checkpoint_id, key)
        return part + tail

    def _malformed(self, checkpoint_id: str, key: str) -> CheckpointDecodeError:
        return CheckpointDecodeError(f"`{self.path}`: channel `{key}` of checkpoint `{checkpoint_id}` is malformed")

    def load_one(self, conn: sqlite3.Connection, sid: int) -> bytes | None:
        """Segment `sid` alone (the items one append added), from the segments table or its
        chunk; None when it is in neither or its chunk is malformed (the caller loads the
        whole value instead)."""
        row = conn.execute("SELECT data FROM segments WHERE sid = ?", (sid,)).fetchone()
        if row is not None:
            return row[0] if type(row[0]) is bytes else None
        row = conn.execute("SELECT data, ends FROM chunks WHERE sid = ?", (_chunk_of(sid),)).fetchone()
        if row is None or type(row[0]) is not bytes or type(row[1]) is not bytes or len(row[1]) != _ENDS.size:
            return None
        data, ends = row[0], _ENDS.unpack(row[1])
        i = (sid & _SEQ_MASK) % _CHUNK
        before = ends[i - 1] if i else 0
        if not before <= ends[i] <= len(data):
            return None
        if ends[i] == before:  # an append of no items
            return b""
        start = before + 1 if before else 0  # the comma `_close_chunk` put before it
        return data[start:ends[i]]
