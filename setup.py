"""Builds the C part of the per-call path (lowering/_dispatch.c). The rest of
the project's metadata is in pyproject.toml. The extension is optional: where
it cannot be built, hlograph uses the Python implementation in
lowering/dispatch.py (same behaviour, slower calls)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("hlograph.lowering._dispatch", ["lowering/_dispatch.c"], optional=True)])
