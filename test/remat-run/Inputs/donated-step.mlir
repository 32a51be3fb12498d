// A small optimizer step with donated arguments (issue 20, item 7; see
// test/remat-run/donation.test). Sizes: p 1024xf32 = 4096 bytes, m 256xf32 =
// 1024 bytes, w 16x16xf32 = 1024 bytes.
#map = affine_map<(d0) -> (d0)>

// p' = p - 0.5 g is written into p's buffer (p is read by that op alone,
// element by element). m' = 0.9 m + gm cannot be: the last op reads the old
// m after m' is written, so m' gets a buffer of its own, as without donation.
// Donated: d (1024) + m' (1024) = 2048 bytes. Not donated: d, p' (4096), m'.
func.func @step(%p: tensor<1024xf32> {iree.abi.output = 1 : index}, %m: tensor<256xf32> {iree.abi.output = 2 : index},
                %g: tensor<1024xf32>, %gm: tensor<256xf32>) -> (tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>) {
  %half = arith.constant 0.5 : f32
  %beta = arith.constant 0.9 : f32
  %e0 = tensor.empty() : tensor<1024xf32>
  %p2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%p, %g : tensor<1024xf32>, tensor<1024xf32>) outs(%e0 : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %b, %half : f32
    %r = arith.subf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %e1 = tensor.empty() : tensor<256xf32>
  %m2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%m, %gm : tensor<256xf32>, tensor<256xf32>) outs(%e1 : tensor<256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %beta : f32
    %r = arith.addf %s, %b : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  %e2 = tensor.empty() : tensor<256xf32>
  %d = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%m2, %m : tensor<256xf32>, tensor<256xf32>) outs(%e2 : tensor<256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<256xf32>
  return %d, %p2, %m2 : tensor<256xf32>, tensor<1024xf32>, tensor<256xf32>
}

// Through a chain of destinations: the fill and the matmul write w' into w's
// buffer (w is not read): 0 bytes donated, 1024 not.
func.func @chain(%w: tensor<16x16xf32> {iree.abi.output = 0 : index}, %x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%x, %x : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// The matmul reads w after the fill would write it: the fill writes a new
// buffer, donated or not (1024 bytes).
func.func @chain_reads(%w: tensor<16x16xf32> {iree.abi.output = 0 : index}, %x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r = linalg.matmul ins(%w, %x : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// A donated argument returned unchanged is handed back as it is; not donated,
// the deallocation pipeline copies it (4096 bytes, aligned to 16). Its second
// return is copied either way: 4096 bytes donated, 8192 not.
func.func @identity(%p: tensor<1024xf32> {iree.abi.output = 0 : index}) -> (tensor<1024xf32>, tensor<1024xf32>) {
  return %p, %p : tensor<1024xf32>, tensor<1024xf32>
}

// The update returned twice: in the argument's buffer at its donated position,
// copied (4096 bytes) at the other; not donated, p' (4096) is returned as it
// is at both (the deallocation pipeline copies no buffer the step owns).
// 4096 bytes either way.
func.func @returned_twice(%p: tensor<1024xf32> {iree.abi.output = 1 : index}, %g: tensor<1024xf32>)
    -> (tensor<1024xf32>, tensor<1024xf32>) {
  %e0 = tensor.empty() : tensor<1024xf32>
  %p2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%p, %g : tensor<1024xf32>, tensor<1024xf32>) outs(%e0 : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  return %p2, %p2 : tensor<1024xf32>, tensor<1024xf32>
}

// No donation: a buffer the step allocated, returned with a view of it, is
// not copied either (4096 bytes).
func.func @with_view(%p: tensor<1024xf32>, %g: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<32x32xf32>) {
  %e0 = tensor.empty() : tensor<1024xf32>
  %p2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%p, %g : tensor<1024xf32>, tensor<1024xf32>) outs(%e0 : tensor<1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %v = tensor.expand_shape %p2 [[0, 1]] output_shape [32, 32] : tensor<1024xf32> into tensor<32x32xf32>
  return %p2, %v : tensor<1024xf32>, tensor<32x32xf32>
}
