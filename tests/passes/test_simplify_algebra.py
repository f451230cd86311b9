"""hlograph-simplify-algebra never changes a result: translation validation of
every identity on inputs with NaN, infinities and signed zeros, bit for bit
(PJRT and the reference interpreter); the fast-math identities do change
results, and validation catches them."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from hlograph.testing.validation import ValidationError, validate

MLIR = {"bool": "i1", "int8": "i8", "uint8": "ui8", "int16": "i16", "int32": "i32", "uint32": "ui32",
        "int64": "i64", "uint64": "ui64", "float16": "f16", "bfloat16": "bf16", "float32": "f32",
        "float64": "f64", "complex64": "complex<f32>", "complex128": "complex<f64>"}
KIND = {"bool": "b", "int8": "i", "int16": "i", "int32": "i", "int64": "i", "uint8": "u", "uint32": "u",
        "uint64": "u", "float16": "f", "bfloat16": "f", "float32": "f", "float64": "f",
        "complex64": "c", "complex128": "c"}


class ModuleText:
    """Builds ``@main`` one line at a time; every expression becomes a result."""

    def __init__(self):
        self.args: list[str] = []
        self.lines: list[str] = []
        self.results: list[tuple[str, str]] = []
        self.n = 0

    def arg(self, t: str) -> str:
        self.args.append(t)
        return f"%arg{len(self.args) - 1}"

    def op(self, text: str) -> str:
        self.n += 1
        name = f"%v{self.n}"
        self.lines.append(f"  {name} = {text}")
        return name

    def result(self, value: str, t: str) -> None:
        self.results.append((value, t))

    def text(self) -> str:
        args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(self.args))
        outs = ", ".join(t for _, t in self.results)
        body = "\n".join(self.lines)
        ret = ", ".join(v for v, _ in self.results)
        return f"func.func public @main({args}) -> ({outs}) {{\n{body}\n  return {ret} : {outs}\n}}"


def splat(m: ModuleText, value: str, t: str) -> str:
    return m.op(f"stablehlo.constant dense<{value}> : {t}")


def identities(dtype: str) -> str:
    """A module applying every identity that holds for ``dtype``."""
    k = KIND[dtype]
    t = f"tensor<16x{MLIR[dtype]}>"
    m = ModuleText()
    x, y = m.arg(t), m.arg(t)

    def out(v):
        m.result(v, t)

    def bin_(op, a, b):
        return m.op(f"stablehlo.{op} {a}, {b} : {t}")

    def un(op, a):
        return m.op(f"stablehlo.{op} {a} : {t}")

    zero = {"b": "false", "i": "0", "u": "0", "f": "0.0", "c": "(0.0, 0.0)"}[k]
    neg_zero = {"b": "false", "i": "0", "u": "0", "f": "-0.0", "c": "(-0.0, -0.0)"}[k]
    one = {"b": "true", "i": "1", "u": "1", "f": "1.0"}.get(k)
    if k != "b":
        out(bin_("add", x, splat(m, neg_zero, t)))
        out(bin_("add", splat(m, neg_zero, t), y))
        out(bin_("subtract", x, splat(m, zero, t)))
        out(bin_("subtract", splat(m, neg_zero, t), y))
        out(un("negate", un("negate", x)))
    else:
        out(bin_("add", x, splat(m, "false", t)))
    if one is not None:
        out(bin_("multiply", x, splat(m, one, t)))
        out(bin_("multiply", splat(m, one, t), y))
    if k in "if":
        out(bin_("multiply", x, splat(m, "-1" if k == "i" else "-1.0", t)))
    if k in "iub":
        out(bin_("multiply", x, splat(m, zero, t)))
    if k in "iuf":
        out(bin_("divide", x, splat(m, one, t)))
    if k == "f":
        out(bin_("divide", x, splat(m, "-1.0", t)))
    if k in "iu":
        out(bin_("subtract", x, x))
    if k in "iub":
        out(un("not", un("not", x)))
        out(bin_("and", x, x))
        out(bin_("or", y, y))
        out(bin_("xor", x, x))
        out(bin_("and", x, splat(m, zero, t)))
        out(bin_("or", x, splat(m, zero, t)))
        out(bin_("xor", y, splat(m, zero, t)))
        ones = {"b": "true", "i": "-1", "u": str(2 ** (8 * int(MLIR[dtype][2:] and int(MLIR[dtype][2:]) // 8)) - 1) if k == "u" else "-1"}[k]
        out(bin_("and", x, splat(m, ones, t)))
        out(bin_("or", x, splat(m, ones, t)))
    if k in "iuf":
        out(bin_("maximum", x, x))
        out(bin_("minimum", y, y))
        out(un("abs", un("negate", x)) if k != "u" else x)
        if k != "u":
            out(un("abs", un("abs", y)))
    if k in "iub":
        bt = "tensor<16xi1>"
        kind = "SIGNED" if k == "i" else "UNSIGNED"
        for d in ("EQ", "NE", "LT", "LE", "GT", "GE"):
            m.result(m.op(f"stablehlo.compare {d}, {x}, {x}, {kind} : ({t}, {t}) -> {bt}"), bt)
    p = m.arg("tensor<16xi1>")
    for pred in ("true", "false"):
        c = splat(m, pred, "tensor<i1>")
        out(m.op(f"stablehlo.select {c}, {x}, {y} : tensor<i1>, {t}"))
    out(m.op(f"stablehlo.select {p}, {y}, {y} : tensor<16xi1>, {t}"))
    out(m.op(f"stablehlo.concatenate {x}, dim = 0 : ({t}) -> {t}"))
    out(m.op(f"stablehlo.convert {x} : {t}"))
    if k == "c":
        r = m.op(f"stablehlo.real {x} : ({t}) -> tensor<16x{MLIR[dtype][8:-1]}>")
        i = m.op(f"stablehlo.imag {x} : ({t}) -> tensor<16x{MLIR[dtype][8:-1]}>")
        c = m.op(f"stablehlo.complex {r}, {i} : {t}")
        rt = f"tensor<16x{MLIR[dtype][8:-1]}>"
        m.result(m.op(f"stablehlo.real {c} : ({t}) -> {rt}"), rt)
        m.result(m.op(f"stablehlo.imag {c} : ({t}) -> {rt}"), rt)
    return m.text()


DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "uint8", "int32", "uint64", "bool", "complex64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_algebra_identities_are_exact(dtype):
    text = identities(dtype)
    result = validate(text, "hlograph-simplify-algebra", trials=3, interpreter=True)
    assert result.runs >= 3
    remaining = [line for line in result.optimized.splitlines() if "=" in line and "constant" not in line]
    # every identity fired: only the ops the rewrites produce remain
    produced = ("stablehlo.negate %arg", "stablehlo.abs %arg", "stablehlo.real %arg", "stablehlo.imag %arg")
    assert all(any(p in line for p in produced) for line in remaining), \
        "\n".join(remaining)
    assert result.ops_after < result.ops_before


CONVERT_DTYPES = ["bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "float16", "bfloat16",
                  "float32", "float64", "complex64"]


def convert_chains(triples) -> str:
    m = ModuleText()
    args: dict[str, str] = {}
    for a, b, c in triples:
        if KIND[a] == "c" and KIND[b] != "c" or KIND[b] == "c" and KIND[c] != "c":
            continue  # complex -> real conversions are not defined
        if a not in args:
            args[a] = m.arg(f"tensor<16x{MLIR[a]}>")
        ta, tb, tc = (f"tensor<16x{MLIR[d]}>" for d in (a, b, c))
        v = m.op(f"stablehlo.convert {args[a]} : ({ta}) -> {tb}")
        m.result(m.op(f"stablehlo.convert {v} : ({tb}) -> {tc}"), tc)
    return m.text()


@pytest.mark.parametrize("src", CONVERT_DTYPES[:-1])
def test_convert_chains_are_exact_in_the_interpreter(src):
    """convert(convert(x, A->B), B->C) for every B and C: folded where the rule
    applies (B holds every A value), and always the same bits."""
    text = convert_chains((src, b, c) for b, c in itertools.product(CONVERT_DTYPES, repeat=2))
    result = validate(text, "hlograph-simplify-algebra", trials=3, pjrt=False)
    assert result.runs == 3
    assert result.ops_after < result.ops_before


def test_convert_chains_are_exact_in_xla(rng):
    triples = list(itertools.product(CONVERT_DTYPES, repeat=3))
    picked = [triples[i] for i in rng.choice(len(triples), size=80, replace=False)]
    result = validate(convert_chains(picked), "hlograph-simplify-algebra", trials=2, interpreter=False)
    assert result.ops_after < result.ops_before


def test_shape_chains_are_exact(rng):
    """Random chains of reshape/transpose/broadcast_in_dim/slice/reverse/pad."""
    m = ModuleText()
    x = m.arg("tensor<2x3x4xf32>")
    for _ in range(12):
        shape, v = [2, 3, 4], x
        for _step in range(4):
            t = "tensor<" + "x".join(map(str, shape)) + "xf32>"
            kind = rng.choice(["reshape", "transpose", "broadcast", "slice", "reverse", "pad"])
            if kind == "reshape":
                new = list(rng.permutation(shape)) if rng.random() < 0.5 else [int(np.prod(shape))]
                nt = "tensor<" + "x".join(map(str, new)) + "xf32>"
                v = m.op(f"stablehlo.reshape {v} : ({t}) -> {nt}")
            elif kind == "transpose":
                perm = [int(p) for p in rng.permutation(len(shape))]
                new = [shape[p] for p in perm]
                nt = "tensor<" + "x".join(map(str, new)) + "xf32>"
                v = m.op(f"stablehlo.transpose {v}, dims = {perm} : ({t}) -> {nt}")
            elif kind == "broadcast":
                if len(shape) > 3:
                    continue
                pos = int(rng.integers(0, len(shape) + 1))
                new = shape[:pos] + [int(rng.integers(1, 3))] + shape[pos:]
                dims = [d if d < pos else d + 1 for d in range(len(shape))]
                nt = "tensor<" + "x".join(map(str, new)) + "xf32>"
                v = m.op(f"stablehlo.broadcast_in_dim {v}, dims = {dims} : ({t}) -> {nt}")
            elif kind == "slice":
                starts = [int(rng.integers(0, n)) if n > 1 else 0 for n in shape]
                strides = [int(rng.integers(1, 3)) for _ in shape]
                limits = [n for n in shape]
                new = [-(-(l - s) // st) for s, l, st in zip(starts, limits, strides)]
                nt = "tensor<" + "x".join(map(str, new)) + "xf32>"
                spec = ", ".join(f"{s}:{l}:{st}" for s, l, st in zip(starts, limits, strides))
                v = m.op(f"stablehlo.slice {v} [{spec}] : ({t}) -> {nt}")
            elif kind == "reverse":
                dims = sorted(int(d) for d in rng.choice(len(shape), size=int(rng.integers(0, len(shape) + 1)), replace=False))
                new = shape
                v = m.op(f"stablehlo.reverse {v}, dims = {dims} : {t}")
                v = m.op(f"stablehlo.reverse {v}, dims = {dims} : {t}") if rng.random() < 0.5 else v
            else:
                z = m.op("stablehlo.constant dense<-0.0> : tensor<f32>")
                zeros = [0] * len(shape)
                new = shape
                v = m.op(f"stablehlo.pad {v}, {z}, low = {zeros}, high = {zeros}, interior = {zeros} : ({t}, tensor<f32>) -> {t}")
            shape = new
        m.result(v, "tensor<" + "x".join(map(str, shape)) + "xf32>")
    result = validate(m.text(), "hlograph-simplify-algebra", trials=2, interpreter=True)
    assert result.ops_after < result.ops_before


FAST_MATH_CASES = {
    "add_positive_zero": "%0 = stablehlo.constant dense<0.0> : tensor<16xf32>\n  %1 = stablehlo.add %arg0, %0 : tensor<16xf32>",
    "multiply_zero": "%0 = stablehlo.constant dense<0.0> : tensor<16xf32>\n  %1 = stablehlo.multiply %arg0, %0 : tensor<16xf32>",
    "subtract_self": "%1 = stablehlo.subtract %arg0, %arg0 : tensor<16xf32>",
    "reassociate": ("%c = stablehlo.constant dense<0.1> : tensor<16xf32>\n  %d = stablehlo.constant dense<0.2> : tensor<16xf32>\n"
                    "  %0 = stablehlo.add %arg0, %c : tensor<16xf32>\n  %1 = stablehlo.add %0, %d : tensor<16xf32>"),
}


@pytest.mark.parametrize("case", list(FAST_MATH_CASES))
def test_fast_math_identities_change_results(case):
    text = f"""func.func public @main(%arg0: tensor<16xf32>) -> tensor<16xf32> {{
  {FAST_MATH_CASES[case]}
  return %1 : tensor<16xf32>
}}"""
    values = np.random.default_rng(7).standard_normal(16).astype(np.float32) * 10
    values[:3] = [-0.0, np.inf, np.nan]
    exact = validate(text, "hlograph-simplify-algebra", inputs=[[values]], interpreter=True)
    assert exact.ops_after == exact.ops_before  # none of these is exact
    # (the reference interpreter, unlike XLA, does not simplify x + 0.0 itself)
    with pytest.raises(ValidationError, match="differs"):
        validate(text, "hlograph-simplify-algebra{fast-math=true}", inputs=[[values]], interpreter=True)
