// An expand_shape with two dynamic sizes in one reassociation group
// (memref<?x?xf32> into memref<?x?x?xf32> over [[0, 1], [2]]) crashes MLIR 22's
// expand-strided-metadata, which the CPU lowering runs: remat refuses it first
// with its location and exits 1 (Dialect__Tensor__fold-reassociative-reshapes
// and Dialect__Tensor__canonicalize of the upstream corpus have such chunks).
// One dynamic size per group still lowers.
// RUN: not remat-opt --lower=cpu --dim-bound=8 --split-input-file %s -o /dev/null 2>&1 | FileCheck %s
// CHECK: lower-expand-shape.mlir:[[@LINE+7]]:8: error: remat: cannot lower an expand_shape with more than one dynamic size in a reassociation group
// CHECK-NOT: error
func.func @two_dynamic_in_a_group(%t: tensor<?x?xf32>, %sz: index) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sz0 = tensor.dim %t, %c0 : tensor<?x?xf32>
  %sz1 = tensor.dim %t, %c1 : tensor<?x?xf32>
  %0 = tensor.expand_shape %t [[0, 1], [2]] output_shape [%sz, %sz0, %sz1] : tensor<?x?xf32> into tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// -----

func.func @one_dynamic_per_group(%t: tensor<?x8xf32>) -> tensor<?x2x4xf32> {
  %c0 = arith.constant 0 : index
  %sz0 = tensor.dim %t, %c0 : tensor<?x8xf32>
  %0 = tensor.expand_shape %t [[0], [1, 2]] output_shape [%sz0, 2, 4] : tensor<?x8xf32> into tensor<?x2x4xf32>
  return %0 : tensor<?x2x4xf32>
}
