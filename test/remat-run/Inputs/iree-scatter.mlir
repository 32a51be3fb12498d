// iree_linalg_ext.scatter as IREE's input phase leaves it in JAX steps
// (generic form: MLIR 22 has no LinalgExt dialect). iree-scatter.test runs
// each function on chosen inputs and checks the outputs against
// iree_scatter_check.py's reference.

// Embedding backward (JAX's params[tokens]): 6 rows of 4 added into an 8x4
// zero table at the token ids; duplicates accumulate in order.
func.func @embedding_backward(%upd: tensor<6x4xf32>, %idx: tensor<6x1xi32>) -> tensor<8x4xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = "iree_linalg_ext.scatter"(%upd, %idx, %z) <{dimension_map = array<i64: 0>, unique_indices = false}> ({
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %o, %u : f32
    "iree_linalg_ext.yield"(%s) : (f32) -> ()
  }) : (tensor<6x4xf32>, tensor<6x1xi32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// take_along_axis backward with two batch dims: scalar updates [2, 3] at
// full positions indices [2, 3, 3] into a 2x3x5 zero tensor (overwrite);
// one position is out of range and skipped.
func.func @take_along_axis_backward(%upd: tensor<2x3xf32>, %idx: tensor<2x3x3xi32>) -> tensor<2x3x5xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x5xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %r = "iree_linalg_ext.scatter"(%upd, %idx, %z) <{dimension_map = array<i64: 0, 1, 2>, unique_indices = true}> ({
  ^bb0(%u: f32, %o: f32):
    "iree_linalg_ext.yield"(%u) : (f32) -> ()
  }) : (tensor<2x3xf32>, tensor<2x3x3xi32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

// Indices without the depth dim (rank = batch rank, depth 1), scattered
// into an argument in place (multiply); an index of -1 is skipped.
func.func @implicit_depth_into_argument(%upd: tensor<4x3xf32>, %idx: tensor<4xi64>, %t: tensor<6x3xf32>) -> tensor<6x3xf32> {
  %r = "iree_linalg_ext.scatter"(%upd, %idx, %t) <{dimension_map = array<i64: 0>, unique_indices = false}> ({
  ^bb0(%u: f32, %o: f32):
    %m = arith.mulf %o, %u : f32
    "iree_linalg_ext.yield"(%m) : (f32) -> ()
  }) : (tensor<4x3xf32>, tensor<4xi64>, tensor<6x3xf32>) -> tensor<6x3xf32>
  return %r : tensor<6x3xf32>
}

// A permuted dimension_map ([1, 0]: column 0 indexes dim 1) with slices of
// the last dim; the original (2 * x) is read again after the scatter, so the
// scatter writes a copy of it.
func.func @permuted_map_copy(%upd: tensor<3x2xf32>, %idx: tensor<3x2xi32>, %x: tensor<4x5x2xf32>) -> (tensor<4x5x2xf32>, tensor<4x5x2xf32>) {
  %e = tensor.empty() : tensor<4x5x2xf32>
  %two = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<4x5x2xf32>) outs(%e : tensor<4x5x2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x5x2xf32>
  %r = "iree_linalg_ext.scatter"(%upd, %idx, %two) <{dimension_map = array<i64: 1, 0>, unique_indices = false}> ({
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %o, %u : f32
    "iree_linalg_ext.yield"(%s) : (f32) -> ()
  }) : (tensor<3x2xf32>, tensor<3x2xi32>, tensor<4x5x2xf32>) -> tensor<4x5x2xf32>
  %e2 = tensor.empty() : tensor<4x5x2xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%two : tensor<4x5x2xf32>) outs(%e2 : tensor<4x5x2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4x5x2xf32>
  return %r, %neg : tensor<4x5x2xf32>, tensor<4x5x2xf32>
}
