// RUN: hlograph-run %s | filecheck %s

// Without checks, hlograph-run prints each result: its type, then NumPy's repr.

// CHECK: result 0: tensor<3x2xi16>
// CHECK-NEXT: array({{\[}}[ 1,  4],
// CHECK-NEXT:        [-2,  5],
// CHECK-NEXT:        [ 3, -6]], dtype=int16)
// CHECK-NEXT: result 1: tensor<2xbf16>
// CHECK-NEXT: array([-1.5, -inf], dtype={{bfloat16|dtype\(bfloat16\)}})
// CHECK-NEXT: result 2: tensor<complex<f64>>
// CHECK-NEXT: array(1.-2.j)
// CHECK-NEXT: result 3: tensor<0xi1>
// CHECK-NEXT: array([], dtype=bool)
// CHECK-NOT: passed

func.func @main() -> (tensor<3x2xi16>, tensor<2xbf16>, tensor<complex<f64>>, tensor<0xi1>) {
  %a = stablehlo.constant dense<[[1, -2, 3], [4, 5, -6]]> : tensor<2x3xi16>
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xi16>) -> tensor<3x2xi16>
  %b = stablehlo.constant dense<[1.5, 0x7F80]> : tensor<2xbf16>
  %1 = stablehlo.negate %b : tensor<2xbf16>
  %2 = stablehlo.constant dense<(1.0, -2.0)> : tensor<complex<f64>>
  %3 = stablehlo.constant dense<> : tensor<0xi1>
  return %0, %1, %2, %3 : tensor<3x2xi16>, tensor<2xbf16>, tensor<complex<f64>>, tensor<0xi1>
}
