"""Plain NumPy programs, written as NumPy users write them, run unchanged through
``hg.trace_numpy`` and ``hg.compile`` and compared with NumPy on the same inputs
(dtype, shape, values within the dtype's tolerance, NaN positions): softmax,
distances, k-means, least squares, PCA, filters, finance, statistics, numerics,
array manipulation, sorting, dtype promotion, ufunc and ndarray methods."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import hlograph as hg
from hlograph.tests.helpers import check_graph_against_numpy

#: name -> (program, inputs(rng) -> list of arrays, rtol, atol)
PROGRAMS = {}


def program(inputs, rtol=None, atol=None):
    def register(f):
        PROGRAMS[f.__name__] = (f, inputs, rtol, atol)
        return f
    return register


def normal(*shape, dtype=np.float64):
    return lambda rng: rng.normal(size=shape).astype(dtype)


def inputs(*makers):
    return lambda rng: [m(rng) for m in makers]


@program(inputs(normal(4, 5, dtype=np.float32)))
def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@program(inputs(normal(3, 6)))
def log_softmax_and_logsumexp(x):
    m = np.max(x, axis=1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))
    c = x.max()
    return x - lse, c + np.log(np.exp(x - c).sum())


@program(inputs(normal(5, 3), normal(4, 3)), atol=1e-12)
def pairwise_distances(a, b):
    d = np.sqrt(np.sum((a[:, np.newaxis, :] - b[np.newaxis, :, :]) ** 2, axis=-1))
    aa, bb = np.einsum("ij,ij->i", a, a), np.einsum("ij,ij->i", b, b)
    d2 = aa[:, None] + bb[None, :] - 2 * np.einsum("ik,jk->ij", a, b)
    return d, np.sqrt(np.maximum(d2, 0.0))


@program(inputs(normal(20, 2), normal(3, 2)))
def kmeans_step(x, c):
    labels = np.argmin(((x[:, None, :] - c[None]) ** 2).sum(-1), axis=1)
    onehot = (labels[:, None] == np.arange(c.shape[0])[None, :]).astype(x.dtype)
    counts = onehot.sum(axis=0)
    centroids = np.where(counts[:, None] > 0, onehot.T @ x / np.maximum(counts, 1)[:, None], c)
    return labels, centroids, np.bincount(labels, weights=x[:, 0], minlength=3)


@program(inputs(normal(30, 3), normal(30)), rtol=1e-9, atol=1e-10)
def linear_regression(X, y):
    A = np.hstack([X, np.ones((X.shape[0], 1))])
    coef, residuals, rank, sv = np.linalg.lstsq(A, y, rcond=None)
    ridge = np.linalg.solve(X.T @ X + 1e-3 * np.eye(3), X.T @ y)
    return coef, residuals, ridge, np.polyfit(X[:, 0], y, 2)


@program(inputs(normal(20, 4)), rtol=1e-9, atol=1e-10)
def pca(X):
    Xc = X - X.mean(axis=0)
    U, S, Vt = np.linalg.svd(Xc, full_matrices=False)
    w, v = np.linalg.eigh(np.cov(X, rowvar=False))
    return S ** 2 / (len(X) - 1), np.abs(Xc @ Vt[:2].T), w[np.argsort(w)[::-1]]


@program(inputs(normal(50)))
def moving_averages(x):
    w = 5
    c = np.cumsum(np.insert(x, 0, 0.0))
    windows = sliding_window_view(x, w)
    return np.convolve(x, np.ones(w) / w, mode="valid"), (c[w:] - c[:-w]) / w, windows.max(axis=-1)


@program(inputs(normal(6, 7, dtype=np.float32)))
def image_filters(img):
    p = np.pad(img, 1, mode="edge")
    blur = (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] + p[1:-1, 1:-1]) / 5
    gx = p[1:-1, 2:] - p[1:-1, :-2]
    gy = p[2:, 1:-1] - p[:-2, 1:-1]
    return np.clip(np.rot90(np.roll(blur, shift=1, axis=0)), -1, 1), np.hypot(gx, gy)


@program(lambda rng: [rng.normal(0.001, 0.02, 100)])
def drawdown_and_sharpe(r):
    wealth = np.cumprod(1 + r)
    peak = np.maximum.accumulate(wealth)
    return ((wealth - peak) / peak).min(), np.mean(r) / np.std(r, ddof=1) * np.sqrt(252)


@program(inputs(normal(9, 4), normal(60)))
def statistics(x, s):
    counts, edges = np.histogram(s, bins=10, range=(-3, 3))
    return (np.percentile(x, [25, 50, 75], axis=0), np.median(x, axis=1), np.std(x, axis=0, ddof=1),
            np.corrcoef(x.T), np.cov(x), counts, edges)


@program(lambda rng: [rng.normal(size=30), np.sort(rng.uniform(0, 10, 12)), rng.uniform(0, 10, 5)])
def numerics(y, xp, x):
    t = np.linspace(0, 1, 30)
    return np.trapezoid(y, t), np.gradient(y, t), np.diff(y, n=2), np.interp(x, xp, np.sin(xp))


@program(inputs(normal(4, 6)))
def manipulation(x):
    a, b = np.split(x, 2, axis=1)
    s = np.stack([a, b], axis=0)
    return (s.reshape(-1, 3), np.concatenate([a, b[::-1]], axis=0).transpose(), np.swapaxes(s, 0, 2),
            np.tile(a, (1, 2)), np.repeat(b, 2, axis=0), x[..., np.newaxis][:, None, ..., ::2])


@program(lambda rng: [rng.normal(size=(5, 4)), rng.integers(0, 5, 3)])
def sorting_and_fancy_indexing(x, idx):
    order = np.argsort(x, axis=0)
    top2 = np.argsort(-x, axis=1)[:, :2]
    return (np.sort(x, axis=1), np.take_along_axis(x, order, axis=0), np.take_along_axis(x, top2, axis=1),
            x[idx, 1:3], x[[0, 2], [1, 3]], x[x > 0])


@program(lambda rng: [rng.normal(size=8).astype(np.float32), rng.integers(0, 10, 8)])
def dtype_promotion(x, n):
    return (x * 2 + 1, n / 2, n.astype(np.float32) + x, n * 3, np.float32(0.5) * x, n.mean(),
            x.astype(np.float64).sum(), x * np.float64(2), (x > 0).sum(), n // 3, n % 4)


@program(inputs(normal(4, 3)))
def methods_and_operators(x):
    y = x.copy()
    y += 1
    y *= 2
    return (np.add.reduce(y, axis=0), np.multiply.outer(y[0], y[:, 1]), np.maximum.accumulate(y, axis=1),
            y.sum(axis=0), y.mean(), y.T, y.reshape(3, 4), y.clip(-1, 1), y.max(keepdims=True),
            y.argmax(axis=1), y.var(), y.std(ddof=1))


@program(inputs(normal(16), normal(5, 3)))
def norms_and_fft(s, x):
    spectrum = np.fft.rfft(s)
    return (np.abs(spectrum) ** 2, np.fft.rfftfreq(len(s), d=0.1), np.fft.irfft(spectrum, n=len(s)),
            np.linalg.norm(x), np.linalg.norm(x, axis=1), np.linalg.norm(x, ord=1, axis=0), np.linalg.norm(x, ord=2))


@program(lambda rng: [rng.normal(size=(8, 3)), rng.integers(0, 3, 8)])
def cross_entropy(logits, y):
    logits = logits - logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -logp[np.arange(len(y)), y].mean(), (logits.argmax(axis=1) == y).mean()


@program(inputs(normal(10)))
def nan_handling_and_piecewise(x):
    y = np.where(x > 0, np.log(np.abs(x)), np.nan)
    return (np.nanmean(y), np.isnan(y), np.nan_to_num(y), np.count_nonzero(x > 0),
            np.piecewise(x, [x < -1, x > 1], [lambda v: -v, lambda v: v ** 2, 0.0]),
            np.select([x < -1, x > 1], [-1.0, 1.0], default=0.0))


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_numpy_program(name, rng):
    f, make_inputs, rtol, atol = PROGRAMS[name]
    values = make_inputs(rng)
    with np.errstate(all="ignore"):
        expected = f(*[np.array(v, copy=True) for v in values])
    graph = hg.trace_numpy(f, *values)
    check_graph_against_numpy(graph, values, list(expected) if isinstance(expected, tuple) else expected,
                              rtol=rtol, atol=atol, name=name)
