"""Running compiled modules: PJRT clients and executables."""

from .executables import Executable, clear_cache, compile_bytecode, get_client
from .load import load

__all__ = ["Executable", "clear_cache", "compile_bytecode", "get_client", "load"]
