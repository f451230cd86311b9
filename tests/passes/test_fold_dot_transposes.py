"""hlograph-fold-dot-transposes: random dot_generals with transposed operands
compute the same bits after the transposes become dimension numbers."""

from __future__ import annotations

import numpy as np
import pytest

from hlograph.testing.validation import validate


def tensor(shape, elem):
    return "tensor<" + "".join(f"{d}x" for d in shape) + elem + ">"


def random_dot(rng: np.random.Generator, elem: str) -> tuple[str, bool]:
    """A dot_general of transposed operands; also whether every transpose can fold."""
    nb, nc = int(rng.integers(0, 2)), int(rng.integers(1, 3))
    nfl, nfr = int(rng.integers(0, 3)), int(rng.integers(0, 3))
    batch = [int(d) for d in rng.integers(2, 4, size=nb)]
    contract = [int(d) for d in rng.integers(2, 5, size=nc)]
    free_l = [int(d) for d in rng.integers(2, 4, size=nfl)]
    free_r = [int(d) for d in rng.integers(2, 4, size=nfr)]

    def operand(free):
        # logical order: batch, contracting, free, then a random permutation
        dims = batch + contract + free
        order = [int(p) for p in rng.permutation(len(dims))]
        shape = [dims[p] for p in order]
        where = {logical: pos for pos, logical in enumerate(order)}
        b = [where[i] for i in range(nb)]
        c = [where[nb + i] for i in range(nc)]
        f = [where[nb + nc + i] for i in range(len(free))]
        return shape, b, c, f

    ls, lb, lc, lf = operand(free_l)
    rs, rb, rc, rf = operand(free_r)
    # transpose each operand from a random source layout
    lines, args = [], []
    perms_ok = True
    names = []
    for k, (shape, free) in enumerate(((ls, lf), (rs, rf))):
        perm = [int(p) for p in rng.permutation(len(shape))]
        inv = [perm.index(i) for i in range(len(perm))]
        src_shape = [shape[p] for p in inv]  # transpose(src, perm) has `shape`
        args.append(tensor(src_shape, elem))
        lines.append(f"  %t{k} = stablehlo.transpose %arg{k}, dims = {perm} : ({tensor(src_shape, elem)}) -> {tensor(shape, elem)}")
        names.append(f"%t{k}")
        src_free = [perm[d] for d in sorted(free)]
        perms_ok &= src_free == sorted(src_free)
    out = batch + [ls[d] for d in sorted(lf)] + [rs[d] for d in sorted(rf)]
    dims = f"contracting_dims = {lc} x {rc}"
    if nb:
        dims = f"batching_dims = {lb} x {rb}, " + dims
    lines.append(f"  %0 = stablehlo.dot_general {names[0]}, {names[1]}, {dims} : "
                 f"({tensor(ls, elem)}, {tensor(rs, elem)}) -> {tensor(out, elem)}")
    sig = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(args))
    text = f"func.func public @main({sig}) -> {tensor(out, elem)} {{\n" + "\n".join(lines) + \
        f"\n  return %0 : {tensor(out, elem)}\n}}"
    return text, perms_ok


@pytest.mark.parametrize("elem", ["f32", "i32", "f64"])
@pytest.mark.parametrize("seed", range(6))
def test_fold_dot_transposes_is_exact(seed, elem):
    rng = np.random.default_rng(seed)
    text, foldable = random_dot(rng, elem)
    result = validate(text, "hlograph-fold-dot-transposes,canonicalize", trials=2,
                      special=elem != "f32" or seed % 2 == 0)
    if foldable:
        assert "stablehlo.transpose" not in result.optimized
    assert result.ops_after <= result.ops_before


def test_fold_dot_transposes_folds_most_random_cases():
    folded = 0
    for seed in range(40):
        text, foldable = random_dot(np.random.default_rng(100 + seed), "f32")
        folded += foldable
    assert folded >= 10  # the generator exercises the fold, not only the no-match path
