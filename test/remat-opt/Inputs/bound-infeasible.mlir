module {
  func.func private @ext0(tensor<1x6xf64>) -> tensor<1x6xf64>
  func.func private @ext0_grad(tensor<1x6xf64>, tensor<1x6xf64>) -> tensor<1x6xf64>
  func.func @step(%p0: tensor<8x1xf64>, %p1: tensor<8x6xf64>) -> (tensor<f64>, tensor<8x6xf64>) {
    %v0 = tensor.empty() : tensor<1x8xf64>
    %v1 = linalg.transpose ins(%p0 : tensor<8x1xf64>) outs(%v0 : tensor<1x8xf64>) permutation = [1, 0]
    %v2 = tensor.empty() : tensor<1x6xf64>
    %v3 = arith.constant 0.000000e+00 : f64
    %v4 = linalg.fill ins(%v3 : f64) outs(%v2 : tensor<1x6xf64>) -> tensor<1x6xf64>
    %v5 = linalg.matmul ins(%v1, %p1 : tensor<1x8xf64>, tensor<8x6xf64>) outs(%v4 : tensor<1x6xf64>) -> tensor<1x6xf64>
    %v6 = func.call @ext0(%v5) : (tensor<1x6xf64>) -> tensor<1x6xf64>
    %v7 = tensor.empty() : tensor<f64>
    %v8 = arith.constant 0.000000e+00 : f64
    %v9 = linalg.fill ins(%v8 : f64) outs(%v7 : tensor<f64>) -> tensor<f64>
    %v10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%v6 : tensor<1x6xf64>) outs(%v9 : tensor<f64>) {
    ^bb0(%v11: f64, %v12: f64):
    %v13 = arith.mulf %v11, %v11 : f64
    %v14 = arith.addf %v13, %v12 : f64
    linalg.yield %v14 : f64
    } -> tensor<f64>
    %v15 = tensor.empty() : tensor<1x6xf64>
    %v16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v6 : tensor<1x6xf64>) outs(%v15 : tensor<1x6xf64>) {
    ^bb0(%v17: f64, %v18: f64):
    %v19 = arith.addf %v17, %v17 : f64
    linalg.yield %v19 : f64
    } -> tensor<1x6xf64>
    %v20 = func.call @ext0_grad(%v5, %v16) : (tensor<1x6xf64>, tensor<1x6xf64>) -> tensor<1x6xf64>
    %v21 = tensor.empty() : tensor<8x1xf64>
    %v22 = linalg.transpose ins(%v1 : tensor<1x8xf64>) outs(%v21 : tensor<8x1xf64>) permutation = [1, 0]
    %v23 = tensor.empty() : tensor<8x6xf64>
    %v24 = arith.constant 0.000000e+00 : f64
    %v25 = linalg.fill ins(%v24 : f64) outs(%v23 : tensor<8x6xf64>) -> tensor<8x6xf64>
    %v26 = linalg.matmul ins(%v22, %v20 : tensor<8x1xf64>, tensor<1x6xf64>) outs(%v25 : tensor<8x6xf64>) -> tensor<8x6xf64>
    return %v10, %v26 : tensor<f64>, tensor<8x6xf64>
  }
}
