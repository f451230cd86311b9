"""Counter-based random numbers with explicit keys, as ``jax.random``.

A key is a ``uint32[2]`` graph value: ``key(seed)`` makes one (a Constant for a
Python int, a node for a graph integer), ``split(key, n)`` derives ``n``
independent keys (``uint32[n, 2]``; index it to get one). Every sampler takes a
key first and is a deterministic function of it: the same key gives the same
numbers, on every call. Reusing a key for two samplers correlates them; split
it instead. Samplers: ``uniform``, ``normal``, ``bernoulli``, ``categorical``,
``integers``, ``permutation``, ``gamma``, ``beta``, ``dirichlet``.

On a device the bits come from ``stablehlo.rng_bit_generator`` (Threefry)
seeded by the key. ``perform`` cannot reproduce XLA's bits: it draws from
NumPy's Philox generator keyed by the key value, so the compiled and
``hg.evaluate`` results follow the same distributions but are different
numbers.

Derivatives are pathwise (reparameterized), for a fixed key: a normal sample is
``loc + scale * z`` and a uniform one ``minval + (maxval - minval) * u`` for the
key's standard sample; gamma, beta and Dirichlet samples differentiate by implicit
reparameterization, as ``jax.random.gamma`` (``gamma_sample_grad``); a
permutation is linear in what it shuffles. Discrete samplers (``bernoulli``,
``categorical``, ``integers``) and keys have no derivative.
"""

from __future__ import annotations

from typing import Any, Iterable

import numpy as np

from ..graph import Apply, Constant, Op, UndefinedGradient, Variable
from ..types import DTYPES, TensorType, as_dtype, dtype_name, is_float, is_inexact, is_integer
from . import elemwise as ew
from . import reduction as rd
from .basic import as_variable, broadcast_shapes, is_weak, normalize_axis

__all__ = [
    "key", "split", "uniform", "normal", "bernoulli", "categorical", "integers",
    "permutation", "gamma", "beta", "dirichlet",
]

_UINT32, _INT64, _BOOL = DTYPES["uint32"], DTYPES["int64"], DTYPES["bool"]
_FLOAT32, _FLOAT64 = DTYPES["float32"], DTYPES["float64"]
_HALF = (DTYPES["float16"], DTYPES["bfloat16"])
KEY_TYPE = TensorType(_UINT32, (2,))

#: domain tags: the bits of a sampler, the keys ``split`` derives and the streams of
#: the gamma family never coincide
SAMPLE_TAG, SPLIT_TAG, GAMMA_TAG, GAMMA_TAG_2, BOOST_TAG = 0, 1, 2, 3, 4


def _seed_words(seed: int) -> np.ndarray:
    s = int(seed) & (2**64 - 1)
    return np.array([s >> 32, s & 0xFFFFFFFF], dtype=_UINT32)


def numpy_generator(key: np.ndarray, tag: int = SAMPLE_TAG) -> np.random.Generator:
    """The NumPy generator ``perform`` draws from for ``key`` (Philox keyed by the key
    words and the domain tag)."""
    k = np.asarray(key, dtype=_UINT32).reshape(-1)
    value = (int(k[0]) << 32) | int(k[1]) | (int(tag) << 64)
    return np.random.Generator(np.random.Philox(key=value))


def _check_key(op: Op, k: Any) -> Variable:
    k = as_variable(k)
    if k.type != KEY_TYPE:
        raise TypeError(f"{op}: the key must be uint32[2] (from hg.random.key or split), "
                        f"got {k.type}")
    return k


def _static_shape(name: str, shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"{name}: shape must be a tuple of non-negative ints, got {shape!r}") from None
    if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0 for d in dims):
        raise TypeError(f"{name}: shape must be a tuple of non-negative ints, got {shape!r}")
    return tuple(int(d) for d in dims)


def _fits(op: Op, name: str, v: Variable, shape: tuple[int, ...]) -> None:
    try:
        ok = broadcast_shapes(v.shape, shape, op=str(op)) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"{op}: {name} of shape {v.shape} does not broadcast to the sample "
                         f"shape {shape}")


