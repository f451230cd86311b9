"""Other frameworks as frontends and callers of hlograph.

Each framework has its own subpackage, the only place that imports it (its
dependency is a pyproject extra where hlograph does not depend on it already):

- ``hlograph.interop.jax``: jax functions traced and interpreted into hlograph graphs;
- ``hlograph.interop.pytensor`` (extra ``pytensor``): PyTensor graphs converted to
  hlograph graphs (``from_fgraph``, ``from_pytensor``) and the ``"HLOGRAPH"``
  compilation mode of ``pytensor.function``.

Importing ``hlograph.interop`` imports no framework.
"""
