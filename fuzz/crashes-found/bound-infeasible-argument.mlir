// remat-fuzz finding (hard invariant), 2026-12-05 (tests/fuzz/short-run.test, seed 1, after a
// change to the planner moved the fuzzer's path): a plan within a budget the recompute cost
// bound called infeasible ("no schedule fits the budget: 12288 bytes are live at op 15 in
// every schedule").
//
//   remat-opt --planner=default --budget=9027 --report=json bound-infeasible-argument.mlir
//   -> peak 12288 before, 9024 after
//
// `arith.mulf %p0, %p0` is normalized into a linalg.generic whose destination is the
// argument %p0, so some plan writes %v0 into the argument's buffer (arguments are
// writable) and it takes no memory of the step's own. The lower bound never counted such
// a buffer (lib/Memory.c, argumentBacked); the recompute bound counted it at every point
// that reads it (%v23 = %v17 + %v0: three 4 KiB buffers). It now classifies buffers as
// the lower bound does (rematClassifyArgumentBacked).
module {
  func.func @step(%p0: tensor<32x32xf32>, %p1: tensor<32x3xf32>) -> (tensor<f32>, tensor<32x3xf32>, tensor<32x32xf32>, tensor<32x3xf32>, tensor<3x32xf32>) {
    %v0 = arith.mulf %p0, %p0 : tensor<32x32xf32>
    %v1 = tensor.extract_slice %v0[0, 0] [32, 19] [1, 1] : tensor<32x32xf32> to tensor<32x19xf32>
    %v2 = tensor.extract_slice %v0[0, 19] [32, 13] [1, 1] : tensor<32x32xf32> to tensor<32x13xf32>
    %v3 = tensor.concat dim(1) %v2, %v1 : (tensor<32x13xf32>, tensor<32x19xf32>) -> tensor<32x32xf32>
    %v4 = tensor.extract_slice %v3[0, 0] [32, 28] [1, 1] : tensor<32x32xf32> to tensor<32x28xf32>
    %v5 = tensor.extract_slice %v3[0, 28] [32, 4] [1, 1] : tensor<32x32xf32> to tensor<32x4xf32>
    %v6 = tensor.concat dim(1) %v5, %v4 : (tensor<32x4xf32>, tensor<32x28xf32>) -> tensor<32x32xf32>
    %v7 = tensor.empty() : tensor<32x32xf32>
    %v8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v6, %p0 : tensor<32x32xf32>, tensor<32x32xf32>) outs(%v7 : tensor<32x32xf32>) {
    ^bb0(%v9: f32, %v10: f32, %v11: f32):
    %v12 = arith.addf %v9, %v10 : f32
    linalg.yield %v12 : f32
    } -> tensor<32x32xf32>
    %v13 = tensor.extract_slice %v8[0, 0] [32, 5] [1, 1] : tensor<32x32xf32> to tensor<32x5xf32>
    %v14 = tensor.extract_slice %v8[0, 5] [32, 27] [1, 1] : tensor<32x32xf32> to tensor<32x27xf32>
    %v15 = tensor.concat dim(1) %v14, %v13 : (tensor<32x27xf32>, tensor<32x5xf32>) -> tensor<32x32xf32>
    %v16 = tensor.empty() : tensor<32x32xf32>
    %v17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v15 : tensor<32x32xf32>) outs(%v16 : tensor<32x32xf32>) {
    ^bb0(%v18: f32, %v19: f32):
    %v20 = arith.constant 0.000000e+00 : f32
    %v21 = arith.maximumf %v18, %v20 : f32
    linalg.yield %v21 : f32
    } -> tensor<32x32xf32>
    %v22 = tensor.empty() : tensor<32x32xf32>
    %v23 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v17, %v0 : tensor<32x32xf32>, tensor<32x32xf32>) outs(%v22 : tensor<32x32xf32>) {
    ^bb0(%v24: f32, %v25: f32, %v26: f32):
    %v27 = arith.addf %v24, %v25 : f32
    linalg.yield %v27 : f32
    } -> tensor<32x32xf32>
    %v28 = tensor.empty() : tensor<32x32xf32>
    %v29 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v23 : tensor<32x32xf32>) outs(%v28 : tensor<32x32xf32>) {
    ^bb0(%v30: f32, %v31: f32):
    %v32 = arith.constant 0.000000e+00 : f32
    %v33 = arith.maximumf %v30, %v32 : f32
    linalg.yield %v33 : f32
    } -> tensor<32x32xf32>
    %v34 = tensor.empty() : tensor<32x3xf32>
    %v35 = arith.constant 0.000000e+00 : f32
    %v36 = linalg.fill ins(%v35 : f32) outs(%v34 : tensor<32x3xf32>) -> tensor<32x3xf32>
    %v37 = linalg.matmul ins(%v29, %p1 : tensor<32x32xf32>, tensor<32x3xf32>) outs(%v36 : tensor<32x3xf32>) -> tensor<32x3xf32>
    %v38 = tensor.empty() : tensor<3x32xf32>
    %v39 = linalg.transpose ins(%v37 : tensor<32x3xf32>) outs(%v38 : tensor<3x32xf32>) permutation = [1, 0]
    %v40 = tensor.empty() : tensor<f32>
    %v41 = arith.constant 0.000000e+00 : f32
    %v42 = linalg.fill ins(%v41 : f32) outs(%v40 : tensor<f32>) -> tensor<f32>
    %v43 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%v39 : tensor<3x32xf32>) outs(%v42 : tensor<f32>) {
    ^bb0(%v44: f32, %v45: f32):
    %v46 = arith.mulf %v44, %v44 : f32
    %v47 = arith.addf %v46, %v45 : f32
    linalg.yield %v47 : f32
    } -> tensor<f32>
    %v48 = tensor.empty() : tensor<3x32xf32>
    %v49 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v39 : tensor<3x32xf32>) outs(%v48 : tensor<3x32xf32>) {
    ^bb0(%v50: f32, %v51: f32):
    %v52 = arith.addf %v50, %v50 : f32
    linalg.yield %v52 : f32
    } -> tensor<3x32xf32>
    %v53 = tensor.empty() : tensor<32x3xf32>
    %v54 = linalg.transpose ins(%v49 : tensor<3x32xf32>) outs(%v53 : tensor<32x3xf32>) permutation = [1, 0]
    %v55 = tensor.empty() : tensor<32x32xf32>
    %v56 = linalg.transpose ins(%v29 : tensor<32x32xf32>) outs(%v55 : tensor<32x32xf32>) permutation = [1, 0]
    %v57 = tensor.empty() : tensor<32x3xf32>
    %v58 = arith.constant 0.000000e+00 : f32
    %v59 = linalg.fill ins(%v58 : f32) outs(%v57 : tensor<32x3xf32>) -> tensor<32x3xf32>
    %v60 = linalg.matmul ins(%v56, %v54 : tensor<32x32xf32>, tensor<32x3xf32>) outs(%v59 : tensor<32x3xf32>) -> tensor<32x3xf32>
    return %v43, %v60, %v29, %v37, %v39 : tensor<f32>, tensor<32x3xf32>, tensor<32x32xf32>, tensor<32x3xf32>, tensor<3x32xf32>
  }
}
