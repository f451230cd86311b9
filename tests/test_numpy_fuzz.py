"""The differential fuzzer against NumPy (hlograph/testing/fuzz.py): a fixed-seed
run of small random programs over the NumPy-named builders must find nothing,
and the fuzzer itself must catch and shrink a wrong op."""

import numpy as np
import pytest

import hlograph as hg
from hlograph.testing import fuzz

# ops left out of the fixed-seed run, with the reason (each a known difference
# that README.md documents or a gap tracked apart)
KNOWN: dict[str, str] = {}


def test_fixed_seed_run_finds_nothing():
    specs = tuple(s for s in fuzz.SPECS if s.name not in KNOWN)
    failures = list(fuzz.run(200, seed=20261124, n_steps=2, specs=specs))
    assert not failures, "\n\n".join(f.describe() for f in failures[:5])


def test_compare_sees_dtype_shape_values_and_nan_positions():
    a = np.array([1.0, np.nan, 3.0], np.float32)
    assert fuzz.compare(a, a.copy()) is None
    assert "dtype" in fuzz.compare(a, a.astype(np.float64))
    assert "shape" in fuzz.compare(a, a[:2])
    assert "values" in fuzz.compare(a, np.array([1.0, 2.0, 3.0], np.float32))
    assert "values" in fuzz.compare(a, np.array([1.0, np.nan, 3.01], np.float32))
    assert fuzz.compare(a, np.array([1.0, np.nan, 3.0001], np.float32)) is None  # float32 tolerance
    assert "values" in fuzz.compare(np.array([1, 2], np.int8), np.array([1, 3], np.int8))
    c = np.array([1 + 1j, np.nan], np.complex64)
    assert "values" in fuzz.compare(c, np.array([1 - 1j, np.nan], np.complex64))


def test_values_include_edge_cases():
    rng = np.random.default_rng(0)
    v = fuzz.values_for(rng, (400,), np.dtype(np.float32), subnormals=True)
    assert np.isnan(v).any() and np.isposinf(v).any() and np.isneginf(v).any()
    assert (np.signbit(v) & (v == 0)).any()
    tiny = np.finfo(np.float32).tiny
    assert ((v != 0) & (np.abs(v) < tiny)).any()
    i = fuzz.values_for(rng, (400,), np.dtype(np.int8))
    assert i.min() == -128 and i.max() == 127
    assert fuzz.values_for(rng, (0, 3), np.dtype(np.complex64)).shape == (0, 3)


def _program(steps, shapes=((3,),), dtype="float32"):
    rng = np.random.default_rng(1)
    dtypes = [np.dtype(dtype)] * len(shapes)
    values = [fuzz.values_for(rng, s, d, special=False) for s, d in zip(shapes, dtypes)]
    p = fuzz.Program(list(shapes), dtypes, [(False,) * len(s) for s in shapes], values, steps)
    p.outputs = [len(shapes) + len(steps) - 1]
    return p


def test_a_wrong_op_is_caught_and_shrunk_to_it(monkeypatch):
    # negative made wrong: a three-op program shrinks to the one negative
    program = _program([fuzz.Step("exp", [0], {}), fuzz.Step("negative", [1], {}),
                        fuzz.Step("add", [2, 0], {})])
    assert fuzz.check(program) is None
    monkeypatch.setattr(hg, "negative", hg.positive)
    failure = fuzz.check(program)
    assert failure is not None and failure.where == "evaluate"
    shrunk = fuzz.shrink(failure).shrunk
    assert [s.name for s in shrunk.steps] == ["negative"]
    # its input is NumPy's value of exp(x)
    np.testing.assert_array_equal(shrunk.values[0], np.exp(program.values[0]))


def test_a_crash_is_a_failure_unless_numpy_raises_alike(monkeypatch):
    program = _program([fuzz.Step("sin", [0], {})])

    def broken(x):
        raise RuntimeError("broken builder")

    monkeypatch.setattr(hg, "sin", broken)
    failure = fuzz.check(program)
    assert failure.where == "build" and "broken builder" in failure.message
    # NumPy refuses matmul of mismatched shapes; hlograph's refusal is the same kind
    mismatch = _program([fuzz.Step("matmul", [0, 1], {})], shapes=((2, 3), (2, 3)))
    assert fuzz.check(mismatch) is None


@pytest.mark.parametrize("seed", [0, 1])
def test_generated_programs_run_in_numpy(seed):
    rng = np.random.default_rng(seed)
    for _ in range(20):
        program = fuzz.generate(rng, n_steps=3)
        pool = fuzz._numpy_run(program)
        assert all(0 <= o < len(pool) for o in program.outputs)


def test_einsum_reference_is_the_sum_of_products():
    # NumPy factors the private sum of b out of the products: inf * (1 + 0) = inf;
    # the definition sums inf * 1 + inf * 0 = nan, as hlograph does
    a, b = np.array([np.inf]), np.array([1.0, 0.0])
    assert np.isnan(fuzz.einsum_products("i,j->", a, b))
    x = np.arange(6.0).reshape(2, 3)
    y = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(fuzz.einsum_products("ij,jk->ki", x, y), np.einsum("ij,jk->ki", x, y))


def test_einsum_reference_starts_from_the_first_operand():
    # (inf + 2j) * (2 + 0j) is inf + nan j; starting from 1 would make it nan + nan j
    a, b = np.array([complex(np.inf, 2)]), np.array([2 + 0j])
    with np.errstate(invalid="ignore"):
        got = fuzz.einsum_products("i,i->i", a, b)
        assert got[0].real == np.inf and np.isnan(got[0].imag)
        assert got[0].real == (a * b)[0].real


