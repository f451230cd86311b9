"""Converters from PyTensor Ops to hlograph Ops, one module per PyTensor Op family
(as ``pytensor/link/jax/dispatch``); importing this package registers them all."""

from . import (basic, blockwise, elemwise, extra_ops, fft, linalg, math, scalar, shape, sort,  # noqa: F401
               subtensor, tensor_basic)
from . import random  # noqa: F401,E402 - random variables (and the generator <-> key pair the linker uses)
from . import scan  # noqa: F401,E402 - Scan and ScalarLoop
from . import sparse  # noqa: F401,E402 - sparse matrices (dense inside the graph)
from . import signal  # noqa: F401,E402 - convolutions (pytensor.tensor.signal)
