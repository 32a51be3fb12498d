// tm_tensor.scatter as torch-mlir exports it (generic form: MLIR 22 has no
// TMTensor dialect). scatter.test runs each function on chosen inputs and
// checks the outputs against scatter_check.py's reference.
#id = affine_map<(d0, d1) -> (d0, d1)>

// Embedding backward: 6 rows of 4 added into an 8x4 zero table at the
// token ids (duplicates accumulate, in order of the updates).
func.func @embedding_backward(%upd: tensor<6x1x4xf32>, %idx: tensor<6x1xi64>) -> tensor<8x4xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = "tm_tensor.scatter"(%upd, %idx, %z) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %o, %u : f32
    "tm_tensor.yield"(%s) : (f32) -> ()
  }) : (tensor<6x1x4xf32>, tensor<6x1xi64>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// NLL-loss backward: one value per row written (overwrite combiner) at
// (row, target) into a 5x7 zero tensor; dimension_map [0, 1], scalar slices.
func.func @nll_backward(%src: tensor<5xf32>, %idx: tensor<5x2xi64>) -> tensor<5x7xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x7xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<5x7xf32>) -> tensor<5x7xf32>
  %r = "tm_tensor.scatter"(%src, %idx, %z) <{dimension_map = array<i64: 0, 1>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
  ^bb0(%u: f32, %o: f32):
    "tm_tensor.yield"(%u) : (f32) -> ()
  }) : (tensor<5xf32>, tensor<5x2xi64>, tensor<5x7xf32>) -> tensor<5x7xf32>
  return %r : tensor<5x7xf32>
}

// index_add along dim 1 of a 4x3x5 tensor: the index moves the middle dim,
// slices of 4x1x5; the original is computed (2 * x) and read again after the
// scatter, so the scatter writes a copy of it.
func.func @index_add_copy(%upd: tensor<3x4x1x5xf32>, %idx: tensor<3x1xi32>, %x: tensor<4x3x5xf32>) -> (tensor<4x3x5xf32>, tensor<4x3x5xf32>) {
  %e = tensor.empty() : tensor<4x3x5xf32>
  %two = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<4x3x5xf32>) outs(%e : tensor<4x3x5xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x3x5xf32>
  %r = "tm_tensor.scatter"(%upd, %idx, %two) <{dimension_map = array<i64: 1>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %o, %u : f32
    "tm_tensor.yield"(%s) : (f32) -> ()
  }) : (tensor<3x4x1x5xf32>, tensor<3x1xi32>, tensor<4x3x5xf32>) -> tensor<4x3x5xf32>
  %e2 = tensor.empty() : tensor<4x3x5xf32>
  %neg = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%two : tensor<4x3x5xf32>) outs(%e2 : tensor<4x3x5xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.negf %a : f32
    linalg.yield %s : f32
  } -> tensor<4x3x5xf32>
  return %r, %neg : tensor<4x3x5xf32>, tensor<4x3x5xf32>
}

// A scatter into the caller's argument: written in place there, and the
// returned value is then copied out (the caller must own its results).
func.func @into_argument(%upd: tensor<2x3xf32>, %idx: tensor<2x1xi64>, %t: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r = "tm_tensor.scatter"(%upd, %idx, %t) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = true}> ({
  ^bb0(%u: f32, %o: f32):
    %s = arith.mulf %o, %u : f32
    "tm_tensor.yield"(%s) : (f32) -> ()
  }) : (tensor<2x3xf32>, tensor<2x1xi64>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
