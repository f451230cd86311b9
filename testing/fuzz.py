"""A differential fuzzer against NumPy itself.

Each random program is built twice: once with hlograph's builders (``hg.<name>``)
and once as plain NumPy calls (``np.<name>``) over the public names that have a
NumPy namesake. The hlograph graph runs compiled at ``O0`` and ``O2`` and through
``hg.evaluate``; every result is compared with NumPy's (dtype, shape, values with
a per-dtype tolerance, NaN positions). An exception from hlograph is a failure
unless NumPy raises the same kind of error on the same call. Where a documented
difference explains a result (README, "NumPy semantics: the documented differences"
and "Undefined inputs": subnormals flushed by XLA:CPU, float-to-int casts of values
past the type), it is no failure. A failing program
is shrunk to the one or two ops that still fail, their inputs being NumPy's
values at that point.

    from hlograph.testing import fuzz
    for failure in fuzz.run(graphs=200, seed=0):
        print(failure.describe())
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, Callable, Iterator, Sequence

import numpy as np

__all__ = ["OpSpec", "Step", "Program", "Failure", "SPECS", "DTYPES", "generate", "check",
           "shrink", "run", "values_for", "compare"]

try:  # bfloat16 is a NumPy dtype only through ml_dtypes (a jaxlib dependency)
    import ml_dtypes as _ml_dtypes
    _BF16 = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - jaxlib always brings it
    _BF16 = None

DTYPES: tuple[np.dtype, ...] = tuple(np.dtype(d) for d in (
    "bool", "int8", "uint8", "uint32", "int64", "float16", "float32", "float64",
    "complex64", "complex128")) + ((_BF16,) if _BF16 is not None else ())

# the relative tolerance a result of this dtype is compared with
_RTOL = {"e": 2e-2, "f": 2e-4, "d": 1e-9, "F": 2e-4, "D": 1e-9}


def _rtol(dtype: np.dtype) -> float:
    if _BF16 is not None and dtype == _BF16:
        return 5e-2
    return _RTOL.get(dtype.char, 0.0)


# --- values ------------------------------------------------------------------


def values_for(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype,
               special: bool = True, subnormals: bool = False) -> np.ndarray:
    """Random values of ``dtype``: small numbers, and (``special``) the edge
    cases: NaN, +-inf, -0.0, extremes of integer types, (``subnormals``) the
    smallest subnormal of either sign."""
    dtype = np.dtype(dtype)
    n = math.prod(shape)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        v = rng.integers(max(info.min, -5), min(info.max, 6), size=n, endpoint=False)
        out = v.astype(dtype)
        if special and n:
            extremes = np.array([info.min, info.max, 0, 1], dtype=dtype)
            mask = rng.random(n) < 0.15
            out[mask] = rng.choice(extremes, size=int(mask.sum()))
        return out.reshape(shape)
    real = np.dtype(np.float64)
    v = np.round(rng.normal(scale=2.0, size=n), 2)
    if special and n:
        specials = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 0.5]
        if subnormals:
            tiny = np.finfo(np.float64 if dtype.kind == "c" else dtype).smallest_subnormal
            specials += [float(tiny), -float(tiny)]
        mask = rng.random(n) < 0.2
        v[mask] = rng.choice(np.array(specials, real), size=int(mask.sum()))
    if dtype.kind == "c":
        w = np.round(rng.normal(scale=2.0, size=n), 2)
        if special and n:
            mask = rng.random(n) < 0.1
            w[mask] = rng.choice(np.array([np.nan, np.inf, -0.0], real), size=int(mask.sum()))
        with np.errstate(all="ignore"):
            return (v + 1j * w).astype(dtype).reshape(shape)
    with np.errstate(all="ignore"):
        out = v.astype(dtype)
    if subnormals and special and n:
        tiny = np.finfo(dtype).smallest_subnormal
        mask = rng.random(n) < 0.05
        out[mask] = np.where(rng.random(int(mask.sum())) < 0.5, tiny, -tiny).astype(dtype)
    return out.reshape(shape)


# --- the op table ----------------------------------------------------------------

Params = Callable[[np.random.Generator, Sequence[np.ndarray]], dict]


@dataclasses.dataclass(frozen=True)
class OpSpec:
    """One public name with a NumPy namesake: ``name`` (``"linalg.det"`` for a
    submodule), the number of array arguments, the dtype kinds each accepts, the
    least rank, and ``params`` drawing keyword arguments from the arguments."""

    name: str
    nin: int = 1
    kinds: str = "buifc"
    min_ndim: int = 0
    params: Params | None = None
    square: bool = False       # the last two dims are equal (linalg)
    same_shape: bool = False   # binary arguments of one shape (no broadcasting)
    scalar_rhs: bool = True    # a binary op may take a Python scalar second
    max_ndim: int = 4
    bfloat16: bool = True      # NumPy (through ml_dtypes) runs it on bfloat16
    finite: bool = False       # finite inputs only (LAPACK's SVD may not return on inf/NaN)
    finite_complex: bool = False  # finite inputs only when one of them is complex
    rhs_kinds: str | None = None  # kinds of the second argument, when not ``kinds``


def _axis(rng, x, allow_none=True):
    if x.ndim == 0:
        # NumPy's reductions take axis 0 or -1 on a 0-d input (where NumPy refuses, as
        # numpy.mean does, the step is dropped)
        return None if allow_none and rng.random() < 0.5 else int(rng.choice([0, -1]))
    if allow_none and rng.random() < 0.25:
        return None
    return int(rng.integers(-x.ndim, x.ndim))


def _reduce_params(keepdims=True):
    def params(rng, args):
        p = {"axis": _axis(rng, args[0])}
        if keepdims and rng.random() < 0.3:
            p["keepdims"] = True
        return p
    return params


def _axis_params(allow_none=True):
    def params(rng, args):
        return {"axis": _axis(rng, args[0], allow_none)}
    return params


def _sort_params(rng, args):
    x = args[0]
    p = {"axis": -1 if x.ndim == 0 or rng.random() < 0.5 else _axis(rng, x)}
    if rng.random() < 0.5:
        p["stable"] = True
    return p


def _cumulative_params(rng, args):
    x = args[0]
    p = {} if x.ndim <= 1 and rng.random() < 0.5 else {"axis": _axis(rng, x, allow_none=False)}
    if rng.random() < 0.4:
        p["include_initial"] = True
    return p


def _astype_params(rng, args):
    return {"dtype": DTYPES[int(rng.integers(len(DTYPES)))]}


def _einsum_params(rng, args):
    # a contraction of two operands whose labels follow their ranks
    labels = "abcd"
    a, b = args
    la = labels[:a.ndim]
    lb = "".join(labels[i] if rng.random() < 0.6 else "ijkl"[i] for i in range(b.ndim))
    out_pool = sorted(set(la + lb))
    out = "".join(c for c in out_pool if rng.random() < 0.5)
    return {"subscripts": f"{la},{lb}->{out}"}


def _round_params(rng, args):
    # uint32 to tens: NumPy rounds in float64 and casts back, and that cast of a value past
    # the type's range depends on the array's length (README, the documented differences)
    low = 0 if args[0].dtype == np.uint32 else -1
    return {"decimals": int(rng.integers(low, 3))}


def _quantile_params(rng, args):
    p = _reduce_params()(rng, args)
    p["q"] = float(rng.choice([0.0, 0.25, 0.5, 1.0]))
    return p


def _percentile_params(rng, args):
    p = _quantile_params(rng, args)
    p["q"] *= 100
    return p


def _diff_params(rng, args):
    return {"n": int(rng.integers(0, 3)), "axis": _axis(rng, args[0], allow_none=False)}


def _roll_params(rng, args):
    return {"shift": int(rng.integers(-3, 4)), "axis": _axis(rng, args[0])}


def _repeat_params(rng, args):
    return {"repeats": int(rng.integers(0, 3)), "axis": _axis(rng, args[0])}


def _clip_params(rng, args):
    if rng.random() < 0.3:  # Python ints, some past small integer types' ranges
        return {"a_min": int(rng.choice([-300, -1, 0])), "a_max": int(rng.choice([2, 300, 2 ** 40]))}
    return {"a_min": float(rng.choice([-1.0, 0.0])), "a_max": float(rng.choice([1.0, 2.5]))}


def _norm_params(rng, args):
    x = args[0]
    choices = [{}]
    if x.ndim >= 1:
        choices += [{"ord": o, "axis": -1} for o in (1, 2, np.inf)]
    if x.ndim >= 2:
        choices += [{"ord": o, "axis": (-2, -1)} for o in ("fro", 1, 2, np.inf, "nuc")]
    return choices[int(rng.integers(len(choices)))]


def _reduce_dtype_params(rng, args):
    p = _reduce_params()(rng, args)
    if rng.random() < 0.3:
        p["dtype"] = DTYPES[int(rng.integers(len(DTYPES)))]
    return p


def _ddof_params(rng, args):
    p = _reduce_params()(rng, args)
    if rng.random() < 0.4:
        p["ddof"] = int(rng.integers(0, 3))
    return p


def _cumsum_dtype_params(rng, args):
    p = _axis_params()(rng, args)
    if rng.random() < 0.3:
        p["dtype"] = DTYPES[int(rng.integers(len(DTYPES)))]
    return p


def _axes_tuple(rng, x):
    """None, an axis, or a tuple of distinct (possibly negative) axes."""
    if x.ndim == 0 or rng.random() < 0.2:
        return None
    if rng.random() < 0.5:
        return int(rng.integers(-x.ndim, x.ndim))
    k = int(rng.integers(1, x.ndim + 1))
    axes = rng.permutation(x.ndim)[:k]
    return tuple(int(a) - x.ndim if rng.random() < 0.5 else int(a) for a in axes)


def _reduce_tuple_params(rng, args):
    p = {"axis": _axes_tuple(rng, args[0])}
    if rng.random() < 0.3:
        p["keepdims"] = True
    return p


def _swapaxes_params(rng, args):
    n = args[0].ndim
    return {"axis1": int(rng.integers(-n, n)), "axis2": int(rng.integers(-n, n))}


def _moveaxis_params(rng, args):
    n = args[0].ndim
    return {"source": int(rng.integers(-n, n)), "destination": int(rng.integers(-n, n))}


def _expand_dims_params(rng, args):
    n = args[0].ndim + 1
    if rng.random() < 0.3 and n >= 2:
        return {"axis": (0, -1)}
    return {"axis": int(rng.integers(-n, n))}


def _squeeze_params(rng, args):
    ones = [i for i, d in enumerate(args[0].shape) if d == 1]
    if not ones or rng.random() < 0.4:
        return {}
    i = ones[int(rng.integers(len(ones)))]
    return {"axis": i - args[0].ndim if rng.random() < 0.5 else i}


def _concat_params(rng, args):
    n = args[0].ndim
    if n == 0 or rng.random() < 0.2:
        return {"axis": None}
    return {"axis": int(rng.integers(-n, n))}


def _stack_params(rng, args):
    n = args[0].ndim + 1
    return {"axis": int(rng.integers(-n, n))}


def _take_params(rng, args):
    x = args[0]
    axis = _axis(rng, x)
    size = x.size if axis is None or x.ndim == 0 else x.shape[axis]  # 0-d: taken as 1-d
    if size == 0:
        return {"indices": [], "axis": axis}
    k = int(rng.integers(0, 4))
    idx = [int(i) for i in rng.integers(-size, size, size=k)]
    return {"indices": idx if rng.random() < 0.8 else idx[:1][0] if idx else 0, "axis": axis}


def _diagonal_params(rng, args):
    n = args[0].ndim
    a1 = int(rng.integers(-n, n))
    a2 = int(rng.integers(-n, n))
    return {"offset": int(rng.integers(-2, 3)), "axis1": a1, "axis2": a2}


def _trace_params(rng, args):
    p = _diagonal_params(rng, args) if rng.random() < 0.6 else {}
    if rng.random() < 0.2:
        p["dtype"] = DTYPES[int(rng.integers(len(DTYPES)))]
    return p


def _tri_params(rng, args):
    return {"k": int(rng.integers(-2, 3))} if rng.random() < 0.7 else {}


def _flip_params(rng, args):
    return {"axis": _axes_tuple(rng, args[0])}


def _roll_tuple_params(rng, args):
    x = args[0]
    if x.ndim >= 2 and rng.random() < 0.4:
        return {"shift": (int(rng.integers(-3, 4)), int(rng.integers(-3, 4))), "axis": (0, -1)}
    return _roll_params(rng, args)


def _tile_params(rng, args):
    k = int(rng.integers(0, 3))
    reps = tuple(int(rng.integers(0, 3)) for _ in range(k))
    return {"reps": reps if rng.random() < 0.7 or not reps else reps[0]}


def _rot90_params(rng, args):
    n = args[0].ndim
    a = int(rng.integers(-n, n))
    b = int(rng.integers(-n, n))
    return {"k": int(rng.integers(-2, 5)), "axes": (a, b)}


def _tensordot_params(rng, args):
    return {"axes": int(rng.integers(0, 2))}


def _like_params(rng, args):
    p = {}
    if rng.random() < 0.5:
        p["dtype"] = DTYPES[int(rng.integers(len(DTYPES)))]
    return p


def _full_like_params(rng, args):
    p = _like_params(rng, args)
    p["fill_value"] = _python_scalar(rng)
    return p


def _broadcast_to_params(rng, args):
    shape = args[0].shape
    return {"shape": tuple(int(rng.choice([0, 2])) if rng.random() < 0.3 else 2 for _ in
                           range(int(rng.integers(0, 2)))) + tuple(
                           int(rng.choice([1, 3])) if d == 1 else d for d in shape)}


def _fft_params(rng, args):
    x = args[0]
    p = {"axis": int(rng.integers(-x.ndim, x.ndim))}
    if rng.random() < 0.3:
        p["n"] = int(rng.integers(1, 6))
    if rng.random() < 0.3:
        p["norm"] = str(rng.choice(["backward", "ortho", "forward"]))
    return p


def _fftshift_params(rng, args):
    return {"axes": _axes_tuple(rng, args[0])}


def _isclose_params(rng, args):
    return {"equal_nan": True} if rng.random() < 0.3 else {}


def _vector_norm_params(rng, args):
    p = {"axis": _axes_tuple(rng, args[0])}
    if isinstance(p["axis"], tuple) and len(p["axis"]) > 2:
        p["axis"] = p["axis"][:2]
    ords = [2, 1, np.inf, -np.inf, 0, 3] if not isinstance(p["axis"], tuple) or len(p["axis"]) == 1 else [2]
    p["ord"] = ords[int(rng.integers(len(ords)))]
    if rng.random() < 0.3:
        p["keepdims"] = True
    return p


def _matrix_norm_params(rng, args):
    p = {"ord": ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf][int(rng.integers(8))]}
    if rng.random() < 0.3:
        p["keepdims"] = True
    return p


def _matrix_power_params(rng, args):
    return {"n": int(rng.integers(0, 4))}


_UNARY_ANY = ["negative", "positive", "abs", "absolute", "square", "sign", "isnan", "isfinite", "isinf",
              "logical_not", "conj", "conjugate"]
_UNARY_REAL = ["floor", "ceil", "trunc", "rint", "fabs", "signbit", "cbrt", "deg2rad", "rad2deg",
               "degrees", "radians", "isneginf", "isposinf"]
_UNARY_FLOAT = ["exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "tanh", "arcsin", "arccos",
                "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "exp2", "log2", "log10",
                "reciprocal", "sinc", "i0", "fix", "nan_to_num", "real", "imag", "angle", "iscomplex",
                "isreal"]
_UNARY_INT = ["bitwise_not", "invert", "bitwise_count", "bitwise_invert"]
# the array-API spellings
_UNARY_FLOAT_ALIAS = ["acos", "asin", "atan", "acosh", "asinh", "atanh"]
_BINARY_ANY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "equal", "not_equal",
               "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
               "logical_xor", "power", "fmax", "fmin", "true_divide", "pow", "isclose"]
_BINARY_REAL = ["floor_divide", "remainder", "fmod", "arctan2", "hypot", "copysign", "nextafter",
                "logaddexp", "logaddexp2", "heaviside", "float_power", "divmod", "mod", "atan2"]
_BINARY_INT = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "gcd", "lcm",
               "bitwise_left_shift", "bitwise_right_shift"]
_REDUCE = ["sum", "prod", "max", "min", "amax", "amin", "mean", "var", "std", "all", "any", "argmax",
           "argmin", "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "ptp",
           "count_nonzero", "median", "nanmedian"]


# NumPy (ml_dtypes) gets these wrong on bfloat16 itself: NaN ordering in sorts,
# quantiles computed in float32, nan_to_num refusing a non-"inexact" type; the nan*
# functions replace NaNs only in "inexact" types, so on bfloat16 they keep them
# (README, "NumPy semantics: the documented differences")
_NO_BF16 = {"median", "nanmedian", "nan_to_num", "nanmax", "nanmin", "nanargmax", "nanargmin",
            "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nancumsum", "nancumprod"}

# complex operands with infinite or NaN parts: NumPy's own matmul paths (BLAS gemm,
# gemv/dot, its loop for strided operands) sum the parts of the products differently,
# so their NaNs disagree (README, "NumPy semantics: the documented differences")
_FINITE_COMPLEX = {"matmul", "einsum"}


def _specs() -> tuple[OpSpec, ...]:
    s: list[OpSpec] = []
    s += [OpSpec(n) for n in _UNARY_ANY]
    s += [OpSpec(n, kinds="buif") for n in _UNARY_REAL]
    s += [OpSpec(n, kinds="buifc", bfloat16=n not in _NO_BF16) for n in _UNARY_FLOAT]
    s += [OpSpec(n, kinds="buifc") for n in _UNARY_FLOAT_ALIAS]
    s += [OpSpec(n, kinds="buif") for n in ("frexp", "modf")]
    s += [OpSpec(n, kinds="bui") for n in _UNARY_INT]
    s += [OpSpec(n, nin=2) for n in _BINARY_ANY]
    s += [OpSpec(n, nin=2, kinds="buif") for n in _BINARY_REAL]
    s += [OpSpec(n, nin=2, kinds="bui") for n in _BINARY_INT]
    s += [OpSpec(n, params=_reduce_params(), bfloat16=n not in _NO_BF16) for n in _REDUCE]
    s += [OpSpec(n, params=_reduce_params(keepdims=False), bfloat16=False)
          for n in ("nanargmax", "nanargmin")]
    s += [
        OpSpec("cumsum", params=_axis_params()), OpSpec("cumprod", params=_axis_params()),
        OpSpec("nancumsum", params=_axis_params(), bfloat16=False),
        OpSpec("nancumprod", params=_axis_params(), bfloat16=False),
        OpSpec("cumulative_sum", params=_cumulative_params),
        OpSpec("cumulative_prod", params=_cumulative_params),
        OpSpec("sort", bfloat16=False, params=_sort_params),
        OpSpec("argsort", bfloat16=False, params=_sort_params),
        OpSpec("unique", kinds="buif", bfloat16=False), OpSpec("isin", nin=2, kinds="buif", scalar_rhs=False, bfloat16=False),
        OpSpec("nonzero"), OpSpec("flatnonzero"), OpSpec("argwhere"),
        OpSpec("astype", params=_astype_params),
        OpSpec("round", kinds="buif", params=_round_params),
        OpSpec("clip", kinds="buif", params=_clip_params),
        OpSpec("flip", params=_axis_params()), OpSpec("roll", params=_roll_params),
        OpSpec("repeat", params=_repeat_params), OpSpec("ravel"), OpSpec("transpose"),
        OpSpec("diff", min_ndim=1, params=_diff_params),
        OpSpec("quantile", kinds="buif", bfloat16=False, params=_quantile_params),
        OpSpec("percentile", kinds="buif", bfloat16=False, params=_percentile_params),
        OpSpec("einsum", nin=2, params=_einsum_params, scalar_rhs=False, max_ndim=3, finite_complex=True),
        OpSpec("matmul", nin=2, min_ndim=1, scalar_rhs=False, finite_complex=True),
        OpSpec("outer", nin=2, scalar_rhs=False, max_ndim=2),
        OpSpec("where", nin=3),
        OpSpec("linalg.det", bfloat16=False, kinds="fc", min_ndim=2, square=True),
        OpSpec("linalg.slogdet", bfloat16=False, kinds="fc", min_ndim=2, square=True),
        OpSpec("linalg.inv", bfloat16=False, kinds="fc", min_ndim=2, square=True),
        OpSpec("linalg.pinv", bfloat16=False, finite=True, kinds="ifc", min_ndim=2),
        OpSpec("linalg.eigvalsh", bfloat16=False, finite=True, kinds="fc", min_ndim=2, square=True),
        OpSpec("linalg.svdvals", bfloat16=False, finite=True, kinds="fc", min_ndim=2),
        OpSpec("linalg.norm", bfloat16=False, finite=True, kinds="ifc", params=_norm_params),
        OpSpec("trace", min_ndim=2, params=_trace_params),
        OpSpec("tril", min_ndim=1, params=_tri_params), OpSpec("triu", min_ndim=1, params=_tri_params),
        # keyword arguments, negative and tuple axes, dtype= of the reductions
        OpSpec("sum", params=_reduce_dtype_params), OpSpec("prod", params=_reduce_dtype_params),
        OpSpec("mean", params=_reduce_dtype_params),
        OpSpec("var", params=_ddof_params), OpSpec("std", params=_ddof_params),
        OpSpec("cumsum", params=_cumsum_dtype_params), OpSpec("cumprod", params=_cumsum_dtype_params),
        OpSpec("max", params=_reduce_tuple_params), OpSpec("all", params=_reduce_tuple_params),
        OpSpec("any", params=_reduce_tuple_params), OpSpec("nansum", params=_reduce_tuple_params, bfloat16=False),
        OpSpec("count_nonzero", params=_reduce_tuple_params),
        OpSpec("nanquantile", kinds="buif", bfloat16=False, params=_quantile_params),
        OpSpec("nanpercentile", kinds="buif", bfloat16=False, params=_percentile_params),
        OpSpec("average", params=_reduce_tuple_params, bfloat16=False),
        OpSpec("ldexp", nin=2, kinds="buif", rhs_kinds="bi"),
        # shapes
        OpSpec("swapaxes", min_ndim=1, params=_swapaxes_params),
        OpSpec("moveaxis", min_ndim=1, params=_moveaxis_params),
        OpSpec("expand_dims", params=_expand_dims_params), OpSpec("squeeze", params=_squeeze_params),
        OpSpec("concatenate", nin=2, same_shape=True, scalar_rhs=False, params=_concat_params),
        OpSpec("stack", nin=2, same_shape=True, scalar_rhs=False, params=_stack_params),
        OpSpec("hstack", nin=2, same_shape=True, scalar_rhs=False),
        OpSpec("vstack", nin=2, same_shape=True, scalar_rhs=False),
        OpSpec("take", params=_take_params),
        OpSpec("diagonal", min_ndim=2, params=_diagonal_params),
        OpSpec("flip", params=_flip_params), OpSpec("roll", params=_roll_tuple_params),
        OpSpec("tile", params=_tile_params), OpSpec("rot90", min_ndim=2, params=_rot90_params),
        OpSpec("fliplr", min_ndim=2), OpSpec("flipud", min_ndim=1),
        OpSpec("atleast_1d"), OpSpec("atleast_2d"), OpSpec("atleast_3d"), OpSpec("ediff1d"),
        OpSpec("broadcast_to", params=_broadcast_to_params),
        OpSpec("zeros_like", params=_like_params), OpSpec("ones_like", params=_like_params),
        OpSpec("full_like", params=_full_like_params),
        # products
        OpSpec("dot", nin=2, min_ndim=1, scalar_rhs=False, finite_complex=True),
        OpSpec("inner", nin=2, min_ndim=1, scalar_rhs=False, finite_complex=True),
        OpSpec("vdot", nin=2, same_shape=True, scalar_rhs=False, finite_complex=True),
        OpSpec("tensordot", nin=2, min_ndim=1, scalar_rhs=False, finite_complex=True, params=_tensordot_params),
        OpSpec("kron", nin=2, scalar_rhs=False, max_ndim=2),
        OpSpec("cross", nin=2, min_ndim=1, scalar_rhs=False, kinds="buif"),
        OpSpec("linalg.vector_norm", bfloat16=False, finite=True, kinds="ifc", params=_vector_norm_params),
        OpSpec("linalg.matrix_norm", bfloat16=False, finite=True, kinds="ifc", min_ndim=2,
               params=_matrix_norm_params),
        OpSpec("linalg.matrix_power", bfloat16=False, kinds="ifc", min_ndim=2, square=True,
               finite_complex=True, params=_matrix_power_params),
        # fft (finite: pocketfft and XLA's FFT meet infinities in different orders)
        OpSpec("fft.fft", bfloat16=False, finite=True, kinds="ifc", min_ndim=1, params=_fft_params),
        OpSpec("fft.ifft", bfloat16=False, finite=True, kinds="ifc", min_ndim=1, params=_fft_params),
        OpSpec("fft.rfft", bfloat16=False, finite=True, kinds="if", min_ndim=1, params=_fft_params),
        OpSpec("fft.fftshift", params=_fftshift_params), OpSpec("fft.ifftshift", params=_fftshift_params),
    ]
    return tuple(s)


SPECS: tuple[OpSpec, ...] = _specs()
# ops taking their arrays as one sequence argument
_SEQUENCE_ARG = {"concatenate", "stack", "hstack", "vstack"}
_BY_NAME = {s.name: s for s in SPECS}


def _resolve(module: Any, name: str) -> Callable:
    obj = module
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def einsum_products(subscripts: str, *operands: np.ndarray) -> np.ndarray:
    """numpy.einsum by its definition, the sum of the products over every label
    (for explicit subscripts without ellipses): NumPy's own kernels factor some
    sums out of the products, so their non-finite results depend on its
    iteration order (README, "NumPy semantics: the documented differences")."""
    lhs, out = subscripts.split("->")
    terms = lhs.split(",")
    labels = sorted(set("".join(terms)))
    sizes = {}
    for t, x in zip(terms, operands):
        sizes.update({c: n for c, n in zip(t, x.shape) if n != 1 or c not in sizes})
    dtype = np.result_type(*operands)
    prod = None  # the first operand itself leads (1 * (inf + 2j) would be inf + nan j)
    for t, x in zip(terms, operands):
        view = np.einsum(f"{t}->{''.join(sorted(set(t), key=t.index))}", x)
        axes = sorted(set(t), key=t.index)
        full = view.reshape(view.shape + (1,) * (len(labels) - view.ndim))
        full = np.moveaxis(full, list(range(len(axes))), [labels.index(c) for c in axes])
        full = full.astype(dtype)
        with np.errstate(all="ignore"):
            if prod is None:
                prod = np.broadcast_to(full, tuple(sizes[c] for c in labels))
            else:
                prod = prod * full if dtype != np.bool_ else prod & full
    prod = np.broadcast_to(prod, tuple(sizes[c] for c in labels))
    summed = tuple(i for i, c in enumerate(labels) if c not in out)
    kept = [c for c in labels if c in out]
    with np.errstate(all="ignore"):
        res = np.any(prod, axis=summed) if dtype == np.bool_ else np.sum(prod, axis=summed, dtype=dtype)
    return np.asarray(np.transpose(res, [kept.index(c) for c in out]) if out else res, dtype)


# --- programs --------------------------------------------------------------------


# ops whose result amplifies the rounding of its input by the condition number: a
# matrix one op computed (inner(a, b) of rank 2 in 4 x 3) may be singular in exact
# arithmetic, and the result then depends on the last bits of that op
_CONDITIONED = {"linalg.inv", "linalg.pinv", "linalg.det", "linalg.slogdet"}


def _well_conditioned(v: Any) -> bool:
    """The ratio of the least to the largest singular value of each matrix is 0 (an
    exactly singular matrix) or far from the dtype's rounding."""
    a = np.asarray(v)
    if a.ndim < 2 or a.size == 0 or not np.isfinite(a).all():
        return True
    limit = 1e-2 if a.dtype in (np.float32, np.complex64) else 1e-7  # others in float64
    try:
        sv = np.linalg.svd(np.asarray(a, np.complex128), compute_uv=False)
    except np.linalg.LinAlgError:
        return False
    top = sv[..., :1]
    with np.errstate(all="ignore"):
        ratio = np.where(top > 0, sv[..., -1:] / top, 1.0)
    return bool(np.all((ratio == 0) | (ratio > limit)))


