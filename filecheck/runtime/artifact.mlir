// RUN: hlograph-opt %s -O0 -o %t.mlirbc
// RUN: hlograph-run %t.mlirbc | filecheck %s
// RUN: hlograph-opt %t.mlirbc | filecheck %s --check-prefix=TEXT

// A StableHLO portable artifact through both tools: hlograph-opt writes one
// (an output named .mlirbc), hlograph-run runs it, hlograph-opt prints it back.
// CHECK: result 0: tensor<3xf32>
// CHECK-NEXT: array([ 2.,  4., -6.], dtype=float32)
// TEXT-LABEL: func.func @main(
// TEXT-NOT: vhlo.
// TEXT: stablehlo.multiply

func.func @main() -> tensor<3xf32> {
  %x = stablehlo.constant dense<[1.0, 2.0, -3.0]> : tensor<3xf32>
  %two = stablehlo.constant dense<2.0> : tensor<3xf32>
  %0 = stablehlo.multiply %x, %two : tensor<3xf32>
  return %0 : tensor<3xf32>
}
