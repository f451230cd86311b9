"""Checking call arguments against a graph's input types."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..frontend.graph import Variable
from ..frontend.types import TensorType, as_dtype, dtype_name

__all__ = ["describe", "check_arguments", "signature_of", "spec_type"]

_PY_KINDS = {bool: "b", int: "iub", float: "fc", complex: "c"}


def describe(inputs: Sequence[Variable], i: int) -> str:
    v = inputs[i]
    return f"argument {i} ({v.name!r})" if v.name else f"argument {i}"


def _value_dtype_shape(value: Any) -> tuple[np.dtype, tuple[int, ...]] | None:
    dt = getattr(value, "dtype", None)
    shape = getattr(value, "shape", None)
    if dt is None or shape is None:
        return None
    return np.dtype(dt), tuple(shape)


def _convert_python_scalar(value: Any, t: TensorType, where: str) -> np.ndarray:
    kinds = _PY_KINDS[type(value)] if type(value) in _PY_KINDS else ""
    dt_kind = "f" if t.dtype.kind == "V" or t.dtype.name == "bfloat16" else t.dtype.kind
    if dt_kind not in kinds and not (dt_kind in "iufc" and type(value) is bool):
        raise TypeError(f"{where}: expected {t}, got Python {type(value).__name__} {value!r}")
    if t.ndim != 0:
        raise ValueError(f"{where}: expected {t}, got a Python scalar")
    try:
        return np.asarray(value, dtype=t.dtype)
    except OverflowError:
        raise ValueError(f"{where}: {value!r} does not fit {t}") from None


def check_argument(value: Any, t: TensorType, inputs: Sequence[Variable], i: int) -> Any:
    """Returns ``value`` (a NumPy array or a jax.Array) when it fits ``t``; raises otherwise."""
    if isinstance(value, (bool, int, float, complex)):
        return _convert_python_scalar(value, t, describe(inputs, i))
    ds = _value_dtype_shape(value)
    if ds is None:
        if isinstance(value, (list, tuple)):
            value = np.asarray(value)
            ds = value.dtype, value.shape
        else:
            raise TypeError(
                f"{describe(inputs, i)}: expected an array of {t}, got {type(value).__name__}"
            )
    dt, shape = ds
    if dt != t.dtype:
        raise TypeError(f"{describe(inputs, i)}: expected dtype {dtype_name(t.dtype)} ({t}), "
                        f"got {dtype_name(dt)}{list(shape)}")
    if len(shape) != t.ndim or any(s is not None and s != d for s, d in zip(t.shape, shape)):
        raise ValueError(f"{describe(inputs, i)}: expected shape {t}, got shape {tuple(shape)}")
    if type(value) is not np.ndarray and not _is_jax_array(value):
        value = np.asarray(value)
    return value


def _is_jax_array(value: Any) -> bool:
    return type(value).__module__.startswith("jax")


def check_arguments(inputs: Sequence[Variable], args: Sequence[Any]) -> list[Any]:
    if len(args) != len(inputs):
        names = ", ".join(v.name or f"#{i}" for i, v in enumerate(inputs))
        raise TypeError(f"expected {len(inputs)} arguments ({names}), got {len(args)}")
    return [check_argument(a, v.type, inputs, i) for i, (a, v) in enumerate(zip(args, inputs))]


def spec_type(spec: Any, t: TensorType, inputs: Sequence[Variable], i: int) -> TensorType:
    """The concrete type of a ``lower()`` spec: an array, or a ``(shape, dtype)`` pair."""
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], (tuple, list)):
        shape, dtype = spec
        dt = as_dtype(dtype)
        shape = tuple(shape)
    else:
        arr = check_argument(spec, t, inputs, i)
        dt, shape = np.dtype(arr.dtype), tuple(arr.shape)
    if dt != t.dtype:
        raise TypeError(f"{describe(inputs, i)}: expected dtype {dtype_name(t.dtype)}, got {dtype_name(dt)}")
    if len(shape) != t.ndim or any(s is not None and s != d for s, d in zip(t.shape, shape)):
        raise ValueError(f"{describe(inputs, i)}: expected shape {t}, got shape {shape}")
    return TensorType(dt, shape)


def signature_of(args: Sequence[Any]) -> tuple:
    """Cache key for a call: the (dtype, shape) of every argument."""
    return tuple((getattr(a, "dtype", type(a)), getattr(a, "shape", ())) for a in args)
