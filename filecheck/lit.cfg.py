# lit configuration of hlograph's FileCheck suite: ops/ (graph -> IR),
# passes/ (.mlir through hlograph-opt), runtime/ (.mlir through hlograph-run).
import os
import sys

import lit.formats

config.name = "hlograph"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".py"]
config.excludes = ["lit.cfg.py", "Output"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.test_source_root

bindir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bindir, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
config.environment["JAX_PLATFORMS"] = "cpu"
config.substitutions.append(("%PYTHON", sys.executable))
# hlograph, hlograph-opt, hlograph-run and filecheck are found on PATH (the venv's bin first)