def _moderate(v: Any) -> bool:
    """Finite, and far from overflow: LAPACK's SVD may not return on inf/NaN, nor on
    values whose squares overflow (int64 extremes, float32's largest values)."""
    a = np.asarray(v, np.complex128)
    return bool(np.isfinite(a).all() and (a.size == 0 or np.abs(a).max() < 1e15))


@dataclasses.dataclass
class Step:
    """``name(*args, **kwargs)``; an argument is a pool index or ``("scalar", v)``."""

    name: str
    args: list
    kwargs: dict
    n_out: int = 1  # how many pool entries it adds (set when NumPy runs it)

    def call(self, module: Any, pool: Sequence[Any]) -> Any:
        args = [a[1] if isinstance(a, tuple) else pool[a] for a in self.args]
        kwargs = dict(self.kwargs)
        if self.name == "astype":  # numpy.astype takes its dtype positionally
            return _resolve(module, self.name)(args[0], kwargs.pop("dtype"), **kwargs)
        if self.name in _SEQUENCE_ARG:
            return _resolve(module, self.name)(args, **kwargs)
        if self.name == "einsum":
            fn = einsum_products if module is np else module.einsum
            return fn(kwargs.pop("subscripts"), *args, **kwargs)
        return _resolve(module, self.name)(*args, **kwargs)

    def __str__(self) -> str:
        args = [repr(a[1]) if isinstance(a, tuple) else f"v{a}" for a in self.args]
        args += [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(args)})"


