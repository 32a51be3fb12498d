// Scatters between other ops, whose deallocations lib/Dealloc.c places
// (test/remat-run/scatter-dealloc.test): buffers read inside the scatter
// loops, the carried buffers read after them, a second scatter writing in
// place into a buffer computed from the first's result.
#id = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// The doubled updates are read inside the loop (freed after it); the
// scattered table is read by the product after it (freed after that).
func.func @scatter_temps(%upd: tensor<6x1x4xf32>, %idx: tensor<6x1xi64>, %x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %cst = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<6x1x4xf32>
  %u2 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%upd : tensor<6x1x4xf32>) outs(%e1 : tensor<6x1x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.addf %in, %in : f32
    linalg.yield %d : f32
  } -> tensor<6x1x4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = "tm_tensor.scatter"(%u2, %idx, %z) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %o, %u : f32
    "tm_tensor.yield"(%s) : (f32) -> ()
  }) : (tensor<6x1x4xf32>, tensor<6x1xi64>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%r, %x : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e2 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// Two scatters in a chain: the first's table times %x, then the same
// updates scattered into that product at other indices; the first table is
// also returned.
func.func @scatter_chain(%upd: tensor<6x1x4xf32>, %idx: tensor<6x1xi64>, %idx2: tensor<6x1xi64>, %x: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %r = "tm_tensor.scatter"(%upd, %idx, %z) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %o, %u : f32
    "tm_tensor.yield"(%s) : (f32) -> ()
  }) : (tensor<6x1x4xf32>, tensor<6x1xi64>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%r, %x : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e2 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x4xf32>
  %r2 = "tm_tensor.scatter"(%upd, %idx2, %p) <{dimension_map = array<i64: 0>, operandSegmentSizes = array<i32: 2, 1>, unique_indices = false}> ({
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %o, %u : f32
    "tm_tensor.yield"(%s) : (f32) -> ()
  }) : (tensor<6x1x4xf32>, tensor<6x1xi64>, tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r2, %r : tensor<8x4xf32>, tensor<8x4xf32>
}
