"""Checking gradient rules: hlograph's reverse and forward modes against central
finite differences of the graph's own NumPy reference and against jax's ``vjp``
and ``jvp`` of the same computation written with jax.numpy; the gradient graph
runs both through ``hg.evaluate`` (each Op's ``perform``) and compiled."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import numpy as np

import hlograph as hg
from hlograph.frontend.types import is_complex, is_inexact

__all__ = ["check_grads", "random_like", "GRAD_TOL"]

#: (rtol, atol) per dtype for gradients (float64: rules vs jax and evaluate vs compiled)
GRAD_TOL = {
    np.dtype("float64"): (1e-9, 1e-11),
    np.dtype("complex128"): (1e-9, 1e-11),
    np.dtype("float32"): (2e-4, 2e-5),
    np.dtype("complex64"): (2e-4, 2e-5),
}


def random_like(rng: np.random.Generator, shape: Sequence[int], dtype: Any) -> np.ndarray:
    """Normal values of ``shape`` and ``dtype`` (complex: both parts)."""
    dt = np.dtype(dtype)
    v = rng.normal(size=tuple(shape))
    if is_complex(dt):
        v = v + 1j * rng.normal(size=tuple(shape))
    return np.asarray(v, dtype=dt)


def _allclose(actual: np.ndarray, expected: np.ndarray, tol: tuple[float, float], what: str) -> None:
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    np.testing.assert_allclose(actual, expected, rtol=tol[0], atol=tol[1], equal_nan=True, err_msg=what)


def check_grads(fn: Callable[..., hg.Variable], jax_fn: Callable[..., Any] | None,
                args: Sequence[Any], *, argnums: Sequence[int] | None = None,
                rng: np.random.Generator | None = None, fd: bool = True, fd_eps: float = 1e-6,
                fd_tol: float = 1e-5, tol: tuple[float, float] | None = None,
                compiled: bool = True, names: Sequence[str] | None = None,
                tangent_map: Callable[[np.ndarray], np.ndarray] | None = None) -> dict:
    """Checks the derivatives of ``fn`` (Variables -> one Variable) at ``args``.

    Builds the graph from inputs of the args' dtypes and shapes, then its vector-Jacobian
    product with a random cotangent (``hg.grad`` of ``sum(y * ct)`` for real ``y``,
    ``hg.vjp`` for complex) with respect to the float/complex args (or ``argnums``), and
    its Jacobian-vector product along random tangents (``hg.jvp``). The gradient graph
    runs through ``hg.evaluate`` and, with ``compiled``, ``hg.compile``; the results must
    agree with each other, with jax's ``vjp``/``jvp`` of ``jax_fn`` (float64 mode; skipped
    when ``jax_fn`` is None) and with central finite differences of the forward graph's
    reference along the tangents. ``tangent_map`` maps each random tangent first (e.g.
    onto Hermitian matrices, where an op is defined on them). Returns the arrays
    computed, for further checks."""
    rng = rng if rng is not None else np.random.default_rng(0)
    args = [np.asarray(a) for a in args]
    if argnums is None:
        argnums = [i for i, a in enumerate(args) if is_inexact(a.dtype)]
    names = names or [f"x{i}" for i in range(len(args))]
    xs = [hg.tensor(names[i], a.shape, a.dtype) for i, a in enumerate(args)]
    y = fn(*xs)
    wrt = [xs[i] for i in argnums]
    ct = random_like(rng, y.shape, y.dtype)
    ts = [random_like(rng, args[i].shape, args[i].dtype) for i in argnums]
    if tangent_map is not None:
        ts = [np.asarray(tangent_map(t), dtype=t.dtype) for t in ts]
    if is_complex(y.dtype):
        grads = hg.vjp(y, wrt, ct)
    else:
        grads = hg.grad(hg.sum(y * ct), wrt, disconnected="zero")
    tangent = hg.jvp(y, wrt, ts)
    graph = hg.Graph(xs, [y, *grads, tangent])
    out = hg.evaluate(graph, *args)
    y_val, g_val, t_val = out[0], list(out[1:-1]), out[-1]
    tol = tol or GRAD_TOL.get(np.dtype(y.dtype), (1e-4, 1e-5))
    for i, g in zip(argnums, g_val):
        assert g.dtype == args[i].dtype and g.shape == args[i].shape, \
            f"gradient of {names[i]}: {g.dtype}{g.shape} for an input {args[i].dtype}{args[i].shape}"
    assert t_val.dtype == y.dtype and t_val.shape == y_val.shape
    if compiled:
        comp = hg.compile(graph)(*args)
        for k, (a, e) in enumerate(zip(comp, out)):
            _allclose(a, e, tol, f"compiled output {k} vs evaluate")
    if jax_fn is not None:
        with jax.enable_x64(True):
            def partial(*w):
                full = list(args)
                for i, v in zip(argnums, w):
                    full[i] = v
                return jax_fn(*full)

            @jax.jit  # one XLA compile, not one per primitive
            def reference(w, cotangent, tangents):
                y_r, pull = jax.vjp(partial, *w)
                _, t_r = jax.jvp(partial, tuple(w), tuple(tangents))
                return y_r, pull(cotangent.astype(y_r.dtype)), t_r

            y_ref, g_ref, t_ref = reference([args[i] for i in argnums], ct, ts)
        _allclose(y_val, np.asarray(y_ref), tol, "forward value vs jax")
        for i, g, r in zip(argnums, g_val, g_ref):
            _allclose(g, np.asarray(r), tol, f"gradient of {names[i]} vs jax.vjp")
        _allclose(t_val, np.asarray(t_ref), tol, "tangent vs jax.jvp")
    if fd:
        forward = hg.Graph(xs, y)

        def at(sign: float) -> np.ndarray:
            moved = list(args)
            for i, t in zip(argnums, ts):
                moved[i] = (args[i] + sign * fd_eps * t).astype(args[i].dtype)
            return np.asarray(hg.evaluate(forward, *moved))

        fd_t = (at(1.0) - at(-1.0)) / (2 * fd_eps)
        scale = max(1.0, float(np.max(np.abs(fd_t), initial=0.0)))
        _allclose(t_val, fd_t, (fd_tol, fd_tol * scale), "tangent vs finite differences")
        # <ct, J t> == <J^T ct, t> under the pairing Re(sum(a * b))
        lhs = np.real(np.sum(ct * fd_t))
        rhs = sum(np.real(np.sum(g * t)) for g, t in zip(g_val, ts))
        assert abs(lhs - rhs) <= fd_tol * max(1.0, abs(lhs)) * 10, \
            f"<ct, J t> = {lhs} by finite differences, <J^T ct, t> = {rhs}"
    return {"y": y_val, "grads": g_val, "tangent": t_val, "graph": graph}