class KeyFromSeed(Op):
    """A ``uint32[2]`` key from an integer scalar seed (high and low 32 bits of its
    64-bit two's complement)."""

    def make_node(self, seed: Any) -> Apply:
        seed = as_variable(seed)
        if seed.ndim != 0 or not (is_integer(seed.dtype) or seed.dtype == _BOOL):
            raise TypeError(f"KeyFromSeed: the seed must be an integer scalar, got {seed.type}")
        return Apply(self, [seed], [KEY_TYPE])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        return [_seed_words(int(inputs[0]))]


class RandomOp(Op):
    """Base of the samplers: input 0 is the key; ``shape`` is the static sample shape."""

    __props__ = ("shape",)

    def generator(self, key: np.ndarray) -> np.random.Generator:
        return numpy_generator(key, SAMPLE_TAG)

    # derivatives: keys and integer parameters have none; a sampler of discrete values
    # (Bernoulli, Categorical, Integers) is piecewise constant in its float parameters
    def pullback(self, node, cotangents):
        reason = UndefinedGradient(
            f"{type(self).__name__} draws discrete values, a piecewise constant function of its "
            f"parameters: no pathwise (reparameterized) gradient exists; use a score-function "
            f"estimator or a continuous relaxation (e.g. Gumbel-softmax)")
        return [reason if is_inexact(v.dtype) else None for v in node.inputs]


class Split(RandomOp):
    """``n`` new keys (``uint32[n, 2]``) derived from a key."""

    __props__ = ("n",)

    def __init__(self, n: int = 2):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise TypeError(f"Split: n must be a non-negative int, got {n!r}")
        self.n = int(n)

    def make_node(self, k: Any) -> Apply:
        return Apply(self, [_check_key(self, k)], [TensorType(_UINT32, (self.n, 2))])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        gen = numpy_generator(inputs[0], SPLIT_TAG)
        return [gen.integers(0, 2**32, size=(self.n, 2), dtype=np.uint64).astype(_UINT32)]


class _FloatSampler(RandomOp):
    """Floats of ``dtype`` and ``shape`` from two parameters broadcast to ``shape``."""

    __props__ = ("shape", "dtype")
    params: tuple[str, str] = ("a", "b")

    def __init__(self, shape: Iterable[int], dtype: Any = "float64"):
        self.shape = _static_shape(type(self).__name__, shape)
        self.dtype = as_dtype(dtype)
        if not is_float(self.dtype):
            raise TypeError(f"{type(self).__name__}: dtype must be a float dtype, "
                            f"got {dtype_name(self.dtype)}")

    def make_node(self, k: Any, a: Any, b: Any) -> Apply:
        k = _check_key(self, k)
        a, b = as_variable(a, self.dtype), as_variable(b, self.dtype)
        for name, v in zip(self.params, (a, b)):
            _fits(self, name, v, self.shape)
        return Apply(self, [k, a, b], [TensorType(self.dtype, self.shape)])

    def __str__(self) -> str:
        return f"{type(self).__name__}{{shape={self.shape}, dtype={dtype_name(self.dtype)}}}"

    __repr__ = __str__


class Uniform(_FloatSampler):
    """Uniform floats in ``[minval, maxval)``."""

    params = ("minval", "maxval")

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        k, lo, hi = inputs
        u = self.generator(k).random(self.shape)
        lo, hi = lo.astype(np.float64), hi.astype(np.float64)
        return [np.asarray(np.maximum(lo, lo + u * (hi - lo))).astype(self.dtype)]

    # derivatives: the sample is minval + u * (maxval - minval) for u = the same key's
    # uniform sample in [0, 1)
    def pullback(self, node, cotangents):
        from ..autodiff import sum_to
        (ct,), (k, lo, hi) = cotangents, node.inputs
        u = _unit_sample(self, k)
        return [None, sum_to(ew.multiply(ct, ew.subtract(_one(u), u)), lo), sum_to(ew.multiply(ct, u), hi)]

    def pushforward(self, node, tangents):
        _, t_lo, t_hi = tangents
        u = _unit_sample(self, node.inputs[0])
        out = None
        if t_lo is not None:
            out = ew.multiply(t_lo, ew.subtract(_one(u), u))
        if t_hi is not None:
            out = _plus(out, ew.multiply(t_hi, u))
        return [out]


