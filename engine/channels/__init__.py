"""Channels: the merge rule of each state key (last value, reducer, scoped values)."""
from .base import MISSING, Applied, Channel, ChannelSpec
from .last_value import LastValue
from .reducer import BatchReducerChannel, ReducerChannel, reducer_display_name
from .scoped import CollectValue, OneStepValue, UnsavedValue

__all__ = ["Channel", "ChannelSpec", "Applied", "MISSING", "LastValue", "ReducerChannel", "BatchReducerChannel", "reducer_display_name",
           "OneStepValue", "UnsavedValue", "CollectValue"]
