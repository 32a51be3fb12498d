// A hand-made step with two pieces of state, kept in host memory by the GPU
// lowering (docs/gpu.md, step 3b): an RNG seed (tensor<i64>, advanced by an
// LCG step as torch-mlir's dropout does) and a counter pair (tensor<2xi32>:
// element 1 counts the steps). The mask reads the new seed, the scale the
// count: both reach their kernels as arguments read on the host.
#id = affine_map<(i) -> (i)>
module {
  ml_program.global private mutable @seed(dense<7> : tensor<i64>) : tensor<i64>
  ml_program.global private mutable @counters(dense<[5, 0]> : tensor<2xi32>) : tensor<2xi32>
  func.func @state_step(%x: tensor<32xf32>) -> tensor<32xf32> {
    %mul = arith.constant 6364136223846793005 : i64
    %inc = arith.constant 1442695040888963407 : i64
    %one = arith.constant 1 : i32
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %seed = ml_program.global_load @seed : tensor<i64>
    %s = tensor.extract %seed[] : tensor<i64>
    %m = arith.muli %s, %mul : i64
    %n = arith.addi %m, %inc : i64
    %next = tensor.insert %n into %seed[] : tensor<i64>
    ml_program.global_store @seed = %next : tensor<i64>
    %cs = ml_program.global_load @counters : tensor<2xi32>
    %k = tensor.extract %cs[%c1] : tensor<2xi32>
    %k1 = arith.addi %k, %one : i32
    %cs1 = tensor.insert %k1 into %cs[%c1] : tensor<2xi32>
    ml_program.global_store @counters = %cs1 : tensor<2xi32>
    %scale = arith.sitofp %k1 : i32 to f32
    %e = tensor.empty() : tensor<32xf32>
    %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%x : tensor<32xf32>) outs(%e : tensor<32xf32>) {
    ^bb0(%a: f32, %o: f32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i64
      %bit = arith.shrui %n, %ii : i64
      %keep = arith.trunci %bit : i64 to i1
      %v = arith.mulf %a, %scale : f32
      %r = arith.select %keep, %v, %zero : f32
      linalg.yield %r : f32
    } -> tensor<32xf32>
    return %y : tensor<32xf32>
  }
}