@dataclasses.dataclass
class Program:
    """Inputs (shape, dtype, which dims the graph declares None, values) and steps;
    the pool holds the inputs, then each step's results (a tuple result adds each
    element), and the outputs index it."""

    shapes: list[tuple[int, ...]]
    dtypes: list[np.dtype]
    dynamic: list[tuple[bool, ...]]
    values: list[np.ndarray]
    steps: list[Step]
    outputs: list[int] = dataclasses.field(default_factory=list)

    def describe(self) -> str:
        lines = []
        for i, (sh, dt, dyn, v) in enumerate(zip(self.shapes, self.dtypes, self.dynamic, self.values)):
            decl = tuple(None if d else n for n, d in zip(sh, dyn))
            lines.append(f"v{i} = hg.tensor('x{i}', {decl}, {dt.name!r})  # = {np.array2string(v, threshold=20)}")
        pool = len(self.shapes)
        for st in self.steps:
            lines.append(f"v{pool} = {st}")
            pool += st.n_out
        lines.append(f"outputs: {', '.join(f'v{o}' for o in self.outputs)}")
        return "\n".join(lines)


def _flatten(result: Any) -> list:
    if isinstance(result, (tuple, list)):
        return list(result)
    return [result]


def _numpy_run(program: Program, flush: bool = False) -> list[np.ndarray]:
    """The pool after running the program with NumPy (raises what NumPy raises);
    ``flush``: as XLA:CPU runs, every subnormal input and result flushed to zero."""
    pool: list[Any] = [flush_subnormals(v) for v in program.values] if flush else list(program.values)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for st in program.steps:
            out = [np.asarray(o) for o in _flatten(st.call(np, pool))]
            st.n_out = len(out)
            pool += [flush_subnormals(o) for o in out] if flush else out
    return pool


