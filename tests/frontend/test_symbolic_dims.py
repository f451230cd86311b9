"""SymDim: integer expressions over dimension variables (shape-polymorphic lowering)."""

import pytest

from hlograph.frontend.symbolic import SymbolicDimError, dim_max, dim_min, dim_var, slice_length
from hlograph.frontend.types import TensorType

b, n = dim_var("b"), dim_var("n")


def test_arithmetic_normal_form():
    assert 4 * b == b * 4 and b + b == 2 * b
    assert (b * 4) // 4 == b and (4 * b * n) // (2 * n) == 2 * b
    assert b + 1 - 1 == b and b - b == 0 and isinstance(b - b, int)
    assert hash(2 * b + n) == hash(n + b * 2)
    assert b != n and b != 1 and b * n != b


@pytest.mark.parametrize("expr, env, value", [
    (lambda: 3 * b + n - 2, {"b": 4, "n": 5}, 15),
    (lambda: (4 * b) // 3, {"b": 5}, 6),
    (lambda: (b + 1) % 3, {"b": 7}, 2),
    (lambda: dim_max(b, n) * 2, {"b": 2, "n": 9}, 18),
    (lambda: dim_min(b, 4), {"b": 9}, 4),
    (lambda: slice_length((1, None, 2), b), {"b": 6}, 3),
    (lambda: slice_length((None, -2, None), b), {"b": 6}, 4),
    (lambda: slice_length((None, None, -1), b), {"b": 6}, 6),
    (lambda: slice_length((None, 3, None), b), {"b": 2}, 2),
])
def test_evaluate_matches_python(expr, env, value):
    assert expr().evaluate(env) == value


def test_comparisons_decided_by_sizes_at_least_one():
    assert b >= 1 and b > 0 and b + 3 > 2 and not (b < 1) and -b <= 0 and bool(b)
    assert dim_max(b, 1) == b and dim_max(3, 5) == 5
    for undecidable in (lambda: b > 4, lambda: b == 2 or b < n, lambda: b <= 1):
        with pytest.raises(SymbolicDimError, match="depends on the value of a symbolic dimension"):
            undecidable()


def test_concrete_value_needed_raises():
    with pytest.raises(SymbolicDimError, match="b is symbolic"):
        range(b)
    with pytest.raises(SymbolicDimError):
        int(b * 2)
    with pytest.raises(ValueError, match="identifier"):
        dim_var("2b")


def test_tensor_types_with_symbolic_dims():
    t = TensorType("float32", (b, 4))
    assert t.is_symbolic and t.is_static and t.size == 4 * b and str(t) == "float32[b,4]"
    assert not TensorType("float32", (None, 4)).is_symbolic
