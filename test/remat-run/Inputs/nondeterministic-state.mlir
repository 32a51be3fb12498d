// dropout-state.mlir made really non-deterministic: the kept values are also
// scaled by libc's rand(), whose hidden state no global holds, so step 1 run
// again from the same seed gives other outputs.
#id = affine_map<(i) -> (i)>
module {
  ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
  func.func private @rand() -> i32
  func.func @dropout_step(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<f32>) {
    %mul = arith.constant 6364136223846793005 : i64
    %inc = arith.constant 1442695040888963407 : i64
    %zero = arith.constant 0.0 : f32
    %rnd = func.call @rand() : () -> i32
    %scale = arith.sitofp %rnd : i32 to f32
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
      %scaled = arith.mulf %a, %scale : f32
      %r = arith.select %keep, %scaled, %zero : f32
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