def flush_subnormals(v: Any) -> Any:
    """``v`` with its subnormal values (and parts) replaced by zeros of their sign."""
    if isinstance(v, tuple) or not _has_subnormal(v):
        return v
    v = np.array(v, copy=True)
    parts = [v.real, v.imag] if v.dtype.kind == "c" else [v]
    tiny = float(np.finfo(parts[0].dtype).tiny)
    for p in parts:
        small = (p != 0) & (np.abs(np.asarray(p, np.float64)) < tiny)
        p[small] = np.copysign(0.0, np.asarray(p[small], np.float64)).astype(p.dtype)
    return v


def _hg_build(program: Program):
    """The graph of the program and its pool of Variables."""
    import hlograph as hg

    inputs = [hg.tensor(f"x{i}", tuple(None if d else n for n, d in zip(sh, dyn)), dt)
              for i, (sh, dt, dyn) in enumerate(zip(program.shapes, program.dtypes, program.dynamic))]
    pool: list[Any] = list(inputs)
    for st in program.steps:
        pool += _flatten(st.call(hg, pool))
    return hg.Graph(inputs, [hg.as_variable(pool[o]) for o in program.outputs]), pool


def _documented_difference(program: Program, np_pool: Sequence[np.ndarray], hg_pool: Sequence[Any]) -> bool:
    """A step that meets a documented difference only its values reveal (README,
    "NumPy semantics: the documented differences"): ``linalg.pinv`` of empty
    non-float matrices whose last two dims the graph leaves unknown (NumPy keeps
    the input's dtype then, the graph's dtype is float64's); ``dot``/``inner``/
    ``tensordot`` with a contracted dim of size 1 and NaN or infinite operands
    (OpenBLAS's matrix-vector product gives 0 for some NaN * 0)."""
    for st in program.steps:
        if st.name in ("dot", "inner", "tensordot") and _blas_gemv_nan_times_zero(
                [np_pool[a] for a in st.args if not isinstance(a, tuple)]):
            return True
        if st.name == "linalg.pinv":
            a, v = hg_pool[st.args[0]], np_pool[st.args[0]]
            if v.dtype.kind not in "fc" and 0 in v.shape[-2:] and None in a.shape[-2:]:
                return True
        target = st.kwargs.get("dtype")
        if target is not None and not isinstance(st.args[0], tuple) and _undefined_cast(
                np_pool[st.args[0]], np.dtype(target)):
            # casts (astype, dtype= of reductions) of NaN, infinities or floats past the
            # integer type: undefined in C, saturated when compiled (README, "Undefined inputs")
            return True
    return False


