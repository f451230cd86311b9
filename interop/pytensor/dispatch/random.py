"""Random variables (``pytensor.tensor.random``): PyTensor's ``RandomVariable`` Ops
on hlograph's counter-based random family (``frontend/ops/random.py``).

The design, end to end:

- A random generator is a NumPy ``Generator`` in PyTensor (the value of a shared
  ``RandomGeneratorType`` variable, or an explicit input). In the hlograph graph
  it is a ``uint32[2]`` key (``convert.input_type``). Before each call the linker
  derives the key from the Generator's state (``key_of``: a hash of it; the
  caller's Generator is never advanced: a function without
  ``updates`` gives the same draws on every call, as PyTensor's non-in-place
  random variables do).
- A ``RandomVariable`` node ``(rng, size, *params) -> (next_rng, draws)`` becomes
  ``split(key, 2)``: key 0 is ``next_rng``, key 1 draws through hlograph's samplers
  (``normal``, ``uniform``, ``gamma``, ``beta``, ``dirichlet``, ``bernoulli``,
  ``categorical``, ``integers``, ``permutation``) and transformations of them
  (half-normal, log-normal, exponential, Cauchy, Gumbel, Laplace, logistic,
  inverse gamma, Student's t, multivariate normal through a Cholesky factor).
- An output of generator type (the ``next_rng`` of ``updates={rng: next_rng}``,
  what ``RandomStream`` sets up) comes back as a key; the linker turns it into a new
  Generator (``generator_of``: NumPy's default generator seeded by the key words),
  which PyTensor stores in the shared variable. The next call derives a new key
  from it: repeated calls give new draws, the same sequence for the same seed.
- A random variable with no hlograph sampler (Poisson, binomial, choice, ...) or
  whose sample shape is known only at run time runs PyTensor's own ``perform`` on
  the host (``RandomPerform``) with a NumPy Generator seeded by its key, still
  inside the compiled function (``FallbackWarning`` once per Op class).

The draws follow PyTensor's distributions; the bits differ from NumPy's (XLA's
Threefry generator on a device), so tests compare moments and distributions.
"""

from __future__ import annotations

import copy

import numpy as np
import pytensor.tensor.random.basic as ptr
from pytensor.tensor.random.op import RandomVariable

from ....frontend import builders as hb
from ....frontend.graph import Apply, Constant, Op, Variable
from ....frontend.ops import random as hr
from ....frontend.types import TensorType
from ....runtime.host import segment as _segment
from ..convert import NotConvertible, NotStatic, _static_python, cast, hlograph_convert, hlograph_type
from ..convert import run_pytensor_node

__all__ = ["key_of", "generator_of", "RandomPerform", "SAMPLERS"]


# --- Generator <-> key ---------------------------------------------------------------------
_MASK64 = (1 << 64) - 1


def _mix64(x: int) -> int:
    """SplitMix64's finalizer: a bijection of 64-bit words that spreads every input bit."""
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return x ^ (x >> 31)


def key_of(generator: np.random.Generator) -> np.ndarray:
    """The ``uint32[2]`` key of a NumPy Generator, a function of its state (``generator``
    itself does not advance): for PCG64 (NumPy's default) a hash of the state words,
    otherwise two words drawn from a copy of it."""
    if not isinstance(generator, np.random.Generator):
        raise TypeError(f"expected a numpy.random.Generator for a random generator input, "
                        f"got {type(generator).__name__}")
    st = generator.bit_generator.state
    inner = st.get("state")
    if isinstance(inner, dict) and isinstance(inner.get("state"), int) and isinstance(inner.get("inc"), int):
        h = _mix64(int(st.get("uinteger", 0)) * 2 + int(st.get("has_uint32", 0)))
        for word in (inner["inc"] >> 64, inner["inc"], inner["state"] >> 64, inner["state"]):
            h = _mix64(h ^ (word & _MASK64))
        return np.array([h >> 32, h & 0xFFFFFFFF], dtype=np.uint32)
    return copy.deepcopy(generator).integers(0, 2**32, size=2, dtype=np.uint32)


def generator_of(key: np.ndarray) -> np.random.Generator:
    """A new NumPy Generator for a ``uint32[2]`` key (the next state of a generator)."""
    k = np.asarray(key, dtype=np.uint32).reshape(-1)
    return np.random.default_rng([int(k[0]), int(k[1])])


# --- the samplers ----------------------------------------------------------------------------
def _uniform_open(k, shape, dtype):
    """Uniform floats in (0, 1)."""
    tiny = float(np.finfo(dtype).tiny)
    return hr.uniform(k, shape, dtype, tiny, 1.0)


def _std_normal(k, shape, dtype):
    return hr.normal(k, shape, dtype, 0.0, 1.0)


def _affine(loc, scale, z):
    return hb.add(loc, hb.multiply(scale, z))


def _normal(k, shape, dtype, loc, scale):
    return hr.normal(k, shape, dtype, loc, scale)


