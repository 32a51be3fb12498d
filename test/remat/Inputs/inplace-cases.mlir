// Cases for remat's own in-place analysis (lib/InPlace.c), one rule of
// One-Shot Bufferize's each; test/remat/inplace-analysis.test checks that
// remat decides every function itself and exactly as MLIR does. The comment
// above each function says what MLIR decides.
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// A destination read again after the write: the write goes out of place.
func.func @read_after_write(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%f : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  return %x, %y : tensor<4x4xf32>, tensor<4x4xf32>
}

// Writing into a function argument is allowed; into a constant it is not.
func.func @argument_and_constant(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %k = arith.constant dense<2.0> : tensor<4x4xf32>
  %x = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%a : tensor<4x4xf32>) {
  ^bb0(%out: f32):
    %s = arith.addf %out, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %y = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%k : tensor<4x4xf32>) {
  ^bb0(%out: f32):
    %s = arith.mulf %out, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %x, %y : tensor<4x4xf32>, tensor<4x4xf32>
}

// The same value as input and destination of an element-wise op: in place;
// through a transposing map: out of place.
func.func @elementwise_exemption(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %y = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<4x4xf32>) outs(%b : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %x, %y : tensor<4x4xf32>, tensor<4x4xf32>
}

// A view of a value written later while the view is still read.
func.func @view_then_write(%a: tensor<4x4xf32>) -> (tensor<16xf32>, tensor<4x4xf32>) {
  %v = tensor.collapse_shape %a [[0, 1]] : tensor<4x4xf32> into tensor<16xf32>
  %x = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%a : tensor<4x4xf32>) {
  ^bb0(%out: f32):
    %s = arith.addf %out, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<16xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%v : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16xf32>
  return %w, %x : tensor<16xf32>, tensor<4x4xf32>
}

// A tensor.extract in the body reads the destination's buffer: out of place.
func.func @nested_extract(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %x = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%a : tensor<4x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %t = tensor.extract %a[%j, %i] : tensor<4x4xf32>
    %s = arith.addf %out, %t : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %x : tensor<4x4xf32>
}

// insert_slice into a shared zero fill (a padding and its gradient), one
// insert that overwrites its whole destination, and a fill read after.
func.func @insert_slices(%a: tensor<2x2xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = tensor.insert_slice %a into %f[1, 1] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
  %q = tensor.insert_slice %a into %f[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
  %r = tensor.insert_slice %b into %f[0, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x4xf32>
  return %p, %q, %r, %f : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// Two results whose destinations are the same value.
func.func @two_results(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %e = tensor.empty() : tensor<4x4xf32>
  %x:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x4xf32>) outs(%e, %e : tensor<4x4xf32>, tensor<4x4xf32>) {
  ^bb0(%in: f32, %o1: f32, %o2: f32):
    %s = arith.addf %in, %in : f32
    linalg.yield %s, %in : f32, f32
  } -> (tensor<4x4xf32>, tensor<4x4xf32>)
  return %x#0, %x#1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// A chain of in-place writes whose first value is read at the end, and a
// cast between a destination and its reader.
func.func @chain(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %x = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%a : tensor<4x4xf32>) {
  ^bb0(%out: f32):
    %s = arith.addf %out, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %d = tensor.cast %x : tensor<4x4xf32> to tensor<4x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%d : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.mulf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x4xf32>) outs(%y : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.subf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %z, %x : tensor<4x4xf32>, tensor<4x4xf32>
}

// A slice extracted, written and inserted back into the same tensor: One-Shot's
// matching-subset rules decide it in place; remat leaves such steps to MLIR.
func.func @matching_subsets(%t: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c = arith.constant 1.0 : f32
  %s = tensor.extract_slice %t[0, 0] [2, 2] [1, 1] : tensor<4x4xf32> to tensor<2x2xf32>
  %f = linalg.fill ins(%c : f32) outs(%s : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = tensor.insert_slice %f into %t[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// A --budgets dispatcher (docs/variants.md): its tensors all come from calls
// under an scf.if, so no in-place decision is left: remat covers it (One-Shot
// on the whole module took minutes at LLM sizes). The callee writes into its
// argument; the dispatcher reads %t once more after the if.
func.func private @fits(i64) -> i64
func.func private @writes_its_argument(%t: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %c = arith.constant 1.0 : f32
  %f = linalg.fill ins(%c : f32) outs(%t : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %f : tensor<4x4xf32>
}
func.func @dispatcher(%t: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %c0 = arith.constant 0 : i64
  %n = arith.constant 64 : i64
  %ok = call @fits(%n) : (i64) -> i64
  %b = arith.cmpi ne, %ok, %c0 : i64
  %r = scf.if %b -> (tensor<4x4xf32>) {
    %x = func.call @writes_its_argument(%t) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %x : tensor<4x4xf32>
  } else {
    %y = func.call @writes_its_argument(%t) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %y : tensor<4x4xf32>
  }
  %e = tensor.cast %t : tensor<4x4xf32> to tensor<4x4xf32>
  return %r, %e : tensor<4x4xf32>, tensor<4x4xf32>
}

// The same with a write at the top level: whether it may be in place depends
// on what the callee writes (One-Shot's function summaries): left to MLIR.
func.func @dispatcher_and_a_write(%t: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %c0 = arith.constant 0 : i64
  %c = arith.constant 2.0 : f32
  %ok = call @fits(%c0) : (i64) -> i64
  %b = arith.cmpi ne, %ok, %c0 : i64
  %e = tensor.empty() : tensor<4x4xf32>
  %w = linalg.fill ins(%c : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = scf.if %b -> (tensor<4x4xf32>) {
    %x = func.call @writes_its_argument(%w) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %x : tensor<4x4xf32>
  } else {
    scf.yield %w : tensor<4x4xf32>
  }
  return %r, %w : tensor<4x4xf32>, tensor<4x4xf32>
}

// An if that yields an outer tensor makes its result alias it: left to MLIR.
func.func @if_yields_outer(%t: tensor<4x4xf32>, %b: i1) -> tensor<4x4xf32> {
  %r = scf.if %b -> (tensor<4x4xf32>) {
    %x = func.call @writes_its_argument(%t) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %x : tensor<4x4xf32>
  } else {
    scf.yield %t : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}
