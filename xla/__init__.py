"""The jax/jaxlib boundary, hlograph's ground floor and the only package that
imports jax or jaxlib: ``mlir`` (IR, dialects, dtype mapping, rewrite API,
reference interpreter, portable artifacts), ``pjrt`` (clients, executables, the
C++ dispatcher, DLPack), ``sdy`` (Shardy and SPMD), ``ffi`` (host calls as XLA
FFI custom calls) and ``jax_lowering`` (jax's own lowering, for the bridge)."""
