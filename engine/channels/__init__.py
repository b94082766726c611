"""Channels: the merge rule of each state key (last value, or a reducer)."""
from .base import MISSING, Applied, Channel
from .last_value import LastValue
from .reducer import ReducerChannel, reducer_display_name

__all__ = ["Channel", "Applied", "MISSING", "LastValue", "ReducerChannel", "reducer_display_name"]
