// RUN: hlograph-opt %s -p hlograph-simplify-algebra --split-input-file -o %t && filecheck %s < %t
// RUN: cat %s | hlograph-opt - --split-input-file -p 'builtin.module(hlograph-simplify-algebra)' | filecheck %s
// RUN: hlograph-opt %s --split-input-file -p hlograph-simplify-algebra -p cse --mlir-print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=PRINT
// RUN: hlograph-opt %s --split-input-file -O2 --mlir-print-ir-after=hlograph-simplify 2>&1 >/dev/null | filecheck %s --check-prefix=AFTER
// RUN: hlograph-opt --list-passes | filecheck %s --check-prefix=LIST

// Each chunk is its own module and comes out separated by the same marker.
// CHECK-LABEL: func.func @first(
// CHECK-NEXT: return %arg0
// CHECK: // -----
// CHECK-LABEL: func.func @second(
// CHECK-NEXT: return %arg0

// PRINT: // -----// IR Dump After hlograph-simplify-algebra //----- //
// PRINT: func.func @first(
// PRINT: // -----// IR Dump After cse //----- //
// PRINT: // -----// IR Dump After hlograph-simplify-algebra //----- //
// PRINT: func.func @second(

// AFTER-NOT: IR Dump After hlograph-inline-calls
// AFTER: // -----// IR Dump After hlograph-simplify //----- //
// AFTER-NOT: IR Dump After cse

// LIST: hlograph passes:
// LIST-DAG: hlograph-fold-constants - Folds ops whose operands are all constants into constants.
// LIST-DAG: max-elements=65536
// LIST-DAG: hlograph-simplify-algebra - Applies algebraic identities
// LIST-DAG: fast-math=false
// LIST: named pipelines:
// LIST: O2 - hlograph-inline-calls,

func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.negate %x : tensor<2xf32>
  %1 = stablehlo.negate %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}

// -----

func.func @second(%x: tensor<2xi32>) -> tensor<2xi32> {
  %one = stablehlo.constant dense<1> : tensor<2xi32>
  %0 = stablehlo.multiply %one, %x : tensor<2xi32>
  return %0 : tensor<2xi32>
}
