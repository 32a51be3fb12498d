// A hand-made step with dropout state as torch-mlir exports it: the RNG seed
// lives in a mutable ml_program.global that each step loads, advances (an
// LCG step) and stores back; the mask of the dropout is drawn from the new
// seed, so the outputs of step 2 differ from those of step 1.
#id = affine_map<(i) -> (i)>
module {
  ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
  func.func @dropout_step(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<f32>) {
    %mul = arith.constant 6364136223846793005 : i64
    %inc = arith.constant 1442695040888963407 : i64
    %zero = arith.constant 0.0 : f32
    %seed = ml_program.global_load @global_seed : tensor<i64>
    %s = tensor.extract %seed[] : tensor<i64>
    %m = arith.muli %s, %mul : i64
    %n = arith.addi %m, %inc : i64
    %next = tensor.insert %n into %seed[] : tensor<i64>
    ml_program.global_store @global_seed = %next : tensor<i64>
    %e = tensor.empty() : tensor<64xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%a: f32, %o: f32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i64
      %bit = arith.shrui %n, %ii : i64
      %keep = arith.trunci %bit : i64 to i1
      %r = arith.select %keep, %a, %zero : f32
      linalg.yield %r : f32
    } -> tensor<64xf32>
    %es = tensor.empty() : tensor<f32>
    %s0 = linalg.fill ins(%zero : f32) outs(%es : tensor<f32>) -> tensor<f32>
    %sum = linalg.generic {indexing_maps = [#id, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
        ins(%y : tensor<64xf32>) outs(%s0 : tensor<f32>) {
    ^bb0(%a: f32, %o: f32):
      %t = arith.addf %a, %o : f32
      linalg.yield %t : f32
    } -> tensor<f32>
    return %y, %sum : tensor<64xf32>, tensor<f32>
  }
}
