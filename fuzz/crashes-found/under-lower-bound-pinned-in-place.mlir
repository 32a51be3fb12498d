// remat-fuzz finding (hard invariant: the lower bound is at most the peak),
// found by test/fuzz/short-run.test on the first run with the bound's third
// part (2026-11-30).
//
//   remat-opt --estimate under-lower-bound-pinned-in-place.mlir
//   -> peak 6208, lower bound then 10304
//
// Every linalg.generic here has a body with an unknown op (mystery.scalar), so
// it never moves and is not known to be pure; each writes its result in place
// into its tensor.empty. Part 3 treated such in-place results like views (never
// cut: "holding it holds its source"), which is false for an op that writes new
// contents: the cut had to take the empties instead, all nine of them (9,280
// bytes), where holding the one result in flight costs 1,024. Results that a
// non-pure op writes in place now cost nothing to hold in the cut (such an op
// may also keep its operand's contents, and then the two share a buffer); only
// views are never cut (lib/Memory.c, holdCost). The bound is 3072 here.
module {
  func.func @step(%p0: tensor<16x16xf32>) -> (tensor<f32>, tensor<16x16xf32>) {
    %v0 = tensor.empty() : tensor<16x16xf32>
    %v1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p0 : tensor<16x16xf32>) outs(%v0 : tensor<16x16xf32>) {
    ^bb0(%v2: f32, %v3: f32):
    %v4 = "mystery.scalar"(%v2) : (f32) -> f32
    linalg.yield %v4 : f32
    } -> tensor<16x16xf32>
    %v5 = tensor.empty() : tensor<16x16xf32>
    %v6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v1 : tensor<16x16xf32>) outs(%v5 : tensor<16x16xf32>) {
    ^bb0(%v7: f32, %v8: f32):
    %v9 = "mystery.scalar"(%v7) : (f32) -> f32
    linalg.yield %v9 : f32
    } -> tensor<16x16xf32>
    %v10 = tensor.empty() : tensor<16x16xf32>
    %v11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v6 : tensor<16x16xf32>) outs(%v10 : tensor<16x16xf32>) {
    ^bb0(%v12: f32, %v13: f32):
    %v14 = "mystery.scalar"(%v12) : (f32) -> f32
    linalg.yield %v14 : f32
    } -> tensor<16x16xf32>
    %v15 = tensor.empty() : tensor<16x16xf32>
    %v16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v11 : tensor<16x16xf32>) outs(%v15 : tensor<16x16xf32>) {
    ^bb0(%v17: f32, %v18: f32):
    %v19 = "mystery.scalar"(%v17) : (f32) -> f32
    linalg.yield %v19 : f32
    } -> tensor<16x16xf32>
    %v20 = tensor.empty() : tensor<16x16xf32>
    %v21 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v16 : tensor<16x16xf32>) outs(%v20 : tensor<16x16xf32>) {
    ^bb0(%v22: f32, %v23: f32):
    %v24 = "mystery.scalar"(%v22) : (f32) -> f32
    linalg.yield %v24 : f32
    } -> tensor<16x16xf32>
    %v25 = tensor.empty() : tensor<f32>
    %v26 = arith.constant 0.000000e+00 : f32
    %v27 = linalg.fill ins(%v26 : f32) outs(%v25 : tensor<f32>) -> tensor<f32>
    %v28 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%v21 : tensor<16x16xf32>) outs(%v27 : tensor<f32>) {
    ^bb0(%v29: f32, %v30: f32):
    %v31 = arith.mulf %v29, %v29 : f32
    %v32 = arith.addf %v31, %v30 : f32
    linalg.yield %v32 : f32
    } -> tensor<f32>
    %v33 = tensor.empty() : tensor<16x16xf32>
    %v34 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v21 : tensor<16x16xf32>) outs(%v33 : tensor<16x16xf32>) {
    ^bb0(%v35: f32, %v36: f32):
    %v37 = arith.addf %v35, %v35 : f32
    linalg.yield %v37 : f32
    } -> tensor<16x16xf32>
    %v38 = tensor.empty() : tensor<16x16xf32>
    %v39 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v16, %v34 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%v38 : tensor<16x16xf32>) {
    ^bb0(%v40: f32, %v41: f32, %v42: f32):
    %v43 = "mystery.scalar_grad"(%v40, %v41) : (f32, f32) -> f32
    linalg.yield %v43 : f32
    } -> tensor<16x16xf32>
    %v44 = tensor.empty() : tensor<16x16xf32>
    %v45 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v11, %v39 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%v44 : tensor<16x16xf32>) {
    ^bb0(%v46: f32, %v47: f32, %v48: f32):
    %v49 = "mystery.scalar_grad"(%v46, %v47) : (f32, f32) -> f32
    linalg.yield %v49 : f32
    } -> tensor<16x16xf32>
    %v50 = tensor.empty() : tensor<16x16xf32>
    %v51 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v6, %v45 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%v50 : tensor<16x16xf32>) {
    ^bb0(%v52: f32, %v53: f32, %v54: f32):
    %v55 = "mystery.scalar_grad"(%v52, %v53) : (f32, f32) -> f32
    linalg.yield %v55 : f32
    } -> tensor<16x16xf32>
    %v56 = tensor.empty() : tensor<16x16xf32>
    %v57 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v1, %v51 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%v56 : tensor<16x16xf32>) {
    ^bb0(%v58: f32, %v59: f32, %v60: f32):
    %v61 = "mystery.scalar_grad"(%v58, %v59) : (f32, f32) -> f32
    linalg.yield %v61 : f32
    } -> tensor<16x16xf32>
    %v62 = tensor.empty() : tensor<16x16xf32>
    %v63 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p0, %v57 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%v62 : tensor<16x16xf32>) {
    ^bb0(%v64: f32, %v65: f32, %v66: f32):
    %v67 = "mystery.scalar_grad"(%v64, %v65) : (f32, f32) -> f32
    linalg.yield %v67 : f32
    } -> tensor<16x16xf32>
    return %v28, %v63 : tensor<f32>, tensor<16x16xf32>
  }
}