def _uniform(k, shape, dtype, low, high):
    return hr.uniform(k, shape, dtype, low, high)


def _halfnormal(k, shape, dtype, loc, scale):
    return _affine(loc, scale, hb.abs(_std_normal(k, shape, dtype)))


def _lognormal(k, shape, dtype, mean, sigma):
    return hb.exp(hr.normal(k, shape, dtype, mean, sigma))


def _exponential(k, shape, dtype, scale):
    u = hr.uniform(k, shape, dtype, 0.0, 1.0)
    return hb.multiply(scale, hb.negative(hb.log1p(hb.negative(u))))


def _gamma(k, shape, dtype, a, scale):
    return hb.multiply(hr.gamma(k, a, shape, dtype), scale)


def _invgamma(k, shape, dtype, a, scale):
    return hb.divide(scale, hr.gamma(k, a, shape, dtype))


def _beta(k, shape, dtype, a, b):
    return hr.beta(k, a, b, shape, dtype)


def _dirichlet(k, shape, dtype, alpha):
    return hr.dirichlet(k, alpha, shape, dtype)


def _cauchy(k, shape, dtype, loc, scale):
    u = _uniform_open(k, shape, dtype)
    return _affine(loc, scale, hb.tan(hb.multiply(np.pi, hb.subtract(u, 0.5))))


def _halfcauchy(k, shape, dtype, loc, scale):
    u = _uniform_open(k, shape, dtype)
    return _affine(loc, scale, hb.tan(hb.multiply(np.pi / 2, u)))


def _gumbel(k, shape, dtype, loc, scale):
    u = _uniform_open(k, shape, dtype)
    return hb.subtract(loc, hb.multiply(scale, hb.log(hb.negative(hb.log(u)))))


def _laplace(k, shape, dtype, loc, scale):
    u = hb.subtract(_uniform_open(k, shape, dtype), 0.5)
    return hb.subtract(loc, hb.multiply(hb.multiply(scale, hb.sign(u)),
                                        hb.log1p(hb.multiply(-2.0, hb.abs(u)))))


def _logistic(k, shape, dtype, loc, scale):
    u = _uniform_open(k, shape, dtype)
    return _affine(loc, scale, hb.subtract(hb.log(u), hb.log1p(hb.negative(u))))


def _student_t(k, shape, dtype, df, loc, scale):
    keys = hr.split(k, 2)
    z = _std_normal(hb.getitem(keys, 0), shape, dtype)
    chi2 = hb.multiply(2.0, hr.gamma(hb.getitem(keys, 1), hb.multiply(df, 0.5), shape, dtype))
    return _affine(loc, scale, hb.divide(z, hb.sqrt(hb.divide(chi2, df))))


def _bernoulli(k, shape, dtype, p):
    return hr.bernoulli(k, p, shape)


def _categorical(k, shape, dtype, p):
    logits = hb.broadcast_to(hb.log(p), tuple(shape) + (p.shape[-1],))  # size-1 batch dims of p
    return hr.categorical(k, logits, axis=-1, shape=shape)


def _integers(k, shape, dtype, low, high):
    return hr.integers(k, low, high, shape, dtype)


def _mvnormal(k, shape, dtype, mean, cov):
    n = cov.shape[-1]
    if n is None:
        raise NotStatic("the dimension of a multivariate normal is known only at run time")
    z = _std_normal(k, tuple(shape) + (n,), dtype)
    chol = hb.cholesky(cov)  # lower
    return hb.add(mean, hb.matvec(chol, z))


#: PyTensor RandomVariable class -> sampler(key, batch shape, dtype, *params)
SAMPLERS = {
    ptr.NormalRV: _normal,
    ptr.UniformRV: _uniform,
    ptr.HalfNormalRV: _halfnormal,
    ptr.LogNormalRV: _lognormal,
    ptr.ExponentialRV: _exponential,
    ptr.GammaRV: _gamma,
    ptr.InvGammaRV: _invgamma,
    ptr.BetaRV: _beta,
    ptr.DirichletRV: _dirichlet,
    ptr.CauchyRV: _cauchy,
    ptr.HalfCauchyRV: _halfcauchy,
    ptr.GumbelRV: _gumbel,
    ptr.LaplaceRV: _laplace,
    ptr.LogisticRV: _logistic,
    ptr.StudentTRV: _student_t,
    ptr.BernoulliRV: _bernoulli,
    ptr.CategoricalRV: _categorical,
    ptr.IntegersRV: _integers,
    ptr.MvNormalRV: _mvnormal,
}

#: random variables whose parameters keep their integer dtypes (the parameters of the
#: others are cast to the draw's float dtype, or to float64 for probabilities)
_INT_PARAMS = (ptr.IntegersRV,)


