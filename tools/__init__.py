"""The tools on top of the package: ``hlograph`` (cli.py), ``hlograph-opt``
(opt.py), ``hlograph-run`` (run.py) and the op coverage table (coverage.py)."""