class Normal(_FloatSampler):
    """Normal floats with mean ``loc`` and standard deviation ``scale``."""

    params = ("loc", "scale")

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        k, loc, scale = inputs
        z = self.generator(k).standard_normal(self.shape)
        return [np.asarray(loc.astype(np.float64) + scale.astype(np.float64) * z).astype(self.dtype)]

    # derivatives: the sample is loc + scale * z for z = the same key's standard normal
    # sample (d/dloc = 1, d/dscale = z)
    def pullback(self, node, cotangents):
        from ..autodiff import sum_to
        (ct,), (k, loc, scale) = cotangents, node.inputs
        return [None, sum_to(ct, loc), sum_to(ew.multiply(ct, _unit_sample(self, k)), scale)]

    def pushforward(self, node, tangents):
        from ..autodiff import broadcast_like
        _, t_loc, t_scale = tangents
        out = None if t_loc is None else broadcast_like(t_loc, node.outputs[0])
        if t_scale is not None:
            out = _plus(out, ew.multiply(t_scale, _unit_sample(self, node.inputs[0])))
        return [out]


class Bernoulli(RandomOp):
    """Booleans that are true with probability ``p`` (a float broadcast to ``shape``)."""

    def __init__(self, shape: Iterable[int]):
        self.shape = _static_shape("Bernoulli", shape)

    def make_node(self, k: Any, p: Any) -> Apply:
        k = _check_key(self, k)
        p = as_variable(p)
        if not is_float(p.dtype):
            p = as_variable(p, _FLOAT64)
        _fits(self, "p", p, self.shape)
        return Apply(self, [k, p], [TensorType(_BOOL, self.shape)])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        k, p = inputs
        u = self.generator(k).random(self.shape)
        return [np.asarray(u < p.astype(np.float64))]


class Integers(RandomOp):
    """Integers of ``dtype`` uniform in ``[low, high)`` (``low < high``)."""

    __props__ = ("shape", "dtype")

    def __init__(self, shape: Iterable[int], dtype: Any = "int64"):
        self.shape = _static_shape("Integers", shape)
        self.dtype = as_dtype(dtype)
        if not is_integer(self.dtype):
            raise TypeError(f"Integers: dtype must be an integer dtype, got {dtype_name(self.dtype)}")

    def make_node(self, k: Any, low: Any, high: Any) -> Apply:
        k = _check_key(self, k)
        low, high = as_variable(low, self.dtype), as_variable(high, self.dtype)
        for name, v in (("low", low), ("high", high)):
            _fits(self, name, v, self.shape)
        return Apply(self, [k, low, high], [TensorType(self.dtype, self.shape)])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        k, low, high = inputs
        if np.any(low >= high):
            raise ValueError(f"{self}: low must be smaller than high")
        out = self.generator(k).integers(low, high, size=self.shape, dtype=self.dtype)
        return [np.asarray(out, dtype=self.dtype)]

    def __str__(self) -> str:
        return f"Integers{{shape={self.shape}, dtype={dtype_name(self.dtype)}}}"

    __repr__ = __str__


class Categorical(RandomOp):
    """int64 category indices drawn with probabilities ``softmax(logits)`` along
    ``axis``; ``shape`` is the sample shape, which must end with the batch shape
    (the logits' shape without ``axis``). Draws by the Gumbel-max trick."""

    __props__ = ("axis", "shape")

    def __init__(self, axis: int, shape: Iterable[int]):
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
            raise TypeError(f"Categorical: axis must be an int, got {axis!r}")
        self.axis = int(axis)
        self.shape = _static_shape("Categorical", shape)

    def make_node(self, k: Any, logits: Any) -> Apply:
        k = _check_key(self, k)
        logits = as_variable(logits)
        if not is_float(logits.dtype):
            logits = as_variable(logits, _FLOAT64)
        if logits.ndim == 0:
            raise ValueError(f"{self}: logits must have at least one dimension")
        axis = normalize_axis(self.axis, logits.ndim, str(self))
        if logits.shape[axis] == 0:
            raise ValueError(f"{self}: logits have no categories along axis {axis}")
        batch = logits.shape[:axis] + logits.shape[axis + 1:]
        tail = self.shape[len(self.shape) - len(batch):] if batch else ()
        if len(batch) > len(self.shape) or any(b is not None and b != s for b, s in zip(batch, tail)):
            raise ValueError(f"{self}: the sample shape {self.shape} must end with the logits' "
                             f"batch shape {batch}")
        op = self if axis == self.axis else Categorical(axis, self.shape)
        return Apply(op, [k, logits], [TensorType(_INT64, self.shape)])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        k, logits = inputs
        lg = np.moveaxis(logits, self.axis, -1).astype(np.float64)
        g = self.generator(k).gumbel(size=self.shape + (lg.shape[-1],))
        return [np.argmax(lg + g, axis=-1).astype(_INT64)]