def _blas_gemv_nan_times_zero(operands: Sequence[np.ndarray]) -> bool:
    """Whether a product of ``operands`` may meet OpenBLAS's NaN * 0 = 0: a dim of size
    1 to contract, a NaN or an infinity, and a zero."""
    vals = [np.asarray(v) for v in operands]
    if len(vals) != 2 or not any(1 in v.shape for v in vals):
        return False
    inexact = [v for v in vals if v.dtype.kind in "fc" or v.dtype == _BF16]
    with np.errstate(invalid="ignore"):
        return any(not np.isfinite(np.asarray(v, np.complex128)).all() for v in inexact) \
            and any((v == 0).any() for v in vals)


def _undefined_cast(v: np.ndarray, target: np.dtype) -> bool:
    """Whether casting ``v`` to the integer ``target`` meets a value C leaves undefined:
    NaN, an infinity or a float whose truncation ``target`` can't hold."""
    v = np.asarray(v)
    if target.kind not in "iu" or not (v.dtype.kind in "fc" or v.dtype == _BF16) or v.size == 0:
        return False
    r = np.asarray(v.real if v.dtype.kind == "c" else v, np.float64)
    info = np.iinfo(target)
    with np.errstate(invalid="ignore"):
        t = np.trunc(r)
        return bool(np.any(~np.isfinite(r) | (t < info.min) | (t > info.max)))


