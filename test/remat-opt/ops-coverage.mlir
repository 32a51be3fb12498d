// COM: One function per family of ops the analysis covers; for each, the
// COM: estimate must equal the peak a CPU run measures (tolerance 0).
// RUN: %python %remat_src/scripts/check-estimate.py --tolerance 0 %s | FileCheck %s
// CHECK: OK   ops-coverage.mlir @batch_matmul_transpose_broadcast:
// CHECK: OK   ops-coverage.mlir @conv_pool:
// CHECK: OK   ops-coverage.mlir @pad_concat_slices:
// CHECK: OK   ops-coverage.mlir @arith_on_tensors_and_constants:
// CHECK: largest difference: 0.00%

func.func @batch_matmul_transpose_broadcast(%a: tensor<4x8x16xf32>, %b: tensor<4x16x8xf32>, %v: tensor<8xf32>) -> tensor<4x8x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x8xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %m = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32>, tensor<4x16x8xf32>) outs(%f : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %et = tensor.empty() : tensor<4x8x8xf32>
  %t = linalg.transpose ins(%m : tensor<4x8x8xf32>) outs(%et : tensor<4x8x8xf32>) permutation = [0, 2, 1]
  %eb = tensor.empty() : tensor<4x8x8xf32>
  %bc = linalg.broadcast ins(%v : tensor<8xf32>) outs(%eb : tensor<4x8x8xf32>) dimensions = [0, 1]
  %es = tensor.empty() : tensor<4x8x8xf32>
  %s = linalg.add ins(%t, %bc : tensor<4x8x8xf32>, tensor<4x8x8xf32>) outs(%es : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  return %s : tensor<4x8x8xf32>
}

func.func @conv_pool(%x: tensor<2x10x10x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<2x4x4x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<2x10x10x3xf32>, tensor<3x3x3x8xf32>) outs(%f : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  %ep = tensor.empty() : tensor<2x4x4x8xf32>
  %fp = linalg.fill ins(%c0 : f32) outs(%ep : tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%c, %k : tensor<2x8x8x8xf32>, tensor<2x2xf32>) outs(%fp : tensor<2x4x4x8xf32>) -> tensor<2x4x4x8xf32>
  return %p : tensor<2x4x4x8xf32>
}

func.func @pad_concat_slices(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> (tensor<10x10xf32>, tensor<16x8xf32>, tensor<4x8xf32>) {
  %c0 = arith.constant 0.0 : f32
  %p = tensor.pad %a low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c0 : f32
  } : tensor<8x8xf32> to tensor<10x10xf32>
  %c = tensor.concat dim(0) %a, %b : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %s = tensor.extract_slice %c[2, 0] [4, 8] [1, 1] : tensor<16x8xf32> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %n = linalg.negf ins(%s : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %i = tensor.insert_slice %n into %c[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<16x8xf32>
  return %p, %i, %n : tensor<10x10xf32>, tensor<16x8xf32>, tensor<4x8xf32>
}

func.func @arith_on_tensors_and_constants(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %k = arith.constant dense<2.0> : tensor<64xf32>
  %m = arith.mulf %a, %k : tensor<64xf32>
  %s = arith.addf %m, %b : tensor<64xf32>
  %t = math.tanh %s : tensor<64xf32>
  %r = arith.subf %t, %a : tensor<64xf32>
  return %r : tensor<64xf32>
}