class Gamma(RandomOp):
    """Gamma(``a``, 1) floats of ``dtype`` and ``shape`` (``a > 0`` broadcast to ``shape``),
    as numpy's ``standard_gamma``."""

    __props__ = ("shape", "dtype")

    def __init__(self, shape: Iterable[int], dtype: Any = "float64"):
        self.shape = _static_shape(type(self).__name__, shape)
        self.dtype = as_dtype(dtype)
        if not is_float(self.dtype):
            raise TypeError(f"{type(self).__name__}: dtype must be a float dtype, "
                            f"got {dtype_name(self.dtype)}")

    def _params(self, *params: Any) -> list[Variable]:
        out = [as_variable(p, self.dtype) for p in params]
        for name, v in zip(("a", "b"), out):
            _fits(self, name, v, self.shape)
        return out

    def make_node(self, k: Any, a: Any) -> Apply:
        return Apply(self, [_check_key(self, k), *self._params(a)],
                     [TensorType(self.dtype, self.shape)])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        k, a = inputs
        g = numpy_generator(k, GAMMA_TAG).standard_gamma(
            np.broadcast_to(a.astype(np.float64), self.shape))
        return [np.asarray(g).astype(self.dtype)]

    # derivatives: implicit reparameterization, as jax.random.gamma: d sample / d a is
    # -(dP/da) / (dP/dx) for the CDF P(a, x) (gamma_sample_grad); beta and Dirichlet
    # samples are ratios of the same key's gamma samples
    def sample_grads(self, node: Apply) -> list[Variable | None]:
        """d sample / d parameter (elementwise, of the sample's shape) per input."""
        k, a = node.inputs
        return [None, gamma_sample_grad(a, node.outputs[0])]

    def pullback(self, node, cotangents):
        from ..autodiff import sum_to
        (ct,) = cotangents
        return [None if d is None or not is_inexact(v.dtype) else sum_to(ew.multiply(ct, d), v)
                for v, d in zip(node.inputs, self.sample_grads(node))]

    def pushforward(self, node, tangents):
        out = None
        for t, d in zip(tangents, self.sample_grads(node)):
            if t is not None and d is not None:
                out = _plus(out, ew.multiply(t, d))
        return [out]

    def __str__(self) -> str:
        return f"{type(self).__name__}{{shape={self.shape}, dtype={dtype_name(self.dtype)}}}"

    __repr__ = __str__


class Beta(Gamma):
    """Beta(``a``, ``b``) floats: ``X / (X + Y)`` of independent Gamma(a) and Gamma(b)."""

    def make_node(self, k: Any, a: Any, b: Any) -> Apply:
        return Apply(self, [_check_key(self, k), *self._params(a, b)],
                     [TensorType(self.dtype, self.shape)])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        k, a, b = inputs
        x = numpy_generator(k, GAMMA_TAG).standard_gamma(np.broadcast_to(a.astype(np.float64), self.shape))
        y = numpy_generator(k, GAMMA_TAG_2).standard_gamma(np.broadcast_to(b.astype(np.float64), self.shape))
        with np.errstate(invalid="ignore"):
            return [np.asarray(x / (x + y)).astype(self.dtype)]

    def sample_grads(self, node: Apply) -> list[Variable | None]:
        # s = X / (X + Y): X is the key's Gamma(a) sample, Y = X (1 - s) / s;
        # ds/dX = s (1 - s) / X and ds/dY = -s^2 / X
        k, a, b = node.inputs
        s = node.outputs[0]
        x = Gamma(self.shape, self.dtype)(k, a)
        y = ew.divide(ew.multiply(x, ew.subtract(_one(s), s)), s)
        ds_dx = ew.divide(ew.multiply(s, ew.subtract(_one(s), s)), x)
        ds_dy = ew.negative(ew.divide(ew.multiply(s, s), x))
        return [None, ew.multiply(ds_dx, gamma_sample_grad(a, x)), ew.multiply(ds_dy, gamma_sample_grad(b, y))]


