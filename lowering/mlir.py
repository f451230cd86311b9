"""The one module that imports jax/jaxlib MLIR and PJRT APIs.

Everything else in hlograph imports ``ir``, ``hlo``, ``chlo``, ``func``,
``passmanager`` and the runtime entry points from here, so that a jax upgrade
(the tested range is pinned in pyproject.toml) touches this file only.
"""

from __future__ import annotations

import numpy as np

import jax
from jax.extend.mlir import ir, passmanager  # noqa: F401
from jax.extend.mlir.dialects import chlo, func  # noqa: F401
from jax.extend.mlir.dialects import stablehlo as hlo  # noqa: F401
from jax.interpreters import mlir as _jax_mlir
from jax._src.lib import xla_client as _xc

from ..frontend.types import DTYPES, TensorType

__all__ = [
    "ir", "hlo", "chlo", "func", "passmanager", "make_context", "element_type",
    "tensor_type", "dense_attr", "i64_array", "module_to_bytecode", "jax", "xc",
    "JaxRuntimeError", "JAX_VERSION",
]

xc = _xc
JAX_VERSION = jax.__version__
JaxRuntimeError = jax.errors.JaxRuntimeError

_ELEMENT_TYPES = {
    DTYPES["bool"]: lambda: ir.IntegerType.get_signless(1),
    DTYPES["int8"]: lambda: ir.IntegerType.get_signless(8),
    DTYPES["int16"]: lambda: ir.IntegerType.get_signless(16),
    DTYPES["int32"]: lambda: ir.IntegerType.get_signless(32),
    DTYPES["int64"]: lambda: ir.IntegerType.get_signless(64),
    DTYPES["uint8"]: lambda: ir.IntegerType.get_unsigned(8),
    DTYPES["uint16"]: lambda: ir.IntegerType.get_unsigned(16),
    DTYPES["uint32"]: lambda: ir.IntegerType.get_unsigned(32),
    DTYPES["uint64"]: lambda: ir.IntegerType.get_unsigned(64),
    DTYPES["float16"]: ir.F16Type.get,
    DTYPES["bfloat16"]: ir.BF16Type.get,
    DTYPES["float32"]: ir.F32Type.get,
    DTYPES["float64"]: ir.F64Type.get,
    DTYPES["complex64"]: lambda: ir.ComplexType.get(ir.F32Type.get()),
    DTYPES["complex128"]: lambda: ir.ComplexType.get(ir.F64Type.get()),
}


def make_context() -> ir.Context:
    """A fresh MLIR context with the stablehlo, chlo and func dialects loaded."""
    return _jax_mlir.make_ir_context()


def element_type(dtype: np.dtype) -> ir.Type:
    return _ELEMENT_TYPES[dtype]()


def tensor_type(t: TensorType) -> ir.RankedTensorType:
    if not t.is_static:
        raise ValueError(f"cannot lower the non-static type {t}; give concrete shapes to lower()")
    return ir.RankedTensorType.get(t.shape, element_type(t.dtype))


def dense_attr(value: np.ndarray) -> ir.DenseElementsAttr:
    if not value.flags.c_contiguous:
        value = value.copy(order="C")  # (np.ascontiguousarray would make 0-d arrays 1-d)
    return ir.DenseElementsAttr.get(value, type=element_type(value.dtype), shape=value.shape)


def i64_array(values) -> ir.DenseI64ArrayAttr:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def module_to_bytecode(module: ir.Module) -> bytes:
    return _jax_mlir.module_to_bytecode(module)


def get_backend(platform: str | None):
    """The PJRT client for ``platform`` ("cpu", "gpu", "tpu"; None = jax's default)."""
    return jax.extend.backend.get_backend(platform)


def compile_options() -> "xc.CompileOptions":
    opts = xc.CompileOptions()
    opts.num_replicas = 1
    opts.num_partitions = 1
    return opts


def compile_and_load(client, bytecode: bytes, devices, options):
    return client.compile_and_load(bytecode, xc.DeviceList(tuple(devices)), options)


def device_putter(dtype: np.dtype, shape: tuple[int, ...], device):
    """A fast host-to-device transfer for arrays of one dtype and shape (no dtype
    canonicalization: 64-bit values stay 64-bit, unlike ``jax.device_put``)."""
    from jax._src import core
    from jax.sharding import SingleDeviceSharding

    aval = core.ShapedArray(shape, dtype)
    sharding = SingleDeviceSharding(device)
    devices = [device]
    put = xc.batched_device_put

    def device_put(value):
        return put(aval, sharding, [value], devices, True, enable_x64=True)

    return device_put
