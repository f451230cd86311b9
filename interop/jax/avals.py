"""jax's abstract values as hlograph types, and the jax names the importer reads.

Every value of a jaxpr has an abstract value (``aval``: shape, dtype, weak
type). Its hlograph type is the ``TensorType`` of the same shape and dtype,
except for PRNG keys: a value of an extended dtype (``key<fry>[...]``) is
represented by its key data (``uint32[..., 2]`` for threefry), the array
``jax.random.key_data`` gives, and the importer keeps the key's implementation
next to it to wrap it again where jax needs a key.

The jaxpr classes come from ``jax.extend.core``; ``physical_aval`` (the key data
type of a key) is jax-internal and is only read here.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
from jax.extend import core as jex_core
from jax._src import core as _jax_core_internal

from ...frontend.types import TensorType

__all__ = ["Literal", "Var", "DropVar", "ClosedJaxpr", "Jaxpr", "is_key", "key_impl", "tensor_type",
           "wrap_key", "unwrap_key", "as_numpy", "is_64bit"]

Literal = jex_core.Literal
Var = jex_core.Var
DropVar = jex_core.DropVar
ClosedJaxpr = jex_core.ClosedJaxpr
Jaxpr = jex_core.Jaxpr


def is_key(dtype: Any) -> bool:
    """Whether ``dtype`` is a PRNG key dtype (one of jax's extended dtypes)."""
    try:
        return jax.dtypes.issubdtype(dtype, jax.dtypes.extended)
    except TypeError:
        return False


def key_impl(aval: Any) -> Any:
    """The PRNG implementation of a key-typed aval, None for other avals."""
    dtype = getattr(aval, "dtype", None)
    return dtype._impl if dtype is not None and is_key(dtype) else None


#: (dtype, shape) of an aval -> its TensorType (avals repeat: an import asks per value)
_TYPES: dict[tuple[Any, tuple], TensorType] = {}


def tensor_type(aval: Any) -> TensorType:
    """The hlograph type of a jaxpr value (a key's is the type of its key data)."""
    try:
        return _TYPES[aval.dtype, aval.shape]
    except (KeyError, TypeError):  # (TypeError: an unhashable dim)
        pass
    t = aval
    if key_impl(t) is not None:
        t = _jax_core_internal.physical_aval(t)
    t = TensorType(np.dtype(t.dtype), tuple(int(d) for d in t.shape))
    if len(_TYPES) < 4096:
        try:
            _TYPES[aval.dtype, aval.shape] = t
        except TypeError:
            pass
    return t


def wrap_key(data: Any, impl: Any) -> Any:
    """A jax key array from key data (``impl`` None: ``data`` as it is)."""
    return data if impl is None else jax.random.wrap_key_data(data, impl=impl)


def unwrap_key(value: Any, impl: Any) -> Any:
    """The key data of a key array (``impl`` None: ``value`` as it is)."""
    return value if impl is None else jax.random.key_data(value)


def as_numpy(value: Any) -> np.ndarray:
    """A jaxpr constant or literal as a NumPy array (keys as their key data)."""
    if is_key(getattr(value, "dtype", None)):
        value = jax.random.key_data(value)
    return np.asarray(value)


def is_64bit(dtype: Any) -> bool:
    """Whether ``dtype`` is one of the types jax only keeps with x64 enabled."""
    if dtype is None or is_key(dtype):
        return False
    dt = np.dtype(dtype)
    return dt.kind in "iuf" and dt.itemsize == 8 or dt.kind == "c" and dt.itemsize == 16