class Dirichlet(Gamma):
    """Dirichlet(``alpha``) vectors along a last axis of ``alpha``'s length K: the output
    has shape ``shape + (K,)``; ``alpha``'s batch shape (all but its last axis)
    broadcasts to ``shape``. Normalized Gamma(alpha) draws."""

    def make_node(self, k: Any, alpha: Any) -> Apply:
        k = _check_key(self, k)
        alpha = as_variable(alpha, self.dtype)
        if alpha.ndim == 0 or alpha.shape[-1] is None:
            raise ValueError(f"{self}: alpha must have a last axis of known length, got {alpha.type}")
        _fits(self, "alpha's batch shape", Variable(alpha.type.with_shape(alpha.shape[:-1])), self.shape)
        return Apply(self, [k, alpha], [TensorType(self.dtype, self.shape + alpha.shape[-1:])])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        k, alpha = inputs
        full = self.shape + alpha.shape[-1:]
        g = numpy_generator(k, GAMMA_TAG).standard_gamma(np.broadcast_to(alpha.astype(np.float64), full))
        with np.errstate(invalid="ignore"):
            return [np.asarray(g / g.sum(axis=-1, keepdims=True)).astype(self.dtype)]

    # s = g / sum(g) for the key's Gamma(alpha) samples g: the cotangent of g is
    # (ct - sum(ct * s)) / sum(g)
    def _parts(self, node: Apply) -> tuple[Variable, Variable, Variable]:
        k, alpha = node.inputs
        g = Gamma(node.outputs[0].shape, self.dtype)(k, alpha)
        return g, rd.sum(g, axis=-1, keepdims=True), gamma_sample_grad(alpha, g)

    def pullback(self, node, cotangents):
        from ..autodiff import sum_to
        (ct,), (k, alpha), s = cotangents, node.inputs, node.outputs[0]
        _, total, dg = self._parts(node)
        ct_g = ew.divide(ew.subtract(ct, rd.sum(ew.multiply(ct, s), axis=-1, keepdims=True)), total)
        return [None, sum_to(ew.multiply(ct_g, dg), alpha)]

    def pushforward(self, node, tangents):
        t, s = tangents[1], node.outputs[0]
        if t is None:
            return [None]
        _, total, dg = self._parts(node)
        t_g = ew.multiply(t, dg)
        return [ew.divide(ew.subtract(t_g, ew.multiply(s, rd.sum(t_g, axis=-1, keepdims=True))), total)]


class Permutation(RandomOp):
    """``x`` shuffled along its first axis."""

    __props__ = ()

    def make_node(self, k: Any, x: Any) -> Apply:
        k = _check_key(self, k)
        x = as_variable(x)
        if x.ndim == 0:
            raise ValueError(f"{self}: x must have at least one dimension, got {x.type}")
        return Apply(self, [k, x], [x.type])

    def perform(self, node: Apply, inputs: list[np.ndarray]) -> list[np.ndarray]:
        k, x = inputs
        return [x[self.generator(k).permutation(x.shape[0])].copy()]

    # derivatives: a shuffle is linear in x; the permutation depends only on the key and
    # the length, so the key's shuffle of 0, 1, ..., n-1 gives it, and the cotangent is
    # scattered back through it
    def pullback(self, node, cotangents):
        (ct,), (k, x) = cotangents, node.inputs
        if not is_inexact(x.dtype):
            return [None, None]
        from .indexing import at
        from .shape import zeros_like
        n = x.shape[0]
        if n is None:
            from .construct import shape_of
            from .dynamic import dynamic_arange
            iota = dynamic_arange(shape_of(x)[0])
        else:
            iota = Constant(np.arange(n, dtype=_INT64))
        perm = self(k, iota)
        return [None, at(zeros_like(ct))[perm].set(ct)]

    def pushforward(self, node, tangents):
        t = tangents[1]
        return [None if t is None or not is_inexact(t.dtype) else self(node.inputs[0], t)]


