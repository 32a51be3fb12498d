// UNSUPPORTED: sanitize
// The plugin's remat-expand-scatters: torch-mlir's tm_tensor.scatter (generic
// form, an unregistered op) becomes the loops remat's CPU lowering makes of it,
// which stock mlir-opt then bufferizes: in place into the zero fill, one
// allocation in all.
// RUN: mlir-opt --allow-unregistered-dialect --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat-expand-scatters))' %s | FileCheck %s
// RUN: mlir-opt --allow-unregistered-dialect --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat-expand-scatters),one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-deallocation-pipeline)' %s | FileCheck %s --check-prefix=BUF
// RUN: not mlir-opt --allow-unregistered-dialect --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat-expand-scatters))' %S/../remat-opt/Inputs/scatter-bad.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @embedding_backward
// CHECK-NOT: tm_tensor
// CHECK: %[[FILL:.*]] = linalg.fill
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[T:.*]] = %[[FILL]])
// CHECK: %[[ID:.*]] = tensor.extract %arg1[%[[I]], %{{.*}}] : tensor<6x1xi64>
// CHECK: arith.index_cast %[[ID]] : i64 to index
// CHECK: scf.for %[[J:.*]] = {{.*}} iter_args(%[[T2:.*]] = %[[T]])
// CHECK: arith.cmpi ult
// CHECK: scf.if
// CHECK: tensor.extract %arg0[%[[I]], %{{.*}}, %[[J]]] : tensor<6x1x4xf32>
// CHECK: tensor.extract %[[T2]]
// CHECK: arith.addf
// CHECK: tensor.insert {{.*}} into %[[T2]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[T2]]

// BUF-LABEL: func.func @embedding_backward
// BUF-COUNT-1: memref.alloc
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: return

// BAD: error: remat: tm_tensor.scatter: dimension_map entry 2 is not a dimension of the original (rank 2) or repeats one

func.func @embedding_backward(%upd: tensor<6x1x4xf32>, %idx: tensor<6x1xi64>) -> tensor<8x4xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = "tm_tensor.scatter"(%upd, %idx, %z) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %o, %u : f32
    "tm_tensor.yield"(%s) : (f32) -> ()
  }) : (tensor<6x1x4xf32>, tensor<6x1xi64>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