def _batch_shape(op, node, size, params, ctx) -> tuple[int, ...]:
    """The static sample (batch) shape: ``size``, else the broadcast batch shapes of the
    parameters."""
    if size is not None:
        dims = ctx.static_ints(size)
        if dims is None:
            raise NotStatic("the size of the draw is known only at run time")
        return tuple(dims)
    out = node.outputs[1].type.shape
    batch_nd = len(out) - op.ndim_supp
    if None not in out[:batch_nd]:
        return tuple(out[:batch_nd])
    shapes = []
    for p, core in zip(params, op.ndims_params):
        s = p.shape[:p.ndim - core]
        if None in s:
            ctx.mark_shape_dependent()
            raise NotStatic("the shape of the draw is known only at run time")
        shapes.append(s)
    return tuple(np.broadcast_shapes(*shapes)) if shapes else ()


def _draw(op, node, k, size, params, ctx) -> Variable:
    sampler = SAMPLERS.get(type(op))
    if isinstance(op, ptr.PermutationRV):
        (x,) = params
        if size is not None and ctx.static_ints(size) != ():
            raise NotConvertible("a batch of permutations")
        if x.ndim:
            return hr.permutation(k, x)  # x shuffled along its first axis
        n = ctx.static_int(x)
        if n is None:
            raise NotStatic("the length of the permutation is known only at run time")
        return hr.permutation(k, n)
    if sampler is None:
        raise NotConvertible(f"hlograph has no sampler for {type(op).__name__}")
    dtype = node.outputs[1].type.dtype
    shape = _batch_shape(op, node, size, params, ctx)
    if np.dtype(dtype).kind == "f":
        params = [cast(p, dtype) for p in params]
    elif not isinstance(op, _INT_PARAMS):  # bernoulli, categorical: float probabilities
        params = [p if np.dtype(p.dtype).kind == "f" else cast(p, "float64") for p in params]
    return sampler(k, shape, dtype, *params)


@hlograph_convert.register(RandomVariable)
def convert_random_variable(op, node, inputs, ctx):
    """``split(key, 2)``: the next generator and the key of the draw (see the module
    docstring); without a sampler, PyTensor's perform draws with that key."""
    from ..fallback import _warn, op_name
    rng, size, *params = inputs
    if not isinstance(rng, Variable) or rng.type != hr.KEY_TYPE:
        raise NotConvertible("the random generator is not a graph input or a random variable's output")
    keys = hr.split(rng, 2)
    next_key, k = hb.getitem(keys, 0), hb.getitem(keys, 1)
    params = [p if isinstance(p, Variable) else Constant(np.asarray(p)) for p in params]
    try:
        value = _draw(op, node, k, size, params, ctx)
    except (NotConvertible, TypeError, ValueError) as e:
        if ctx.probe and isinstance(e, NotStatic):
            raise  # converted again once the argument shapes are known
        reason = str(e) if isinstance(e, NotConvertible) else f"{type(e).__name__}: {e}"
        name = op_name(op)
        ctx.fallbacks.append((name, reason))
        _warn(name, reason)
        value = RandomPerform.apply(node, k, size, params)
    return [next_key, value]


class RandomPerform(Op):
    """A PyTensor random variable drawn by its own ``perform`` with a NumPy Generator
    seeded by a key: inputs ``[key, *tensor inputs]`` (a ``size`` known now is fixed),
    output the draws."""

    def __init__(self, pt_node, fixed_size, has_size_input: bool):
        self.pt_node = pt_node
        self.fixed_size = fixed_size
        self.has_size_input = has_size_input
        self.name = type(pt_node.op).__name__
        self.host_reason = f"runs PyTensor's {self.name}.perform"

    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __str__(self) -> str:
        return f"RandomPerform{{{self.pt_node.op}}}"

    __repr__ = __str__

    @classmethod
    def apply(cls, pt_node, k: Variable, size, params: list[Variable]) -> Variable:
        has_size = isinstance(size, Variable)
        if not has_size and not _static_python(size):
            raise NotImplementedError(f"{type(pt_node.op).__name__}: its size {size!r} is not a tensor")
        op = cls(pt_node, None if has_size else size, has_size)
        ins = [k, *([size] if has_size else []), *params]
        return op.make_node(*ins).outputs[0]

    def make_node(self, k, *inputs) -> Apply:
        out = hlograph_type(self.pt_node.outputs[1].type)
        return Apply(self, [k, *inputs], [TensorType(out.dtype, out.shape)])

    def perform(self, node, inputs):
        k, *rest = inputs
        if self.has_size_input:
            size, *params = rest
        else:
            size, params = self.fixed_size, rest
        if size is not None:
            size = np.asarray(size, dtype=np.int64)
        gen = hr.numpy_generator(k)
        return [run_pytensor_node(self.pt_node, [gen, size, *params])[1]]


# hlograph's own warning about Ops run by their perform: FallbackWarning names the
# PyTensor random variable instead
_segment.quiet_python_fallback(RandomPerform)
