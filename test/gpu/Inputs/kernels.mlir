// A matmul and three reductions with different shapes, for the launch-shape
// test (kernels.test).
func.func @step(%a: tensor<256x128xf32>, %b: tensor<128x64xf32>, %r: tensor<256x512xf32>,
                %c: tensor<1024x32xf32>, %s: tensor<64x64xf32>)
    -> (tensor<256x64xf32>, tensor<256xf32>, tensor<32xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<256x64xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<256x64xf32>) -> tensor<256x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<256x128xf32>, tensor<128x64xf32>) outs(%f0 : tensor<256x64xf32>) -> tensor<256x64xf32>
  // 256 outputs of 512 values: one thread per output.
  %e1 = tensor.empty() : tensor<256xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<256xf32>) -> tensor<256xf32>
  %rows = linalg.reduce ins(%r : tensor<256x512xf32>) outs(%f1 : tensor<256xf32>) dimensions = [1]
    (%x: f32, %acc: f32) { %y = arith.addf %x, %acc : f32
      linalg.yield %y : f32 }
  // 32 outputs of 1024 values (a bias gradient): split.
  %e2 = tensor.empty() : tensor<32xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32xf32>) -> tensor<32xf32>
  %cols = linalg.reduce ins(%c : tensor<1024x32xf32>) outs(%f2 : tensor<32xf32>) dimensions = [0]
    (%x: f32, %acc: f32) { %y = arith.addf %x, %acc : f32
      linalg.yield %y : f32 }
  // One output of 4096 values (a loss): split.
  %e3 = tensor.empty() : tensor<f32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%s : tensor<64x64xf32>) outs(%f3 : tensor<f32>) dimensions = [0, 1]
    (%x: f32, %acc: f32) { %y = arith.addf %x, %acc : f32
      linalg.yield %y : f32 }
  return %mm, %rows, %cols, %sum : tensor<256x64xf32>, tensor<256xf32>, tensor<32xf32>, tensor<f32>
}