def _has_subnormal(v: np.ndarray) -> bool:
    v = np.asarray(v)
    if not (v.dtype.kind in "fc" or v.dtype == _BF16) or v.size == 0:
        return False
    parts = [v.real, v.imag] if v.dtype.kind == "c" else [v]
    tiny = float(np.finfo(v.real.dtype if v.dtype.kind == "c" else v.dtype).tiny)
    return any(bool(np.any((p != 0) & (np.abs(np.asarray(p, np.float64)) < tiny))) for p in parts)


# --- generating ------------------------------------------------------------------


def _draw_shape(rng: np.random.Generator, min_ndim: int = 0, max_ndim: int = 3) -> tuple[int, ...]:
    ndim = int(rng.integers(min_ndim, max_ndim + 1))
    return tuple(int(rng.choice([0, 1, 2, 3, 3, 4])) if rng.random() < 0.9 else 1 for _ in range(ndim))


def _broadcast_partner(rng, shape):
    """A shape that broadcasts against ``shape``: a suffix, some dims set to 1."""
    k = int(rng.integers(0, len(shape) + 1))
    sub = list(shape[len(shape) - k:])
    return tuple(1 if rng.random() < 0.25 else n for n in sub)


def _arg_shapes(rng, spec: OpSpec, base: tuple[int, ...]) -> list[tuple[int, ...]]:
    if spec.square and len(base) >= 2:
        base = base[:-1] + (base[-2],)
    if spec.nin == 1:
        return [base]
    if spec.name == "cross":
        last = base[-1] if base and base[-1] in (2, 3) else int(rng.choice([2, 3]))
        return [base[:-1] + (last,), _broadcast_partner(rng, base[:-1]) + (last,)]
    if spec.name == "inner":
        return [base, _draw_shape(rng, 0, 1) + base[-1:]]
    if spec.name == "tensordot":
        return [base, base[-1:] + _draw_shape(rng, 0, 1)]
    if spec.name == "dot" and len(base) >= 2 and rng.random() < 0.5:
        return [base, (base[-1],)]
    if spec.name in ("matmul", "dot"):
        n = int(rng.choice([0, 1, 2, 3]))
        if len(base) == 1:
            return [base, (base[0],) if rng.random() < 0.5 else (base[0], n)]
        return [base, base[:-2] + (base[-1], n)]
    if spec.name in ("einsum", "outer", "isin", "kron"):
        return [base, _draw_shape(rng, 0, 2)] if spec.name != "einsum" else [base, base[:_einsum_rank(rng, base)]]
    if spec.same_shape:
        return [base] * spec.nin
    return [base] + [_broadcast_partner(rng, base) for _ in range(spec.nin - 1)]


def _einsum_rank(rng, base):
    return int(rng.integers(0, len(base) + 1))


