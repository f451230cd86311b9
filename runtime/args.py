"""Checking call arguments against a graph's input types."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..frontend.graph import Variable
from ..frontend.types import TensorType, as_dtype, dtype_name
from ..xla import pjrt
from ..xla.pjrt import DeviceArray

__all__ = ["describe", "check_argument", "native_byte_order", "from_dlpack", "check_arguments", "check_count", "ArgumentChecker",
           "signature_of", "spec_type"]

_PY_KINDS = {bool: "b", int: "iubfc", float: "fc", complex: "c"}


def describe(inputs: Sequence[Variable], i: int) -> str:
    v = inputs[i]
    return f"argument {i} ({v.name!r})" if v.name else f"argument {i}"


def _value_dtype_shape(value: Any) -> tuple[np.dtype, tuple[int, ...]] | None:
    dt = getattr(value, "dtype", None)
    shape = getattr(value, "shape", None)
    if dt is None or shape is None:
        return None
    return np.dtype(dt), tuple(shape)


def _python_kinds(value: Any) -> str:
    """The dtype kinds a Python scalar (or an instance of a subclass) may become."""
    for tp, kinds in _PY_KINDS.items():  # bool before int: bool subclasses int
        if isinstance(value, tp):
            return kinds
    return ""


def _convert_python_scalar(value: Any, t: TensorType, where: str) -> np.ndarray:
    kinds = _python_kinds(value)
    dt_kind = "f" if t.dtype.kind == "V" or t.dtype.name == "bfloat16" else t.dtype.kind
    if dt_kind not in kinds and not (dt_kind in "iufc" and type(value) is bool):
        raise TypeError(f"{where}: expected {t}, got Python {type(value).__name__} {value!r}")
    if t.ndim != 0:
        raise ValueError(f"{where}: expected {t}, got a Python scalar")
    try:
        return np.asarray(value, dtype=t.dtype)
    except OverflowError:
        raise ValueError(f"{where}: {value!r} does not fit {t}") from None


_DLPACK_CPU = 1  # DLDeviceType kDLCPU


def from_dlpack(value: Any, where: str = "argument") -> Any:
    """A DLPack producer (a torch tensor, a CuPy array, ...) as a NumPy array
    (CPU memory, no copy) or a jax array (device memory, no copy where the
    device allows); TypeError naming ``where`` when it cannot be imported."""
    try:
        on_cpu = value.__dlpack_device__()[0] == _DLPACK_CPU
    except Exception:  # producers without __dlpack_device__: let jax decide
        on_cpu = False
    if on_cpu:
        try:
            return np.from_dlpack(value)
        except (TypeError, BufferError, RuntimeError):
            pass  # e.g. bfloat16, which NumPy does not import: jax does
    try:
        return pjrt.from_dlpack(value)
    except Exception as e:
        raise TypeError(f"{where}: cannot import {type(value).__name__} through DLPack: {e}") from None


def native_byte_order(value: Any) -> Any:
    """``value`` itself, or for a NumPy array or scalar whose dtype is not in native
    byte order, a copy in native order with the same values (XLA, and jaxlib's
    dispatcher, read an array's bytes as native ones)."""
    if isinstance(value, (np.ndarray, np.generic)) and not value.dtype.isnative:
        return value.astype(value.dtype.newbyteorder("="))
    return value


def check_argument(value: Any, t: TensorType, inputs: Sequence[Variable], i: int) -> Any:
    """Returns ``value`` as a NumPy array or a jax array when it fits ``t``; raises
    TypeError (not an array, wrong dtype) or ValueError (wrong shape) otherwise."""
    if isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.generic):
        return _convert_python_scalar(value, t, describe(inputs, i))
    if (type(value) is not DeviceArray and not isinstance(value, (np.ndarray, np.generic))
            and hasattr(value, "__dlpack__")):
        value = from_dlpack(value, describe(inputs, i))
    value = native_byte_order(value)
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
    if type(value) is not np.ndarray and type(value) is not DeviceArray:
        value = np.asarray(value)
    return value


class ArgumentChecker:
    """``checker(args) -> list`` checks a call's arguments against ``inputs``.

    The expected (dtype, shape) of every input is computed once, so an argument
    that is a NumPy or jax array of exactly the expected type costs one tuple
    comparison; anything else (Python scalars, lists, other array types, and
    every mismatch) goes through ``check_argument`` for conversion or a clear
    error naming the argument.
    """

    __slots__ = ("inputs", "_expected")

    def __init__(self, inputs: Sequence[Variable]):
        self.inputs = list(inputs)
        #: per input: (dtype, shape) when the type is static, else None
        self._expected = [(v.type.dtype, v.type.shape) if v.type.is_static else None
                          for v in self.inputs]

    def scalar(self, i: int, value: Any) -> np.ndarray:
        """A Python scalar argument for input ``i``, of a kind already accepted for
        it (a call with this signature passed the checks), as a NumPy array of the
        input's type; raises ValueError when the value does not fit."""
        t = self.inputs[i].type
        try:
            return np.asarray(value, dtype=t.dtype)
        except OverflowError:
            raise ValueError(f"{describe(self.inputs, i)}: {value!r} does not fit {t}") from None

    def __call__(self, args: Sequence[Any]) -> list[Any]:
        inputs = self.inputs
        if len(args) != len(inputs):
            check_count(inputs, args)
        out = list(args)
        for i, (a, exp) in enumerate(zip(args, self._expected)):
            tp = type(a)
            if ((tp is np.ndarray or tp is DeviceArray) and exp is not None
                    and a.dtype == exp[0] and a.shape == exp[1]):
                continue
            out[i] = check_argument(a, inputs[i].type, inputs, i)
        return out


def check_count(inputs: Sequence[Variable], args: Sequence[Any]) -> None:
    """Raises TypeError unless there is one argument per input."""
    if len(args) != len(inputs):
        names = ", ".join(v.name or f"#{i}" for i, v in enumerate(inputs))
        raise TypeError(f"expected {len(inputs)} arguments ({names}), got {len(args)}")


def check_arguments(inputs: Sequence[Variable], args: Sequence[Any]) -> list[Any]:
    """The arguments as NumPy or jax arrays, checked against ``inputs`` (count,
    dtype, shape); raises TypeError or ValueError naming the argument."""
    check_count(inputs, args)
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
    """Cache key for a call: the (dtype, shape) of every argument; the Python
    type for scalars and other objects without a dtype."""
    return tuple(_signature(a) for a in args)


def _signature(a: Any) -> tuple:
    dt = getattr(a, "dtype", None)
    if dt is not None:
        return dt, tuple(getattr(a, "shape", ()))
    if isinstance(a, (list, tuple)):
        try:
            arr = np.asarray(a)
        except ValueError:  # ragged: rejected when the arguments are checked
            return type(a), ()
        return type(a), arr.dtype, arr.shape
    return type(a), ()
