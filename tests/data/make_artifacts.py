"""Writes the portable artifacts tests/compiler/test_artifact.py loads:

    python -m hlograph.tests.data.make_artifacts

- ``affine.mlirbc``: ``tanh(x @ w + b)`` (float32[2,3], float32[3,4], float32[4]),
  serialized by ``Lowered.serialize()`` at the oldest StableHLO version it allows;
- ``affine.npz``: its arguments (``x``, ``w``, ``b``) and expected result (``out``).

The files are committed: a later hlograph (and jaxlib) must keep reading what
this version wrote. Rerun only to add artifacts, never to refresh old ones.
"""

from __future__ import annotations

import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def affine():
    import hlograph as hg

    x = hg.tensor("x", (2, 3), "float32")
    w = hg.tensor("w", (3, 4), "float32")
    b = hg.tensor("b", (4,), "float32")
    y = hg.tanh(x @ w + b)
    y.name = "out"
    return hg.Graph([x, w, b], y)


def main() -> None:
    import hlograph as hg

    g = affine()
    rng = np.random.default_rng(0)
    args = {"x": rng.normal(size=(2, 3)).astype(np.float32),
            "w": rng.normal(size=(3, 4)).astype(np.float32),
            "b": rng.normal(size=4).astype(np.float32)}
    data = hg.compile(g, platform="cpu").lower().serialize()
    (HERE / "affine.mlirbc").write_bytes(data)
    out = np.tanh(args["x"].astype(np.float64) @ args["w"] + args["b"]).astype(np.float32)
    np.savez(HERE / "affine.npz", out=out, **args)
    print(f"wrote affine.mlirbc ({len(data)} bytes) and affine.npz")


if __name__ == "__main__":
    main()
