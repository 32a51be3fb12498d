// Two kernels read one constant table (a memref.global after bufferization,
// copied by gpu-kernel-outlining into each kernel's module); a third calls
// libdevice (__nv_expf). test/gpu/one-module.test.
func.func @step(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c = arith.constant dense<[0.5, -1.25, 2.0, 3.75]> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.add ins(%x, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %b = linalg.mul ins(%y, %c : tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %e3 = tensor.empty() : tensor<4xf32>
  %d = linalg.erf ins(%x : tensor<4xf32>) outs(%e3 : tensor<4xf32>) -> tensor<4xf32>
  return %a, %b, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
