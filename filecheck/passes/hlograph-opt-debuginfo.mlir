// RUN: hlograph-opt %s --split-input-file --mlir-print-debuginfo | filecheck %s
// RUN: not hlograph-opt %s -O2 -O1 2>&1 | filecheck %s --check-prefix=LEVELS

// Printed locations name the file, and with --split-input-file keep the
// file's line numbers (as mlir-opt does), not those of the chunk.
// LEVELS: hlograph-opt: error: conflicting optimization levels -O2 and -O1

// CHECK-LABEL: func.func @first(
// CHECK: stablehlo.add {{.*}} loc(#[[ADD:loc[0-9]+]])
// CHECK-NOT: loc("-"
// CHECK: #[[ADD]] = loc("{{.*}}hlograph-opt-debuginfo.mlir":13:8)
func.func @first(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @second(
// CHECK: stablehlo.multiply {{.*}} loc(#[[MUL:loc[0-9]+]])
// CHECK: #[[MUL]] = loc("{{.*}}hlograph-opt-debuginfo.mlir":23:8)
func.func @second(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
