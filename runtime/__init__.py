"""Running compiled modules: PJRT clients and executables."""

from .executables import Executable, clear_cache, compile_bytecode, get_client
from .load import load
from . import numpy_alignment

numpy_alignment.install()  # large NumPy arguments are then read in place, not copied per call

__all__ = ["Executable", "clear_cache", "compile_bytecode", "get_client", "load"]