def gamma_sample_grad(a: Any, x: Variable) -> Variable:
    """d x / d a for a Gamma(a, 1) sample ``x`` (``a`` broadcasts to its shape), by implicit
    reparameterization: -(dP/da) / (dP/dx) for the regularized lower incomplete gamma
    function P, as jax's ``random_gamma_grad``: a series for x <= max(1, a), a continued
    fraction above, each a while loop until the derivative converges. 0 at x = 0; NaN for
    a <= 0, x < 0 or NaN. float16 and bfloat16 are computed in float32."""
    from .shape import broadcast_to
    from .special import gammaln
    a = as_variable(a, x.dtype)
    out_dtype = x.dtype
    if x.dtype in _HALF:
        a, x = ew.astype(a, _FLOAT32), ew.astype(x, _FLOAT32)
    if a.shape != x.shape:
        a = broadcast_to(a, x.shape)
    dt = x.dtype
    zero = Constant(np.zeros((), dt))
    is_nan = ew.logical_or(ew.isnan(a), ew.isnan(x))
    x_is_zero = ew.equal(x, zero)
    domain_error = ew.logical_or(ew.less(x, zero), ew.less_equal(a, zero))
    use_fraction = ew.logical_and(ew.greater(x, Constant(np.ones((), dt))), ew.greater(x, a))
    log_ax = ew.subtract(ew.subtract(ew.multiply(a, ew.log(x)), x), gammaln(a))
    underflow = ew.less(log_ax, Constant(np.asarray(-np.log(np.finfo(dt).max), dt)))
    enabled = ew.logical_not(ew.logical_or(ew.logical_or(x_is_zero, domain_error), ew.logical_or(underflow, is_nan)))
    series = _igamma_series_sample_grad(a, x, ew.logical_and(enabled, ew.logical_not(use_fraction)))
    fraction = _igammac_fraction_sample_grad(a, x, ew.logical_and(enabled, use_fraction))
    out = ew.where(use_fraction, ew.negative(fraction), series)
    out = ew.where(x_is_zero, zero, out)
    out = ew.where(ew.logical_or(domain_error, is_nan), Constant(np.asarray(np.nan, dt)), out)
    return ew.astype(out, out_dtype)


_SERIES_LIMIT = 2000  # iterations, as jax's continued fraction


def _igamma_series_sample_grad(a: Variable, x: Variable, enabled: Variable) -> Variable:
    """d x / d a from the series of P(a, x): jax's ``_igamma_series`` in SAMPLE_DERIVATIVE
    mode (the elements not ``enabled`` do not iterate; at most 2000 iterations)."""
    from .control import while_loop
    from .special import digamma
    dt = x.dtype
    c_ = lambda v: Constant(np.asarray(v, dt))
    eps = c_(np.finfo(dt).eps)

    def cond(n, on, r, c, ans, dc_da, dans_da):
        return ew.logical_and(ew.less(n, _SERIES_LIMIT), rd.any(on))

    def body(n, on, r, c, ans, dc_da, dans_da):
        r2 = ew.add(r, c_(1))
        dc_da2 = ew.subtract(ew.multiply(dc_da, ew.divide(x, r2)), ew.divide(ew.multiply(c, x), ew.multiply(r2, r2)))
        dans_da2 = ew.add(dans_da, dc_da2)
        c2 = ew.multiply(c, ew.divide(x, r2))
        ans2 = ew.add(ans, c2)
        more = ew.logical_and(on, ew.greater(ew.abs(ew.divide(dc_da2, dans_da2)), eps))
        keep = lambda new, old: ew.where(on, new, old)
        return (ew.add(n, 1), more, keep(r2, r), keep(c2, c), keep(ans2, ans), keep(dc_da2, dc_da),
                keep(dans_da2, dans_da))

    ones, zeros = ew.add(ew.multiply(x, c_(0)), c_(1)), ew.multiply(x, c_(0))
    out = while_loop(cond, body, [Constant(np.int64(0)), enabled, a, ones, ones, zeros, zeros])
    ans, dans_da = out[4], out[6]
    dlogax_da = ew.subtract(ew.log(x), digamma(ew.add(a, c_(1))))
    return ew.divide(ew.multiply(ew.negative(ew.add(dans_da, ew.multiply(ans, dlogax_da))), x), a)