def test_complex_matmul_operands_are_drawn_finite():
    # NumPy's own complex matmul paths disagree on non-finite parts (README)
    rng = np.random.default_rng(3)
    specs = tuple(s for s in fuzz.SPECS if s.name in ("matmul", "einsum"))
    seen = 0
    for _ in range(30):
        program = fuzz.generate(rng, n_steps=1, dtypes=[np.dtype("complex128")], specs=specs)
        for v in program.values:
            seen += 1
            assert np.isfinite(v).all()
    assert seen


def test_pinv_of_empty_integer_matrices_of_unknown_dims_is_documented():
    # NumPy keeps the dtype of empty matrices; with their dims unknown the graph's
    # dtype is float64 (README, "NumPy semantics: the documented differences")
    v = np.zeros((3, 0), np.int8)
    step = fuzz.Step("linalg.pinv", [0], {})
    unknown = fuzz.Program([v.shape], [v.dtype], [(True, True)], [v], [step], outputs=[1])
    assert fuzz.check(unknown) is None
    known = fuzz.Program([v.shape], [v.dtype], [(True, False)], [v], [step], outputs=[1])
    assert fuzz.check(known) is None
    stack = np.zeros((0, 2, 3), np.int8)  # an empty stack: float64 in both
    assert fuzz.check(fuzz.Program([stack.shape], [stack.dtype], [(True, False, False)], [stack], [step],
                                   outputs=[1])) is None


def test_astype_runs_and_undefined_casts_are_recognized():
    # numpy.astype takes its dtype positionally; casts C leaves undefined (NaN, inf,
    # floats past the integer type) saturate when compiled (README, "Undefined inputs")
    v = np.array([-1.48, 300.0, np.nan, 2.5], np.float32)
    step = fuzz.Step("astype", [0], {"dtype": np.dtype("uint8")})
    program = fuzz.Program([v.shape], [v.dtype], [(False,)], [v], [step], outputs=[1])
    assert fuzz._numpy_run(program)[1].dtype == np.uint8
    assert fuzz.check(program) is None
    assert fuzz._undefined_cast(v, np.dtype("uint8"))
    assert not fuzz._undefined_cast(np.array([0.0, 2.5, 255.9], np.float32), np.dtype("uint8"))
    assert not fuzz._undefined_cast(v, np.dtype("float16"))
    ok = np.array([0.0, 2.5, -1.5], np.float32)
    program = fuzz.Program([ok.shape], [ok.dtype], [(False,)], [ok],
                           [fuzz.Step("cumsum", [0], {"dtype": np.dtype("int8")})], outputs=[1])
    assert fuzz.check(program) is None


def test_python_scalars_may_come_first():
    rng = np.random.default_rng(0)
    specs = tuple(s for s in fuzz.SPECS if s.name in ("add", "subtract", "power"))
    first = 0
    for _ in range(60):
        program = fuzz.generate(rng, n_steps=1, specs=specs)
        first += any(isinstance(st.args[0], tuple) for st in program.steps)
    assert first


def test_ill_conditioned_matrices_are_not_drawn_for_inverses():
    # inner of a 4 x 2 and a 3 x 2 matrix is 4 x 3 of rank 2: its pinv inverts rounding noise
    rng = np.random.default_rng(0)
    a = rng.normal(size=(4, 2)).astype(np.complex64)
    b = rng.normal(size=(3, 2)).astype(np.complex64)
    assert not fuzz._well_conditioned(np.inner(a, b))
    assert fuzz._well_conditioned(np.eye(3, dtype=np.float32))
    assert fuzz._well_conditioned(np.zeros((2, 2)))  # exactly singular: NumPy's result is exact


def test_subnormal_flush_is_recognized_in_compiled_runs_only():
    # XLA:CPU flushes subnormals (README, the documented differences): a compiled result
    # that equals NumPy's run with subnormals flushed is no failure; hg.evaluate keeps them
    tiny = np.finfo(np.float32).smallest_subnormal
    v = np.array([tiny, -tiny, 1.5], np.float32)
    program = fuzz.Program([v.shape], [v.dtype], [(False,)], [v], [fuzz.Step("frexp", [0], {})],
                           outputs=[1, 2])
    assert fuzz.check(program, evaluate=False) is None
    flushed = fuzz.flush_subnormals(v)
    assert flushed[0] == 0 and np.signbit(flushed[1]) and flushed[2] == 1.5
    # ldexp of normal values to subnormal results
    w = np.array([3.0, 1.0], np.float32)
    e = np.array([-128, -3], np.int8)
    program = fuzz.Program([w.shape, e.shape], [w.dtype, e.dtype], [(False,), (False,)], [w, e],
                           [fuzz.Step("ldexp", [0, 1], {})], outputs=[2])
    assert fuzz.check(program) is None


def test_a_wrong_value_with_subnormals_about_is_still_caught(monkeypatch):
    tiny = np.finfo(np.float32).smallest_subnormal
    v = np.array([tiny, 2.0], np.float32)
    program = fuzz.Program([v.shape], [v.dtype], [(False,)], [v], [fuzz.Step("negative", [0], {})],
                           outputs=[1])
    monkeypatch.setattr(hg, "negative", hg.positive)
    assert fuzz.check(program, evaluate=False) is not None
