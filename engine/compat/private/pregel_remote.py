"""Two private names of `langgraph.pregel.remote` that tests of RemoteGraph-based code use:
`_V3_SUPPORTED_KWARGS` (what a remote v3 event stream takes besides input and config) and
`_merge_tracing_headers` (a request's headers with the current trace's, for
`distributed_tracing=True`). Patching `_merge_tracing_headers` here patches the one the
engine's RemoteGraph calls (`__patched_in__`, compat/finder.py)."""
from __future__ import annotations

from ...remote.event_stream import V3_KWARGS as _V3_SUPPORTED_KWARGS
from ...remote.graph import merge_tracing_headers as _merge_tracing_headers

__all__ = ["_V3_SUPPORTED_KWARGS", "_merge_tracing_headers"]

__patched_in__ = {"_merge_tracing_headers": ("engine.remote.graph", "merge_tracing_headers")}
"""Names the engine reads where they live (module, attribute): a patch of the served name goes there."""