def _igammac_fraction_sample_grad(a: Variable, x: Variable, enabled: Variable) -> Variable:
    """d x / d a from the continued fraction of Q(a, x) = 1 - P(a, x), negated: jax's
    ``_igammac_continued_fraction`` in SAMPLE_DERIVATIVE mode (the elements not
    ``enabled`` do not iterate; at most 2000 iterations)."""
    from .control import while_loop
    from .special import digamma
    dt = x.dtype
    c_ = lambda v: Constant(np.asarray(v, dt))
    eps = c_(np.finfo(dt).eps)

    def cond(on, ans, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans):
        return ew.logical_and(ew.less(c, c_(2000)), rd.any(on))

    def body(on, ans, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans):
        c2, y2, z2 = ew.add(c, c_(1)), ew.add(y, c_(1)), ew.add(z, c_(2))
        yc = ew.multiply(y2, c2)
        pk = ew.subtract(ew.multiply(pkm1, z2), ew.multiply(pkm2, yc))
        qk = ew.subtract(ew.multiply(qkm1, z2), ew.multiply(qkm2, yc))
        nonzero = ew.not_equal(qk, c_(0))
        safe_qk = ew.where(nonzero, qk, c_(1))
        ans2 = ew.where(nonzero, ew.divide(pk, safe_qk), ans)
        dpk = ew.add(ew.subtract(ew.subtract(ew.multiply(dpkm1, z2), pkm1), ew.multiply(dpkm2, yc)),
                     ew.multiply(pkm2, c2))
        dqk = ew.add(ew.subtract(ew.subtract(ew.multiply(dqkm1, z2), qkm1), ew.multiply(dqkm2, yc)),
                     ew.multiply(qkm2, c2))
        dans2 = ew.where(nonzero, ew.divide(ew.subtract(dpk, ew.multiply(ans2, dqk)), safe_qk), dans)
        change = ew.where(nonzero, ew.abs(ew.subtract(dans2, dans)), c_(1))
        rescale = ew.greater(ew.abs(pk), ew.reciprocal(eps))
        scaled = lambda v: ew.where(rescale, ew.multiply(v, eps), v)
        new = [ans2, y2, z2, scaled(pk), scaled(qk), scaled(pkm1), scaled(qkm1),
               scaled(dpkm1), scaled(dqkm1), scaled(dpk), scaled(dqk), dans2]
        old = [ans, y, z, pkm1, qkm1, pkm2, qkm2, dpkm2, dqkm2, dpkm1, dqkm1, dans]
        more = ew.logical_and(on, ew.greater(change, eps))
        kept = [ew.where(on, n_, o) for n_, o in zip(new, old)]
        return (more, *kept[:3], c2, *kept[3:])

    zeros = ew.multiply(x, c_(0))
    y = ew.subtract(c_(1), a)
    z = ew.add(ew.add(x, y), c_(1))
    pkm1 = ew.add(x, c_(1))
    qkm1 = ew.multiply(z, x)
    ans = ew.divide(pkm1, qkm1)
    dqkm1 = ew.negative(x)
    dans = ew.divide(ew.negative(ew.multiply(ans, dqkm1)), qkm1)
    out = while_loop(cond, body, [enabled, ans, y, z, c_(0), pkm1, qkm1, ew.add(zeros, c_(1)), x,
                                  zeros, zeros, zeros, dqkm1, dans])
    ans, dans = out[1], out[13]
    dlogax_da = ew.subtract(ew.log(x), digamma(a))
    return ew.negative(ew.multiply(ew.add(dans, ew.multiply(ans, dlogax_da)), x))


def _unit_sample(op: _FloatSampler, k: Variable) -> Variable:
    """The sample of ``op``'s type for ``k`` with parameters 0 and 1 (uniform in [0, 1), a
    standard normal): the same bits, so the sample with other parameters is an affine
    function of it."""
    zero, one = (Constant(np.asarray(v, dtype=op.dtype)) for v in (0, 1))
    return op(k, zero, one)


def _one(v: Variable) -> Constant:
    return Constant(np.ones((), dtype=v.dtype))


def _plus(a: Variable | None, b: Variable) -> Variable:
    return b if a is None else ew.add(a, b)


def key(seed: Any) -> Variable:
    """A ``uint32[2]`` key: a Constant for a Python int, a node for a graph integer scalar."""
    if isinstance(seed, Variable):
        return KeyFromSeed()(seed)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"key: seed must be an int or an integer graph scalar, got {seed!r}")
    return Constant(_seed_words(int(seed)))


