"""Pass pipelines over StableHLO modules."""

from .pipeline import run, PIPELINES

__all__ = ["run", "PIPELINES"]
