// RUN: not hlograph-opt %s --split-input-file -O2 2>&1 | filecheck %s
// RUN: not hlograph-opt %s -p hlograph-fold-constantz 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not hlograph-opt %s -p canonicalise 2>&1 | filecheck %s --check-prefix=UPSTREAM
// RUN: not hlograph-opt %s -p 'hlograph-fold-constants{max-elementz=4}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not hlograph-opt %s -p 'func.func(hlograph-simplify)' 2>&1 | filecheck %s --check-prefix=NESTED
// RUN: not hlograph-opt %t.does-not-exist 2>&1 | filecheck %s --check-prefix=MISSING

// Malformed chunks report MLIR's diagnostic at its line in this file (errors
// come first, on stderr); the valid chunk in between is still processed.
// CHECK: hlograph-opt-invalid.mlir:12:8: error: custom op 'stablehlo.bogus' is unknown
func.func @unknown_op(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.bogus %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @valid(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

// CHECK: hlograph-opt-invalid.mlir:27:3: error: type of return operand 0 ('tensor<2xf32>') doesn't match function result type ('tensor<3xf32>')
func.func @bad_return(%x: tensor<2xf32>) -> tensor<3xf32> {
  %0 = stablehlo.abs %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
// CHECK: func.func @valid(
// CHECK-NOT: Traceback

// UNKNOWN: error: unknown hlograph pass 'hlograph-fold-constantz'; did you mean hlograph-fold-constants
// UNKNOWN-NOT: Traceback
// UPSTREAM: error: unknown pass 'canonicalise' in 'canonicalise'; did you mean canonicalize?
// OPTION: error: hlograph-fold-constants: unknown option 'max-elementz'; valid options: max-elements, max-expanded-elements
// NESTED: error: hlograph pass 'hlograph-simplify' inside 'func.func(hlograph-simplify)': hlograph passes run on the whole module
// MISSING: hlograph-opt: error: cannot read {{.*}}does-not-exist
