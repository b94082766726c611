"""Recorded replay: re-run a recorded run with chosen nodes answered from their records."""
from .answers import PATH_SEP
from .driver import ReplayResult, ReplayStep, areplay, check_nodes, node_paths, replay
from .branch import RecordedBranch, ReplayError, Superstep, TaskRecord, load_branch

__all__ = ["replay", "areplay", "ReplayResult", "ReplayStep", "ReplayError", "RecordedBranch", "Superstep",
           "TaskRecord", "load_branch", "check_nodes", "node_paths", "PATH_SEP"]