def split(k: Any, n: int = 2) -> Variable:
    """``n`` independent keys derived from ``k``, as ``uint32[n, 2]`` (``keys[i]`` is one)."""
    return Split(n)(k)


def _float_dtype(dtype: Any, *params: Any) -> np.dtype:
    if dtype is not None:
        return as_dtype(dtype)
    for p in params:
        if isinstance(p, Variable):
            if is_float(p.dtype):
                return p.dtype
        elif not is_weak(p) and not isinstance(p, (list, tuple)):
            dt = np.asarray(p).dtype
            if is_float(dt):
                return as_dtype(dt)
    return _FLOAT64


def uniform(k: Any, shape: Iterable[int] = (), dtype: Any = None, minval: Any = 0.0,
            maxval: Any = 1.0) -> Variable:
    """Uniform floats in ``[minval, maxval)`` (dtype: given, else a float parameter's, else float64)."""
    return Uniform(shape, _float_dtype(dtype, minval, maxval))(k, minval, maxval)


def normal(k: Any, shape: Iterable[int] = (), dtype: Any = None, loc: Any = 0.0,
           scale: Any = 1.0) -> Variable:
    """Normal floats with mean ``loc`` and standard deviation ``scale``."""
    return Normal(shape, _float_dtype(dtype, loc, scale))(k, loc, scale)


def bernoulli(k: Any, p: Any = 0.5, shape: Iterable[int] | None = None) -> Variable:
    """Booleans, true with probability ``p``; ``shape`` defaults to ``p``'s shape."""
    p = as_variable(p)
    return Bernoulli(p.shape if shape is None else shape)(k, p)


def categorical(k: Any, logits: Any, axis: int = -1, shape: Iterable[int] | None = None) -> Variable:
    """Category indices (int64) with probabilities ``softmax(logits, axis)``; ``shape``
    defaults to the logits' batch shape (their shape without ``axis``)."""
    logits = as_variable(logits)
    if shape is None:
        if logits.ndim == 0:
            raise ValueError("categorical: logits must have at least one dimension")
        ax = normalize_axis(axis, logits.ndim, "categorical")
        shape = logits.shape[:ax] + logits.shape[ax + 1:]
    return Categorical(axis, shape)(k, logits)


def integers(k: Any, low: Any, high: Any = None, shape: Iterable[int] = (),
             dtype: Any = "int64") -> Variable:
    """Integers uniform in ``[low, high)`` (``integers(k, high)`` means ``[0, high)``)."""
    if high is None:
        low, high = 0, low
    return Integers(shape, dtype)(k, low, high)


def permutation(k: Any, x: Any) -> Variable:
    """A random permutation of ``range(x)`` (int64) for an int ``x``, else ``x`` shuffled
    along its first axis."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        x = Constant(np.arange(int(x), dtype=_INT64))
    return Permutation()(k, x)


def gamma(k: Any, a: Any, shape: Iterable[int] | None = None, dtype: Any = None) -> Variable:
    """Gamma(``a``, 1) floats (``a > 0``); ``shape`` defaults to ``a``'s shape."""
    a_var = as_variable(a) if isinstance(a, Variable) else None
    dt = _float_dtype(dtype, a)
    a = as_variable(a, dt) if a_var is None else a_var
    return Gamma(a.shape if shape is None else shape, dt)(k, a)


def beta(k: Any, a: Any, b: Any, shape: Iterable[int] | None = None, dtype: Any = None) -> Variable:
    """Beta(``a``, ``b``) floats; ``shape`` defaults to the broadcast shape of ``a`` and ``b``."""
    dt = _float_dtype(dtype, a, b)
    a, b = as_variable(a, dt), as_variable(b, dt)
    if shape is None:
        shape = broadcast_shapes(a.shape, b.shape, op="beta")
    return Beta(shape, dt)(k, a, b)


def dirichlet(k: Any, alpha: Any, shape: Iterable[int] | None = None, dtype: Any = None) -> Variable:
    """Dirichlet(``alpha``) vectors along ``alpha``'s last axis; the result has shape
    ``shape + (K,)`` (``shape`` defaults to ``alpha``'s batch shape)."""
    dt = _float_dtype(dtype, alpha)
    alpha = as_variable(alpha, dt)
    if shape is None:
        shape = alpha.shape[:-1]
    return Dirichlet(shape, dt)(k, alpha)