def generate(rng: np.random.Generator, n_steps: int = 3, dtypes: Sequence[np.dtype] = DTYPES,
             special: bool = True, subnormals: bool = False, dynamic: float = 0.15,
             specs: Sequence[OpSpec] = SPECS) -> Program:
    """A random program of up to ``n_steps`` steps NumPy runs without raising."""
    dtypes = [np.dtype(d) for d in dtypes]
    program = Program([], [], [], [], [])
    pool_info: list[tuple[tuple[int, ...], np.dtype]] = []
    pool_values: list[np.ndarray] = []

    def new_input(shape, dtype, finite_complex=False):
        program.shapes.append(shape)
        program.dtypes.append(dtype)
        program.dynamic.append(tuple(bool(rng.random() < dynamic) for _ in shape))
        plain = finite_complex and dtype.kind == "c"
        v = values_for(rng, shape, dtype, special=special and not plain, subnormals=subnormals)
        program.values.append(v)
        # inputs come first in the pool: shift the indices of steps drawn so far
        idx = len(program.shapes) - 1
        for st in program.steps:
            st.args = [a if isinstance(a, tuple) or a < idx else a + 1 for a in st.args]
        pool_values.insert(idx, v)
        pool_info.insert(idx, (shape, dtype))
        return idx

    attempts = 0
    while len(program.steps) < n_steps and attempts < 20 * n_steps:
        attempts += 1
        spec = specs[int(rng.integers(len(specs)))]
        kinds_ok = [d for d in dtypes if d.kind in spec.kinds or (d == _BF16 and "f" in spec.kinds and spec.bfloat16)]
        if not kinds_ok:
            continue
        # reuse a pool value of a fitting rank and kind, or make a new input
        fits = [i for i, (sh, dt) in enumerate(pool_info)
                if spec.min_ndim <= len(sh) <= spec.max_ndim and dt in kinds_ok]
        if fits and rng.random() < 0.6:
            first = fits[int(rng.integers(len(fits)))]
            base = pool_info[first][0]
            if spec.square and len(base) >= 2 and base[-1] != base[-2]:
                first = None
        else:
            first = None
        if first is None:
            base = _draw_shape(rng, spec.min_ndim, min(3, spec.max_ndim))
            if spec.square and len(base) >= 2:
                base = base[:-1] + (base[-2],)
        shapes = _arg_shapes(rng, spec, base)
        args: list = []
        saved = (list(program.shapes), list(program.dtypes), list(program.dynamic), list(program.values),
                 [list(st.args) for st in program.steps], list(pool_values), list(pool_info))
        for k, sh in enumerate(shapes):
            if k == 0 and first is not None:
                args.append(first)
            elif k > 0 and spec.scalar_rhs and spec.nin == 2 and rng.random() < 0.2:
                args.append(("scalar", _python_scalar(rng)))
            else:
                ok = kinds_ok if k == 0 or spec.rhs_kinds is None else [d for d in dtypes if d.kind in spec.rhs_kinds]
                if not ok:
                    ok = kinds_ok
                same = [i for i, (s2, dt) in enumerate(pool_info) if s2 == sh and dt in ok]
                if same and rng.random() < 0.3:
                    args.append(same[int(rng.integers(len(same)))])
                else:
                    dt = ok[int(rng.integers(len(ok)))]
                    if k > 0 and rng.random() < 0.5 and not isinstance(args[0], tuple) and spec.rhs_kinds is None:
                        d0 = pool_info[args[0]][1]
                        dt = d0 if d0 in kinds_ok else dt
                    idx = new_input(sh, dt, spec.finite_complex)
                    args = [a if isinstance(a, tuple) or a < idx else a + 1 for a in args]
                    args.append(idx)
        if (spec.nin == 2 and spec.scalar_rhs and len(args) == 2 and isinstance(args[1], tuple)
                and rng.random() < 0.35):
            args.reverse()  # a Python scalar first (NEP 50 applies to either side)
        vals = [a[1] if isinstance(a, tuple) else pool_values[a] for a in args]
        kwargs = spec.params(rng, vals) if spec.params else {}
        step = Step(spec.name, args, kwargs)
        try:
            if spec.finite and not all(_moderate(v) for v in vals):
                raise ValueError("non-finite or huge input")
            if spec.name in _CONDITIONED and not _well_conditioned(vals[0]):
                raise ValueError("ill-conditioned matrix")
            # a real operand beside a complex one is promoted: its infinities and NaNs
            # become infinite or NaN parts of complex products too
            if spec.finite_complex and any(np.asarray(v).dtype.kind == "c" for v in vals) and \
                    not all(np.isfinite(v).all() for v in vals):
                raise ValueError("non-finite complex input")
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                out = [np.asarray(o) for o in _flatten(step.call(np, pool_values))]
            if any(o.dtype.kind not in "biufc" and o.dtype != _BF16 for o in out):
                raise TypeError("not a numeric result")
        except Exception:  # NumPy refuses: take the step back
            (program.shapes, program.dtypes, program.dynamic, program.values, step_args,
             pool_values[:], pool_info[:]) = saved
            for st, a in zip(program.steps, step_args):
                st.args = a
            continue
        program.steps.append(step)
        step.n_out = len(out)
        for o in out:
            pool_values.append(o)
            pool_info.append((o.shape, o.dtype))
    n_inputs = len(program.shapes)
    produced = list(range(n_inputs, len(pool_values)))
    if not produced:
        produced = list(range(n_inputs))
    k = min(len(produced), int(rng.integers(1, 3)))
    program.outputs = produced[-k:]
    return program


def _python_scalar(rng):
    choices = [0.0, -0.0, 2.5, -1.5, 2, -3, 0, True, False, float("nan"), float("inf"),
               # past small types' ranges (NEP 50: NumPy refuses them for int8/uint8) and complex
               200, -129, 70000, 2 ** 40, 1e300, 1.5 - 2j, 1j]
    return choices[int(rng.integers(len(choices)))]


# --- checking --------------------------------------------------------------------


@dataclasses.dataclass
class Failure:
    """A program and what went wrong: ``where`` ("build", "evaluate", "O0", "O2")
    and a message."""

    program: Program
    where: str
    message: str
    shrunk: Program | None = None

    def describe(self) -> str:
        text = f"[{self.where}] {self.message}\n{self.program.describe()}"
        if self.shrunk is not None:
            text += f"\n-- shrunk to:\n{self.shrunk.describe()}"
        return text


# how a builder says it needs a dim a None dim leaves unknown (a documented limit)
_STATIC_ONLY = ("must be known", "must have a known size", "needs static shapes", "needs a static",
                "known size", "static shape", "needs known dims")

_ERROR_KINDS = (TypeError, ValueError, IndexError, ArithmeticError, NotImplementedError)


def _same_kind(ours: BaseException, theirs: BaseException) -> bool:
    """A refusal of the call NumPy refuses too (hlograph's GraphError counts as a
    ValueError/TypeError kind)."""
    return isinstance(ours, _ERROR_KINDS) or type(ours).__name__ in ("GraphError", "LinAlgError")


def compare(ours: np.ndarray, expected: np.ndarray, rtol: float | None = None) -> str | None:
    """None when ``ours`` matches NumPy's ``expected`` (dtype, shape, values within
    the dtype's tolerance, NaN positions); else what differs."""
    ours = np.asarray(ours)
    expected = np.asarray(expected)
    if ours.dtype == _BF16 and _BF16 is not None and expected.dtype.kind == "f" and expected.dtype.itemsize > 2:
        # NumPy's Python-level functions (clip, sinc, degrees, mean, ...) promote
        # ml_dtypes' bfloat16 with a Python float to float32 (NEP 50 keeps float16):
        # a quirk of NumPy and ml_dtypes, so compare bfloat16 values
        with np.errstate(all="ignore"):
            expected = expected.astype(_BF16)
    if ours.dtype != expected.dtype:
        return f"dtype {ours.dtype} != NumPy's {expected.dtype}"
    if ours.shape != expected.shape:
        return f"shape {ours.shape} != NumPy's {expected.shape}"
    if expected.dtype.kind in "biu":
        bad = ours != expected
    else:
        tol = _rtol(expected.dtype) if rtol is None else rtol
        if expected.dtype.kind == "c":
            parts = [(ours.real, expected.real), (ours.imag, expected.imag)]
        else:
            parts = [(ours.astype(np.float64), expected.astype(np.float64))]
        bad = np.zeros(expected.shape, bool)
        for a, b in parts:
            a = np.asarray(a, np.float64)
            b = np.asarray(b, np.float64)
            nan_a, nan_b = np.isnan(a), np.isnan(b)
            with np.errstate(all="ignore"):
                scale = np.max(np.abs(b[np.isfinite(b)]), initial=1.0)
                close = np.abs(a - b) <= tol * np.abs(b) + tol * 1e-3 * scale
                close |= (a == b)
            bad |= (nan_a != nan_b) | (~nan_b & ~close)
    if np.any(bad):
        idx = tuple(int(i[0]) for i in np.nonzero(bad)) if bad.ndim else ()
        return (f"values differ at {int(np.sum(bad))} of {bad.size} positions, first {idx}: "
                f"{ours[idx]!r} != NumPy's {expected[idx]!r}")
    return None


