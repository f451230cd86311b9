"""Random variables in the HLOGRAPH mode with ``rng="numpy"`` (the CPU's default): a
PyTensor Generator goes into the graph as its PCG64 state and each random variable runs
its perform on the host with it, so the draws and the next state are NumPy's: the same
numbers as PyTensor's Python mode (and its C and NUMBA backends), call after call."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pytensor")

import pytensor  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
from pytensor.tensor.random.type import random_generator_type  # noqa: E402

import hlograph.interop.pytensor as hgpt  # noqa: E402
from hlograph.interop.pytensor.dispatch.random import generator_of_state, state_of  # noqa: E402
from hlograph.tests.interop.pytensor_helpers import compare_hlograph_and_py, fallbacks_of, py_mode  # noqa: E402,E501

NUMPY = hgpt.mode(rng="numpy")

CASES = {
    "normal": lambda rng: pt.random.normal(1.0, 2.0, size=(3, 4), rng=rng),
    "uniform_float32": lambda rng: pt.random.uniform(np.float32(0), np.float32(1), size=(5,), rng=rng),
    "gamma": lambda rng: pt.random.gamma(np.array([0.5, 2.0, 7.0]), 1.5, rng=rng),
    "beta": lambda rng: pt.random.beta(2.0, 3.0, size=(6,), rng=rng),
    "poisson": lambda rng: pt.random.poisson(np.array([0.5, 3.0, 40.0]), size=(2, 3), rng=rng),
    "binomial": lambda rng: pt.random.binomial(10, 0.3, size=(4,), rng=rng),
    "categorical": lambda rng: pt.random.categorical(np.array([0.2, 0.5, 0.3]), size=(7,), rng=rng),
    "integers": lambda rng: pt.random.integers(-3, 9, size=(5,), rng=rng),
    "dirichlet": lambda rng: pt.random.dirichlet(np.ones(3), size=(2,), rng=rng),
    "mvnormal": lambda rng: pt.random.multivariate_normal(np.zeros(2), np.array([[2.0, 0.5], [0.5, 1.0]]),
                                                          size=(3,), rng=rng),
    "multinomial": lambda rng: pt.random.multinomial(5, np.array([0.3, 0.7]), size=(2,), rng=rng),
    "permutation": lambda rng: pt.random.permutation(np.arange(6.0), rng=rng),
    "choice": lambda rng: pt.random.choice(np.arange(10.0), size=(3,), replace=False, rng=rng),
    "hypergeometric": lambda rng: pt.random.hypergeometric(5, 4, 3, size=(4,), rng=rng),
    "scalar_size": lambda rng: pt.random.normal(0.0, 1.0, rng=rng),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_draws_are_numpys(name):
    rng = pytensor.shared(np.random.default_rng(20261203))
    x = CASES[name](rng)
    fn, _ = compare_hlograph_and_py([], [x], [], mode=NUMPY, assert_fn=np.testing.assert_array_equal)
    assert not fallbacks_of(fn)  # by design, not a fallback
    assert hgpt.compiled_graph(fn).rng == "numpy"


def test_it_is_the_default_on_the_cpu():
    rng = pytensor.shared(np.random.default_rng(3))
    x = pt.random.normal(size=(4,), rng=rng)
    np.testing.assert_array_equal(pytensor.function([], x, mode="HLOGRAPH")(),
                                  pytensor.function([], x, mode=py_mode)())
    assert hgpt.compiled_graph(pytensor.function([], x, mode="HLOGRAPH")).rng == "numpy"
    assert hgpt.compiled_graph(pytensor.function([], x, mode=hgpt.mode(rng="keys"))).rng == "keys"


def test_updates_advance_the_generator_as_pytensor_does():
    def run(mode):
        rng = pytensor.shared(np.random.default_rng(7))
        nxt, x = pt.random.normal(0.0, 1.0, size=(3,), rng=rng).owner.outputs
        nxt2, y = pt.random.gamma(2.0, 1.0, size=(2,), rng=nxt).owner.outputs
        fn = pytensor.function([], [x, y], updates={rng: nxt2}, mode=mode)
        draws = [fn() for _ in range(4)]
        return draws, rng.get_value(borrow=True).bit_generator.state

    got, got_state = run(NUMPY)
    want, want_state = run(py_mode)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    assert got_state == want_state
    # without updates every call draws the same numbers, and the Generator is not advanced
    rng = pytensor.shared(np.random.default_rng(7))
    fn = pytensor.function([], pt.random.normal(size=(3,), rng=rng), mode=NUMPY)
    before = rng.get_value(borrow=True).bit_generator.state
    np.testing.assert_array_equal(fn(), fn())
    assert rng.get_value(borrow=True).bit_generator.state == before


def test_explicit_generator_input_and_output_and_symbolic_parameters():
    rng = random_generator_type("rng")
    loc = pt.dvector("loc")
    nxt, x = pt.random.normal(loc, 2.0, rng=rng).owner.outputs
    fn = pytensor.function([rng, loc], [nxt, x * 2], mode=NUMPY)
    ref = pytensor.function([rng, loc], [nxt, x * 2], mode=py_mode)
    g = np.random.default_rng(11)
    (n1, v1), (n2, v2) = fn(g, [0.0, 5.0, -1.0]), ref(g, [0.0, 5.0, -1.0])
    np.testing.assert_array_equal(v1, v2)
    assert n1.bit_generator.state == n2.bit_generator.state
    assert n1 is not g and g.bit_generator.state == np.random.default_rng(11).bit_generator.state


def test_state_round_trip_and_other_bit_generators():
    g = np.random.default_rng(5)
    g.integers(0, 10, size=3)
    g.random()  # a buffered half-word (has_uint32) after an odd count of 32-bit draws:
    g.integers(0, 2**31, dtype=np.int32)
    back = generator_of_state(state_of(g))
    assert back.bit_generator.state == g.bit_generator.state
    np.testing.assert_array_equal(back.integers(0, 2**31, size=5, dtype=np.int32),
                                  g.integers(0, 2**31, size=5, dtype=np.int32))
    rng = random_generator_type("rng")
    fn = pytensor.function([rng], pt.random.normal(size=(2,), rng=rng), mode=NUMPY)
    with pytest.raises(TypeError, match="PCG64"):
        fn(np.random.Generator(np.random.MT19937(1)))
    with pytest.raises(ValueError, match="rng"):
        hgpt.mode(rng="philox")


def test_random_variables_inside_a_scan():
    def run(mode):
        rng = pytensor.shared(np.random.default_rng(2))

        def step(acc, rng):
            nxt, e = pt.random.normal(0.0, 1.0, rng=rng).owner.outputs
            return acc + e, {rng: nxt}

        out, upd = pytensor.scan(step, outputs_info=[pt.as_tensor(np.float64(0.0))], non_sequences=[rng], n_steps=5)
        return pytensor.function([], out, updates=upd, mode=mode)()

    np.testing.assert_allclose(run(NUMPY), run(py_mode), rtol=1e-12)
