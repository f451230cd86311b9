"""Converters from PyTensor Ops to hlograph Ops, one module per PyTensor Op family
(as ``pytensor/link/jax/dispatch``); importing this package registers them all."""

from . import (basic, blockwise, elemwise, extra_ops, linalg, math, scalar, shape, sort,  # noqa: F401
               subtensor, tensor_basic)
