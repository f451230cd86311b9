"""Running compiled modules: PJRT clients and executables."""

from .pjrt import Executable, clear_cache, compile_bytecode, get_client

__all__ = ["Executable", "clear_cache", "compile_bytecode", "get_client"]
