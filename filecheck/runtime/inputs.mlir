// RUN: %PYTHON -c "import numpy as np; np.save('%t.a.npy', np.array([[1, -2, 3], [4, 5, -6]], np.int16)); np.save('%t.b.npy', np.float64(0.25)); np.savez('%t.npz', arr_1=np.float64(2.0), arr_0=np.ones((2, 3), np.int16))"
// RUN: hlograph-run %s --input %t.a.npy --input %t.b.npy | filecheck %s
// RUN: hlograph-run %s --inputs %t.npz | filecheck %s --check-prefix=NPZ
// RUN: not hlograph-run %s --input %t.b.npy --input %t.a.npy 2>&1 | filecheck %s --check-prefix=WRONG
// RUN: not hlograph-run %s 2>&1 | filecheck %s --check-prefix=MISSING

// The arguments of @main come from .npy files (in order) or one .npz archive
// (arr_0, arr_1, ...), and must match @main's types.

// CHECK: result 0: tensor<3x2xi16>
// CHECK-NEXT: array({{\[}}[ 1,  4],
// CHECK-NEXT:        [-2,  5],
// CHECK-NEXT:        [ 3, -6]], dtype=int16)
// CHECK-NEXT: result 1: tensor<f64>
// CHECK-NEXT: array(0.5)

// NPZ: result 1: tensor<f64>
// NPZ-NEXT: array(4.)

// WRONG: hlograph-run: error: {{.*}}inputs.mlir: argument 0: expected int16[2,3] (tensor<2x3xi16>), got float64[]
// MISSING: hlograph-run: error: {{.*}}inputs.mlir: @main takes 2 arguments (int16[2,3], float64[]), got 0

func.func @main(%a: tensor<2x3xi16>, %b: tensor<f64>) -> (tensor<3x2xi16>, tensor<f64>) {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xi16>) -> tensor<3x2xi16>
  %1 = stablehlo.add %b, %b : tensor<f64>
  return %0, %1 : tensor<3x2xi16>, tensor<f64>
}