def check(program: Program, pipelines: Sequence[str] = ("O0", "O2"),
          evaluate: bool = True) -> Failure | None:
    """Runs ``program`` with NumPy, then hlograph (evaluate, each pipeline);
    None when all agree."""
    import hlograph as hg

    try:
        pool = _numpy_run(program)
        expected = [pool[o] for o in program.outputs]
        np_error = None
        # rounding upstream carries over into wider results: the loosest tolerance
        # of any float value on the way
        rtol = max([_rtol(np.asarray(v).dtype) for v in pool], default=0.0)
    except Exception as e:  # noqa: BLE001 - NumPy's refusal is the reference
        np_error = e
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graph, hg_pool = _hg_build(program)
    except Exception as e:  # noqa: BLE001
        if np_error is not None and _same_kind(e, np_error):
            return None
        if any(m in str(e) for m in _STATIC_ONLY):
            return None  # a documented limit of unknown dims, not a NumPy difference
        if isinstance(e, TypeError) and "bfloat16" in str(e) and _BF16 in program.dtypes:
            # NumPy promotes ml_dtypes' bfloat16 with a Python float to float32 (see
            # compare), so an op that refuses bfloat16, as NumPy's linalg does, may have
            # run on NumPy's float32 value: not a difference of hlograph's
            return None
        if "unsupported in linalg" in str(e) and any(any(d) for d in program.dynamic):
            # NumPy's linalg returns early on empty inputs of a type it refuses (float16);
            # with an unknown dim hlograph can't know the input is empty (README)
            return None
        return Failure(program, "build", f"{type(e).__name__}: {e}")
    if np_error is not None:
        return None  # hlograph accepts more than NumPy: not a failure
    if _documented_difference(program, pool, hg_pool):
        return None
    runs: list[tuple[str, Callable]] = []
    if evaluate:
        runs.append(("evaluate", lambda: hg.evaluate(graph, *program.values)))
    for p in pipelines:
        runs.append((p, lambda p=p: hg.compile(graph, pipeline=p)(*program.values)))
    for where, fn in runs:
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                got = fn()
        except Exception as e:  # noqa: BLE001
            return Failure(program, where, f"{type(e).__name__}: {str(e)[:500]}")
        got = list(got) if isinstance(got, (list, tuple)) else [got]
        if len(got) != len(expected):
            return Failure(program, where, f"{len(got)} outputs != NumPy's {len(expected)}")
        msg = _compare_all(got, expected, rtol)
        if msg is not None and where != "evaluate" and any(_has_subnormal(v) for v in pool):
            # XLA:CPU flushes subnormal inputs and results to zero (README, the documented
            # differences): compare with NumPy run so
            try:
                flushed = _numpy_run(program, flush=True)
            except Exception:  # noqa: BLE001
                flushed = None
            if flushed is not None and _compare_all(got, [flushed[o] for o in program.outputs], rtol) is None:
                msg = None
        if msg is not None:
            return Failure(program, where, msg)
    return None


def _compare_all(got: Sequence[Any], expected: Sequence[np.ndarray], rtol: float) -> str | None:
    for i, (g, x) in enumerate(zip(got, expected)):
        msg = compare(np.asarray(g), x, rtol=rtol if x.dtype.kind in "fc" or x.dtype == _BF16 else None)
        if msg is not None:
            return f"output {i}: {msg}"
    return None


# --- shrinking -------------------------------------------------------------------


def _isolate(program: Program, pool: list[np.ndarray], steps: list[int], output: int,
             dynamic: bool) -> Program:
    """A program of ``program.steps[steps]`` whose arguments from outside those
    steps become inputs holding NumPy's values."""
    n_inputs = len(program.shapes)
    starts, at = [], n_inputs
    for st in program.steps:
        starts.append(at)
        at += st.n_out
    inside = {}
    new = Program([], [], [], [], [])
    remap: dict[int, int] = {}

    def input_for(i):
        if i not in remap:
            v = pool[i]
            remap[i] = len(new.shapes)
            new.shapes.append(v.shape)
            new.dtypes.append(v.dtype)
            orig = program.dynamic[i] if i < n_inputs else (False,) * v.ndim
            new.dynamic.append(orig if not dynamic else (True,) * v.ndim)
            new.values.append(v)
        return remap[i]

    for s in steps:
        for a in program.steps[s].args:
            if not isinstance(a, tuple) and a not in inside:
                input_for(a)
        for s2 in steps:  # pool indices the kept steps produce
            for j in range(program.steps[s2].n_out):
                inside.setdefault(starts[s2] + j, (s2, j))
    n_new_inputs = len(new.shapes)
    pos = n_new_inputs
    where: dict[int, int] = {}
    for s in steps:
        st = program.steps[s]
        args = [a if isinstance(a, tuple) else (where[a] if a in where else remap[a]) for a in st.args]
        ns = Step(st.name, args, dict(st.kwargs))
        ns.n_out = st.n_out
        new.steps.append(ns)
        for j in range(ns.n_out):
            where[starts[s] + j] = pos + j
        pos += ns.n_out
    new.outputs = [where[output]]
    return new


def _producer_steps(program: Program, output: int) -> tuple[int, list[int]]:
    n_inputs = len(program.shapes)
    at = n_inputs
    owner = {}
    for s, st in enumerate(program.steps):
        for j in range(st.n_out):
            owner[at + j] = s
        at += st.n_out
    s = owner[output]
    producers = [owner[a] for a in program.steps[s].args if not isinstance(a, tuple) and a in owner]
    return s, sorted(set(producers))


def shrink(failure: Failure, **check_kwargs) -> Failure:
    """The failure with ``shrunk`` set to a program of one op (or two) that still
    fails, its inputs NumPy's values at that point; unchanged when none does."""
    program = failure.program
    try:
        pool = _numpy_run(program)
    except Exception:  # noqa: BLE001 - a refusal mismatch: nothing to isolate
        return failure
    n_inputs = len(program.shapes)
    candidates = list(range(n_inputs, len(pool)))
    # one op: every step, static then dynamic shapes
    for out in candidates:
        s, producers = _producer_steps(program, out)
        for dyn in (False, True):
            small = _isolate(program, pool, [s], out, dyn)
            f = check(small, **check_kwargs)
            if f is not None:
                return dataclasses.replace(failure, shrunk=small, where=f.where, message=f.message)
    # two ops: a step and one of its producers
    for out in candidates:
        s, producers = _producer_steps(program, out)
        for p in producers:
            for dyn in (False, True):
                small = _isolate(program, pool, [p, s], out, dyn)
                f = check(small, **check_kwargs)
                if f is not None:
                    return dataclasses.replace(failure, shrunk=small, where=f.where, message=f.message)
    return failure


# --- running ---------------------------------------------------------------------


def run(graphs: int, seed: int = 0, n_steps: int = 3, shrink_failures: bool = True,
        **generate_kwargs) -> Iterator[Failure]:
    """Yields a (shrunk) failure for each of ``graphs`` random programs that fails."""
    rng = np.random.default_rng(seed)
    for _ in range(graphs):
        program = generate(rng, n_steps=int(rng.integers(1, n_steps + 1)), **generate_kwargs)
        if not program.steps:
            continue
        f = check(program)
        if f is not None:
            yield shrink(f) if shrink_failures else f
