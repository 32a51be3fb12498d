// remat-fuzz finding (hard invariant), a second sqrt simulation mismatch:
//
//   remat-opt --planner=sqrt --budget=93% --report=json sqrt-simulation-mismatch-2.mlir
//   -> remat-opt: internal error: the plan's simulation predicted a peak of 13312
//      bytes, the rewritten function has 12288 (peak before 19456)
//
// Found at eb80c85 (the sqrt planner rewritten to cut at layer boundaries, so a
// different planner than the one that produced sqrt-simulation-mismatch.mlir),
// still at bef2b82; every budget from the lower bound (8192) up shows it. The
// same ingredient: %v0 = `arith.mulf %p0, %p0` on tensors is normalized into a
// linalg.generic writing into the argument %p0, which %v13 reads later, and
// %v0 is read late (by the transpose %v109). Minimized from a 121-line step by
// deleting ops and passing their results as (here unused-looking) arguments;
// the argument list matters to the planner's choices, so it is left as found.
// test/fuzz/sqrt-simulation-mismatch-2.test replays it (XFAIL until fixed).
func.func @step(%p0: tensor<32x32xf32>, %p1: tensor<32x24xf32>, %p2: tensor<24x32xf32>, %p3: tensor<32x16xf32>, %a0: f32, %a1: tensor<32x24xf32>, %a2: tensor<32x32xf32>, %a3: f32, %a4: tensor<32x24xf32>, %a5: tensor<32x24xf32>, %a6: f32, %a7: tensor<24x32xf32>, %a8: tensor<32x16xf32>, %a9: tensor<32x32xf32>, %a10: f32, %a11: tensor<32xf32>, %a12: f32, %a13: tensor<32x32xf32>, %a14: tensor<16x32xf32>, %a15: f32, %a16: tensor<32x32xf32>, %a17: tensor<32x16xf32>, %a18: tensor<32x16xf32>, %a19: f32, %a20: tensor<f32>, %a21: tensor<32x16xf32>, %a22: tensor<32x16xf32>, %a23: f32, %a24: f32, %a25: tensor<32xf32>, %a26: tensor<32x16xf32>, %a27: f32, %a28: tensor<32x32xf32>, %a29: f32, %a30: tensor<32x24xf32>, %a31: tensor<32x24xf32>, %a32: tensor<24x32xf32>, %a33: tensor<32xf32>, %a34: tensor<32x32xf32>, %a35: tensor<32x16xf32>, %a36: tensor<32x16xf32>, %a37: tensor<f32>, %a38: tensor<32xf32>, %a39: tensor<32x32xf32>, %a40: tensor<24x32xf32>, %a41: tensor<f32>, %a42: tensor<32xf32>, %a43: tensor<32x32xf32>, %a44: tensor<32x16xf32>, %a45: tensor<32x32xf32>) -> (tensor<32x16xf32>, tensor<24x32xf32>, tensor<32x24xf32>) {
  %v0 = arith.mulf %p0, %p0 : tensor<32x32xf32>
  %v1 = tensor.empty() : tensor<32x24xf32>
  %v3 = linalg.fill ins(%a29 : f32) outs(%v1 : tensor<32x24xf32>) -> tensor<32x24xf32>
  %v4 = linalg.matmul ins(%v0, %p1 : tensor<32x32xf32>, tensor<32x24xf32>) outs(%v3 : tensor<32x24xf32>) -> tensor<32x24xf32>
  %v12 = tensor.empty() : tensor<32x32xf32>
  %v13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a45, %p0 : tensor<32x32xf32>, tensor<32x32xf32>) outs(%v12 : tensor<32x32xf32>) {
  ^bb0(%v14: f32, %v15: f32, %v16: f32):
  %v17 = arith.addf %v14, %v15 : f32
  linalg.yield %v17 : f32
  } -> tensor<32x32xf32>
  %v25 = tensor.empty() : tensor<32x32xf32>
  %v26 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v13, %a42 : tensor<32x32xf32>, tensor<32xf32>) outs(%v25 : tensor<32x32xf32>) {
  ^bb0(%v27: f32, %v28: f32, %v29: f32):
  %v30 = arith.mulf %v27, %v28 : f32
  linalg.yield %v30 : f32
  } -> tensor<32x32xf32>
  %v31 = tensor.empty() : tensor<32x16xf32>
  %v33 = linalg.fill ins(%a23 : f32) outs(%v31 : tensor<32x16xf32>) -> tensor<32x16xf32>
  %v34 = linalg.matmul ins(%v26, %p3 : tensor<32x32xf32>, tensor<32x16xf32>) outs(%v33 : tensor<32x16xf32>) -> tensor<32x16xf32>
  %v36 = tensor.empty() : tensor<32x16xf32>
  %v37 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a22, %v34 : tensor<32x16xf32>, tensor<32x16xf32>) outs(%v36 : tensor<32x16xf32>) {
  ^bb0(%v38: f32, %v39: f32, %v40: f32):
  %v41 = arith.addf %v38, %v39 : f32
  linalg.yield %v41 : f32
  } -> tensor<32x16xf32>
  %v56 = "mystery.op_grad"(%v37, %a36) : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x16xf32>
  %v59 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a35, %v56 : tensor<32x16xf32>, tensor<32x16xf32>) outs(%a17 : tensor<32x16xf32>) {
  ^bb0(%v60: f32, %v61: f32, %v62: f32):
  %v63 = arith.addf %v60, %v61 : f32
  linalg.yield %v63 : f32
  } -> tensor<32x16xf32>
  %v65 = linalg.transpose ins(%v26 : tensor<32x32xf32>) outs(%a16 : tensor<32x32xf32>) permutation = [1, 0]
  %v66 = tensor.empty() : tensor<32x16xf32>
  %v68 = linalg.fill ins(%a15 : f32) outs(%v66 : tensor<32x16xf32>) -> tensor<32x16xf32>
  %v69 = linalg.matmul ins(%v65, %v59 : tensor<32x32xf32>, tensor<32x16xf32>) outs(%v68 : tensor<32x16xf32>) -> tensor<32x16xf32>
  %v71 = linalg.transpose ins(%p3 : tensor<32x16xf32>) outs(%a14 : tensor<16x32xf32>) permutation = [1, 0]
  %v75 = linalg.matmul ins(%v59, %v71 : tensor<32x16xf32>, tensor<16x32xf32>) outs(%a34 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %v79 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%v75, %v13 : tensor<32x32xf32>, tensor<32x32xf32>) outs(%a33 : tensor<32xf32>) {
  ^bb0(%v80: f32, %v81: f32, %v82: f32):
  %v83 = arith.mulf %v80, %v81 : f32
  %v84 = arith.addf %v83, %v82 : f32
  linalg.yield %v84 : f32
  } -> tensor<32xf32>
  %v86 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v75, %a42, %v79 : tensor<32x32xf32>, tensor<32xf32>, tensor<32xf32>) outs(%a9 : tensor<32x32xf32>) {
  ^bb0(%v87: f32, %v88: f32, %v89: f32, %v90: f32):
  %v91 = arith.mulf %v87, %v88 : f32
  %v92 = arith.addf %v91, %v89 : f32
  linalg.yield %v92 : f32
  } -> tensor<32x32xf32>
  %v93 = tensor.extract_slice %v86[0, 0] [32, 16] [1, 1] : tensor<32x32xf32> to tensor<32x16xf32>
  %v95 = tensor.concat dim(1) %a8, %v93 : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x32xf32>
  %v97 = linalg.transpose ins(%v4 : tensor<32x24xf32>) outs(%a40 : tensor<24x32xf32>) permutation = [1, 0]
  %v101 = linalg.matmul ins(%v97, %v95 : tensor<24x32xf32>, tensor<32x32xf32>) outs(%a32 : tensor<24x32xf32>) -> tensor<24x32xf32>
  %v103 = linalg.transpose ins(%p2 : tensor<24x32xf32>) outs(%a5 : tensor<32x24xf32>) permutation = [1, 0]
  %v107 = linalg.matmul ins(%v95, %v103 : tensor<32x32xf32>, tensor<32x24xf32>) outs(%a31 : tensor<32x24xf32>) -> tensor<32x24xf32>
  %v109 = linalg.transpose ins(%v0 : tensor<32x32xf32>) outs(%a2 : tensor<32x32xf32>) permutation = [1, 0]
  %v113 = linalg.matmul ins(%v109, %v107 : tensor<32x32xf32>, tensor<32x24xf32>) outs(%a30 : tensor<32x24xf32>) -> tensor<32x24xf32>
  return %v69, %v101, %v113 : tensor<32x16xf32>, tensor<24x32xf32>, tensor<32x24xf32>
}
