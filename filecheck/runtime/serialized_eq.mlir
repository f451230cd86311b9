// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON -c "import numpy as np; np.save('%t/a.npy', np.array([1, 2], np.int32)); np.save('%t/b.npy', np.array([1, 3], np.int32))"
// RUN: %PYTHON -c "open('%t/index.csv', 'w').write('probe0,tensor<2xi32>,%t/a.npy probe0,tensor<2xi32>,%t/b.npy')"
// RUN: not hlograph-run %s --probe-dir %t 2>&1 | filecheck %s
// RUN: not hlograph-run %s 2>&1 | filecheck %s --check-prefix=NODIR

// check.expect_serialized_eq compares with a tensor the interpreter's probe
// recorded: iteration N is the N-th record of the probe in index.csv.

// CHECK-NOT: check #0
// CHECK: serialized_eq.mlir:[[# @LINE + 6]]:3: error: check #1 (check.expect_serialized_eq, probe 'probe0' iteration 1) failed: 1 of 2 elements differ
// CHECK: serialized_eq.mlir: 1 of 2 checks failed
// NODIR: serialized_eq.mlir:[[# @LINE + 3]]:3: error: check.expect_serialized_eq needs the probe directory of an interpreter run (hlograph-run --probe-dir)
func.func @main() {
  %operand = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_serialized_eq %operand, probe_id = "probe0" : tensor<2xi32>
  check.expect_serialized_eq %operand, probe_id = "probe0", iter = 1 : tensor<2xi32>
  func.return
}
