func.func @conv_grad(%x: tensor<2x2x6x6xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<8x2x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<2x2x6x6xf32>, tensor<8x2x3x3xf32>) outs(%f : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %cc = tensor.collapse_shape %c [[0, 1], [2], [3]] : tensor<2x8x4x4xf32> into tensor<16x4x4xf32>
  %s1 = tensor.extract_slice %cc[0, 1, 0] [16, 3, 4] [1, 1, 1] : tensor<16x4x4xf32> to tensor<16x3x4xf32>
  %s2 = tensor.extract_slice %s1[0, 0, 1] [16, 3, 3] [1, 1, 1] : tensor<16x3x4xf32> to tensor<16x3x3xf32>
  %ex = tensor.expand_shape %s2 [[0, 1], [2], [3]] output_shape [2, 8, 3, 3] : tensor<16x3x3xf32> into tensor<2x8x3x3xf32>
  %et = tensor.empty() : tensor<8x2x3x3xf32>
  %t = linalg.transpose ins(%ex : tensor<2x8x3x3xf32>) outs(%et : tensor<8x2x3x3xf32>) permutation = [1, 0, 2, 3]
  return %t : tensor<8x2x3x3xf32>
}
