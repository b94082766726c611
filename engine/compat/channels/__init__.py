"""`langgraph.channels`: LangGraph's channel classes, each a layer over an engine channel.

Used on their own they behave as LangGraph's (update / get / checkpoint); used in a state
annotation they name the engine channel the key folds through (base.py).
"""
from .base import BaseChannel
from .binop import BinaryOperatorAggregate
from .delta import DeltaChannel
from .last_value import LastValue, LastValueAfterFinish
from .named_barrier_value import NamedBarrierValue, NamedBarrierValueAfterFinish
from .scoped import AnyValue, EphemeralValue, UntrackedValue
from .topic import Topic

__all__ = ["BaseChannel", "AnyValue", "LastValue", "LastValueAfterFinish", "UntrackedValue", "EphemeralValue",
           "BinaryOperatorAggregate", "DeltaChannel", "NamedBarrierValue", "NamedBarrierValueAfterFinish", "Topic"]
