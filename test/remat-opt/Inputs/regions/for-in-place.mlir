// scf.for loops on tensors that allocate nothing once bufferized: modelled
// (one program point; an init written out of place is copied before the
// loop), estimate = measured.
#map = affine_map<(d0) -> (d0)>
// Accumulates into its iter_arg in place.
func.func @accumulate(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<64xf32>
  %x = linalg.add ins(%a, %b : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> tensor<64xf32> {
    %n = linalg.add ins(%acc, %a : tensor<64xf32>, tensor<64xf32>) outs(%acc : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %n : tensor<64xf32>
  }
  %e2 = tensor.empty() : tensor<64xf32>
  %y = linalg.mul ins(%r, %b : tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  return %y : tensor<64xf32>
}
// Its init is read after the loop: One-Shot copies it into a new buffer
// before the loop.
func.func @init_read_later(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<64xf32>
  %x = linalg.add ins(%a, %b : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> tensor<64xf32> {
    %n = linalg.add ins(%acc, %a : tensor<64xf32>, tensor<64xf32>) outs(%acc : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %n : tensor<64xf32>
  }
  %e2 = tensor.empty() : tensor<64xf32>
  %y = linalg.mul ins(%r, %x : tensor<64xf32>, tensor<64xf32>) outs(%e2 : tensor<64xf32>) -> tensor<64xf32>
  return %y : tensor<64xf32>
}
// A scan: row i of the result computed from row i of the input, written
// into its slice of the carried tensor in place.
func.func @scan(%in: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %init) -> tensor<8x16xf32> {
    %row = tensor.extract_slice %in[%i, 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<16xf32>
    %dst = tensor.extract_slice %acc[%i, 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<16xf32>
    %t = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%row : tensor<16xf32>) outs(%dst : tensor<16xf32>) {
    ^bb0(%v: f32, %o: f32):
      %m = arith.mulf %v, %v : f32
      linalg.yield %m : f32
    } -> tensor<16xf32>
    %next = tensor.insert_slice %t into %acc[%i, 0] [1, 16] [1, 1] : tensor<16xf32> into tensor<8x16xf32>
    scf.yield %next : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}
