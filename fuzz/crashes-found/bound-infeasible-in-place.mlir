// remat-fuzz finding (hard invariant): a plan within a budget the recompute
// cost bound called infeasible ("no schedule fits the budget: 576 bytes are
// live at op 8 in every schedule").
//
//   remat-opt --planner=default --budget=448 --report=json bound-infeasible-in-place.mlir
//   -> peak 640 before, 448 after; the bound's note then said no schedule fits
//
// `arith.subf %v14, %p1` is normalized into a linalg.generic whose
// destination is %v14, a relu the function also returns, so in the input
// One-Shot Bufferize writes the difference out of place and the bound counted
// both buffers at the subtraction. The plan recomputes the relu for the
// return, after which the difference is written in place (the simulation's
// freedDestination). The bound now takes back, at such an op, the smaller of
// the two buffers (lib/RecomputeBound.c, sharedWithDestination); it is the
// plan's cost there. The same pattern as under-lower-bound-in-place.mlir,
// for the memory bound.
module {
  func.func @step(%p0: tensor<24x3xbf16>, %p1: tensor<24x3xbf16>) -> (tensor<bf16>, tensor<24x3xbf16>, tensor<24x3xbf16>) {
    %v0 = tensor.expand_shape %p0 [[0], [1, 2]] output_shape [24, 3, 1] : tensor<24x3xbf16> into tensor<24x3x1xbf16>
    %v1 = tensor.empty() : tensor<24x3x1xbf16>
    %v2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v0 : tensor<24x3x1xbf16>) outs(%v1 : tensor<24x3x1xbf16>) {
    ^bb0(%v3: bf16, %v4: bf16):
    %v5 = arith.constant 0.000000e+00 : bf16
    %v6 = arith.maximumf %v3, %v5 : bf16
    linalg.yield %v6 : bf16
    } -> tensor<24x3x1xbf16>
    %v7 = tensor.collapse_shape %v2 [[0], [1, 2]] : tensor<24x3x1xbf16> into tensor<24x3xbf16>
    %v8 = tensor.empty() : tensor<24x3xbf16>
    %v9 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v7 : tensor<24x3xbf16>) outs(%v8 : tensor<24x3xbf16>) {
    ^bb0(%v10: bf16, %v11: bf16):
    %v12 = "mystery.scalar"(%v10) : (bf16) -> bf16
    linalg.yield %v12 : bf16
    } -> tensor<24x3xbf16>
    %v13 = tensor.empty() : tensor<24x3xbf16>
    %v14 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v9 : tensor<24x3xbf16>) outs(%v13 : tensor<24x3xbf16>) {
    ^bb0(%v15: bf16, %v16: bf16):
    %v17 = arith.constant 0.000000e+00 : bf16
    %v18 = arith.maximumf %v15, %v17 : bf16
    linalg.yield %v18 : bf16
    } -> tensor<24x3xbf16>
    %v19 = arith.subf %v14, %p1 : tensor<24x3xbf16>
    %v20 = tensor.empty() : tensor<bf16>
    %v21 = arith.constant 0.000000e+00 : bf16
    %v22 = linalg.fill ins(%v21 : bf16) outs(%v20 : tensor<bf16>) -> tensor<bf16>
    %v23 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%v19 : tensor<24x3xbf16>) outs(%v22 : tensor<bf16>) {
    ^bb0(%v24: bf16, %v25: bf16):
    %v26 = arith.mulf %v24, %v24 : bf16
    %v27 = arith.addf %v26, %v25 : bf16
    linalg.yield %v27 : bf16
    } -> tensor<bf16>
    return %v23, %v9, %v14 : tensor<bf16>, tensor<24x3xbf16>, tensor<24x3xbf16>
  }
}
