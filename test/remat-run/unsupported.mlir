// Signatures remat-run cannot feed: clear message, exit 1.
// RUN: not remat-run --entry=dyn %s 2>&1 | FileCheck %s --check-prefix=DYN
// RUN: not remat-run --entry=bf %s 2>&1 | FileCheck %s --check-prefix=BF
// RUN: not remat-run --entry=decl %s 2>&1 | FileCheck %s --check-prefix=DECL
// RUN: not remat-run --entry=idx %s 2>&1 | FileCheck %s --check-prefix=IDX

// DYN: remat-run: error: @dyn argument 0: dynamic shape tensor<?x4xf32> is not supported
// BF: remat-run: error: @bf argument 1: element type bf16 of tensor<4xbf16> is not supported
// DECL: remat-run: error: entry function 'decl' is a declaration
// IDX: remat-run: error: @idx argument 0: element type index of index is not supported

func.func @dyn(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}
func.func @bf(%a: tensor<4xf32>, %b: tensor<4xbf16>) -> tensor<4xbf16> {
  return %b : tensor<4xbf16>
}
func.func private @decl(tensor<4xf32>) -> tensor<4xf32>
func.func @idx(%i: index) -> index {
  return %i : index
}
