// An f64 dot product: two f64 temporaries read by one reduction. Not a
// variance: the reduction forcing the bound gets a generic description.
#id = affine_map<(i) -> (i)>
#sc = affine_map<(i) -> ()>
func.func @dot(%x: tensor<1024xf64>, %y: tensor<1024xf64>) -> tensor<f64> {
  %zero = arith.constant 0.0 : f64
  %e1 = tensor.empty() : tensor<1024xf64>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf64>) outs(%e1 : tensor<1024xf64>) {
  ^bb0(%v: f64, %o: f64):
    %r = math.exp %v : f64
    linalg.yield %r : f64
  } -> tensor<1024xf64>
  %e2 = tensor.empty() : tensor<1024xf64>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<1024xf64>) outs(%e2 : tensor<1024xf64>) {
  ^bb0(%v: f64, %o: f64):
    %r = math.exp %v : f64
    linalg.yield %r : f64
  } -> tensor<1024xf64>
  %es = tensor.empty() : tensor<f64>
  %s0 = linalg.fill ins(%zero : f64) outs(%es : tensor<f64>) -> tensor<f64>
  %s = linalg.generic {indexing_maps = [#id, #id, #sc], iterator_types = ["reduction"]}
      ins(%a, %b : tensor<1024xf64>, tensor<1024xf64>) outs(%s0 : tensor<f64>) {
  ^bb0(%u: f64, %v: f64, %o: f64):
    %m = arith.mulf %u, %v : f64
    %t = arith.addf %m, %o : f64
    linalg.yield %t : f64
  } -> tensor<f64> loc("model.attention.scores")
  return %s : tensor<f64>
}
