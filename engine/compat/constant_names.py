"""Constants of `langgraph.constants` beyond the engine's own: tags the engine honours."""
from __future__ import annotations

__all__ = ["TAG_NOSTREAM"]

TAG_NOSTREAM = "nostream"
"""A chat model run with this tag sends no tokens to the `messages` stream (langchain's
middleware tags its own model calls, e.g. a summary, with it)."""
