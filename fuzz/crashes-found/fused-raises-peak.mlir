// A finding of the planner fuzz target (seed 1 short run, 2026-12-02): default with
// --fuse-elementwise at 7216 bytes planned the fused step to 8256 bytes, over the
// input's 7680, when neither the fused nor the unfused plan fit (lib/PlanDriver.c
// planWithAndWithoutFusion now keeps the lower peak).
module {
  func.func private @ext0(tensor<12x32xf64>) -> tensor<12x32xf64>
  func.func private @ext0_grad(tensor<12x32xf64>, tensor<12x32xf64>) -> tensor<12x32xf64>
  func.func @step(%p0: tensor<12x32xf64>, %p1: tensor<32x3xf64>, %p2: tensor<3xf64>, %p3: tensor<12x3xf64>) -> (tensor<f64>, tensor<3xf64>, tensor<32x3xf64>, tensor<12x32xf64>, tensor<12x3xf64>) {
    %v0 = tensor.extract_slice %p0[0, 0] [12, 25] [1, 1] : tensor<12x32xf64> to tensor<12x25xf64>
    %v1 = tensor.extract_slice %p0[0, 25] [12, 7] [1, 1] : tensor<12x32xf64> to tensor<12x7xf64>
    %v2 = tensor.concat dim(1) %v1, %v0 : (tensor<12x7xf64>, tensor<12x25xf64>) -> tensor<12x32xf64>
    %v3 = func.call @ext0(%v2) : (tensor<12x32xf64>) -> tensor<12x32xf64>
    %v4 = tensor.empty() : tensor<12xf64>
    %v5 = arith.constant 0.000000e+00 : f64
    %v6 = linalg.fill ins(%v5 : f64) outs(%v4 : tensor<12xf64>) -> tensor<12xf64>
    %v7 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%v3 : tensor<12x32xf64>) outs(%v6 : tensor<12xf64>) {
    ^bb0(%v8: f64, %v9: f64):
    %v10 = arith.addf %v8, %v9 : f64
    linalg.yield %v10 : f64
    } -> tensor<12xf64>
    %v11 = tensor.empty() : tensor<12x32xf64>
    %v12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v3, %v7 : tensor<12x32xf64>, tensor<12xf64>) outs(%v11 : tensor<12x32xf64>) {
    ^bb0(%v13: f64, %v14: f64, %v15: f64):
    %v16 = arith.mulf %v13, %v14 : f64
    linalg.yield %v16 : f64
    } -> tensor<12x32xf64>
    %v17 = tensor.empty() : tensor<12x32xf64>
    %v18 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v12, %p0 : tensor<12x32xf64>, tensor<12x32xf64>) outs(%v17 : tensor<12x32xf64>) {
    ^bb0(%v19: f64, %v20: f64, %v21: f64):
    %v22 = arith.mulf %v19, %v20 : f64
    linalg.yield %v22 : f64
    } -> tensor<12x32xf64>
    %v23 = "mystery.op"(%v18) : (tensor<12x32xf64>) -> tensor<12x32xf64>
    %v24 = tensor.empty() : tensor<12x32xf64>
    %v25 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v23 : tensor<12x32xf64>) outs(%v24 : tensor<12x32xf64>) {
    ^bb0(%v26: f64, %v27: f64):
    %v28 = arith.constant 0.000000e+00 : f64
    %v29 = arith.maximumf %v26, %v28 : f64
    linalg.yield %v29 : f64
    } -> tensor<12x32xf64>
    %v30 = tensor.empty() : tensor<12x3xf64>
    %v31 = arith.constant 0.000000e+00 : f64
    %v32 = linalg.fill ins(%v31 : f64) outs(%v30 : tensor<12x3xf64>) -> tensor<12x3xf64>
    %v33 = linalg.matmul ins(%v25, %p1 : tensor<12x32xf64>, tensor<32x3xf64>) outs(%v32 : tensor<12x3xf64>) -> tensor<12x3xf64>
    %v34 = "mystery.random_mask"(%v33) : (tensor<12x3xf64>) -> tensor<12x3xf64>
    %v35 = tensor.empty() : tensor<12x3xf64>
    %v36 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v33, %v34 : tensor<12x3xf64>, tensor<12x3xf64>) outs(%v35 : tensor<12x3xf64>) {
    ^bb0(%v37: f64, %v38: f64, %v39: f64):
    %v40 = arith.mulf %v37, %v38 : f64
    linalg.yield %v40 : f64
    } -> tensor<12x3xf64>
    %v41 = tensor.empty() : tensor<12x3xf64>
    %v42 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v36, %v33 : tensor<12x3xf64>, tensor<12x3xf64>) outs(%v41 : tensor<12x3xf64>) {
    ^bb0(%v43: f64, %v44: f64, %v45: f64):
    %v46 = arith.addf %v43, %v44 : f64
    linalg.yield %v46 : f64
    } -> tensor<12x3xf64>
    %v47 = tensor.expand_shape %v42 [[0], [1, 2]] output_shape [12, 1, 3] : tensor<12x3xf64> into tensor<12x1x3xf64>
    %v48 = tensor.empty() : tensor<12x1x3xf64>
    %v49 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v47 : tensor<12x1x3xf64>) outs(%v48 : tensor<12x1x3xf64>) {
    ^bb0(%v50: f64, %v51: f64):
    %v52 = arith.constant 0.000000e+00 : f64
    %v53 = arith.maximumf %v50, %v52 : f64
    linalg.yield %v53 : f64
    } -> tensor<12x1x3xf64>
    %v54 = tensor.collapse_shape %v49 [[0], [1, 2]] : tensor<12x1x3xf64> into tensor<12x3xf64>
    %v55 = "mystery.op"(%v54) : (tensor<12x3xf64>) -> tensor<12x3xf64>
    %v56 = tensor.empty() : tensor<12x3xf64>
    %v57 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v55, %p2 : tensor<12x3xf64>, tensor<3xf64>) outs(%v56 : tensor<12x3xf64>) {
    ^bb0(%v58: f64, %v59: f64, %v60: f64):
    %v61 = arith.addf %v58, %v59 : f64
    linalg.yield %v61 : f64
    } -> tensor<12x3xf64>
    %v62 = tensor.empty() : tensor<12x3xf64>
    %v63 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v57, %v36 : tensor<12x3xf64>, tensor<12x3xf64>) outs(%v62 : tensor<12x3xf64>) {
    ^bb0(%v64: f64, %v65: f64, %v66: f64):
    %v67 = arith.addf %v64, %v65 : f64
    linalg.yield %v67 : f64
    } -> tensor<12x3xf64>
    %v68 = arith.subf %v63, %p3 : tensor<12x3xf64>
    %v69 = tensor.empty() : tensor<f64>
    %v70 = arith.constant 0.000000e+00 : f64
    %v71 = linalg.fill ins(%v70 : f64) outs(%v69 : tensor<f64>) -> tensor<f64>
    %v72 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%v68 : tensor<12x3xf64>) outs(%v71 : tensor<f64>) {
    ^bb0(%v73: f64, %v74: f64):
    %v75 = arith.mulf %v73, %v73 : f64
    %v76 = arith.addf %v75, %v74 : f64
    linalg.yield %v76 : f64
    } -> tensor<f64>
    %v77 = tensor.empty() : tensor<12x3xf64>
    %v78 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v68 : tensor<12x3xf64>) outs(%v77 : tensor<12x3xf64>) {
    ^bb0(%v79: f64, %v80: f64):
    %v81 = arith.addf %v79, %v79 : f64
    linalg.yield %v81 : f64
    } -> tensor<12x3xf64>
    %v82 = tensor.empty() : tensor<3xf64>
    %v83 = arith.constant 0.000000e+00 : f64
    %v84 = linalg.fill ins(%v83 : f64) outs(%v82 : tensor<3xf64>) -> tensor<3xf64>
    %v85 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%v78 : tensor<12x3xf64>) outs(%v84 : tensor<3xf64>) {
    ^bb0(%v86: f64, %v87: f64):
    %v88 = arith.addf %v86, %v87 : f64
    linalg.yield %v88 : f64
    } -> tensor<3xf64>
    %v89 = "mystery.op_grad"(%v54, %v78) : (tensor<12x3xf64>, tensor<12x3xf64>) -> tensor<12x3xf64>
    %v90 = tensor.expand_shape %v42 [[0], [1, 2]] output_shape [12, 1, 3] : tensor<12x3xf64> into tensor<12x1x3xf64>
    %v91 = tensor.expand_shape %v89 [[0], [1, 2]] output_shape [12, 1, 3] : tensor<12x3xf64> into tensor<12x1x3xf64>
    %v92 = tensor.empty() : tensor<12x1x3xf64>
    %v93 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v90, %v91 : tensor<12x1x3xf64>, tensor<12x1x3xf64>) outs(%v92 : tensor<12x1x3xf64>) {
    ^bb0(%v94: f64, %v95: f64, %v96: f64):
    %v97 = arith.constant 0.000000e+00 : f64
    %v98 = arith.cmpf ogt, %v94, %v97 : f64
    %v99 = arith.select %v98, %v95, %v97 : f64
    linalg.yield %v99 : f64
    } -> tensor<12x1x3xf64>
    %v100 = tensor.collapse_shape %v93 [[0], [1, 2]] : tensor<12x1x3xf64> into tensor<12x3xf64>
    %v101 = tensor.empty() : tensor<12x3xf64>
    %v102 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v100, %v78 : tensor<12x3xf64>, tensor<12x3xf64>) outs(%v101 : tensor<12x3xf64>) {
    ^bb0(%v103: f64, %v104: f64, %v105: f64):
    %v106 = arith.addf %v103, %v104 : f64
    linalg.yield %v106 : f64
    } -> tensor<12x3xf64>
    %v107 = tensor.empty() : tensor<12x3xf64>
    %v108 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v102, %v34 : tensor<12x3xf64>, tensor<12x3xf64>) outs(%v107 : tensor<12x3xf64>) {
    ^bb0(%v109: f64, %v110: f64, %v111: f64):
    %v112 = arith.mulf %v109, %v110 : f64
    linalg.yield %v112 : f64
    } -> tensor<12x3xf64>
    %v113 = tensor.empty() : tensor<12x3xf64>
    %v114 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v108, %v100 : tensor<12x3xf64>, tensor<12x3xf64>) outs(%v113 : tensor<12x3xf64>) {
    ^bb0(%v115: f64, %v116: f64, %v117: f64):
    %v118 = arith.addf %v115, %v116 : f64
    linalg.yield %v118 : f64
    } -> tensor<12x3xf64>
    %v119 = tensor.empty() : tensor<32x12xf64>
    %v120 = linalg.transpose ins(%v25 : tensor<12x32xf64>) outs(%v119 : tensor<32x12xf64>) permutation = [1, 0]
    %v121 = tensor.empty() : tensor<32x3xf64>
    %v122 = arith.constant 0.000000e+00 : f64
    %v123 = linalg.fill ins(%v122 : f64) outs(%v121 : tensor<32x3xf64>) -> tensor<32x3xf64>
    %v124 = linalg.matmul ins(%v120, %v114 : tensor<32x12xf64>, tensor<12x3xf64>) outs(%v123 : tensor<32x3xf64>) -> tensor<32x3xf64>
    return %v72, %v85, %v124, %v25, %v36 : tensor<f64>, tensor<3xf64>, tensor<32x3xf64>, tensor<12x32xf64>, tensor<12x3xf64>
  }
}
