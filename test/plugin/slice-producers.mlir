// UNSUPPORTED: sanitize
// The plugin's remat-slice-producers (lib/SliceProducers.c): a static,
// unit-stride extract_slice of a value nothing else reads moves above its
// producer, which then computes only the slice. @conv_grad has torch-mlir's
// shape of a strided convolution's weight gradient: a convolution over the
// whole grid, collapsed, sliced twice, expanded. The two slices merge, move
// above the collapse_shape (whole on the collapsed dim) and into the
// convolution, which then writes 2x8x3x3 instead of 2x8x4x4 from the box of
// its input those outputs read (rows and columns 1-5) into a smaller fill of
// a smaller empty. Not moved: a slice of an op whose body reads its loop
// index (@reads_index: the sliced op would see other indices), a slice of a
// value something else reads (@other_reader), and a slice whose input box is
// not one contiguous run (IREE copies it) and larger than the bytes the slice
// saves (@input_copy_dearer: 2,048 bytes copied to save 672). Results are the
// same, bit for bit (remat-run, the first function's), and the estimated peak
// falls (remat-opt --estimate, and remat-run's measured peak).
// RUN: mlir-opt --load-pass-plugin=%plugin --pass-pipeline='builtin.module(func.func(remat-slice-producers))' %s -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// CHECK-LABEL: func.func @conv_grad
// CHECK-NOT: tensor<2x8x4x4xf32>
// CHECK: [[IN:%.*]] = tensor.extract_slice %arg0[0, 0, 1, 1] [2, 2, 5, 5] [1, 1, 1, 1] : tensor<2x2x6x6xf32> to tensor<2x2x5x5xf32>
// CHECK: [[E:%.*]] = tensor.empty() : tensor<2x8x3x3xf32>
// CHECK: [[F:%.*]] = linalg.fill {{.*}} outs([[E]] : tensor<2x8x3x3xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins([[IN]], %arg1 : tensor<2x2x5x5xf32>, tensor<8x2x3x3xf32>) outs([[F]] : tensor<2x8x3x3xf32>)
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.transpose
// CHECK-LABEL: func.func @reads_index
// CHECK: linalg.index
// CHECK: } -> tensor<8xf32>
// CHECK: tensor.extract_slice {{.*}}[2] [4] [1] : tensor<8xf32> to tensor<4xf32>
// CHECK-LABEL: func.func @other_reader
// CHECK: } -> tensor<8xf32>
// CHECK: tensor.extract_slice {{.*}}[2] [4] [1] : tensor<8xf32> to tensor<4xf32>
// CHECK-LABEL: func.func @input_copy_dearer
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<2x3x8x8xf32>
// CHECK: tensor.extract_slice {{.*}} : tensor<2x3x8x8xf32> to tensor<2x3x6x6xf32>
// RUN: remat-run --json %s > %t.before.json
// RUN: remat-run --json %t.mlir > %t.after.json
// RUN: %python -c "import json,sys; a,b=[json.load(open(x)) for x in sys.argv[1:]]; print('outputs', 'identical' if a['outputs']==b['outputs'] else 'DIFFER', 'peak', a['peak_bytes'], '->', b['peak_bytes'])" %t.before.json %t.after.json | FileCheck %s --check-prefix=SAME
// SAME: outputs identical peak 1600 -> 1152
// RUN: remat-opt --estimate --report=json %t.mlir | FileCheck %s --check-prefix=EST
// EST: "name": "conv_grad", {{.*}}"peak_bytes_before": 1152,

#id1 = affine_map<(d0) -> (d0)>

func.func @conv_grad(%x: tensor<2x2x6x6xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<8x2x3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<2x2x6x6xf32>, tensor<8x2x3x3xf32>) outs(%f : tensor<2x8x4x4xf32>) -> tensor<2x8x4x4xf32>
  %cc = tensor.collapse_shape %c [[0, 1], [2], [3]] : tensor<2x8x4x4xf32> into tensor<16x4x4xf32>
  %s1 = tensor.extract_slice %cc[0, 1, 0] [16, 3, 4] [1, 1, 1] : tensor<16x4x4xf32> to tensor<16x3x4xf32>
  %s2 = tensor.extract_slice %s1[0, 0, 1] [16, 3, 3] [1, 1, 1] : tensor<16x3x4xf32> to tensor<16x3x3xf32>
  %ex = tensor.expand_shape %s2 [[0, 1], [2], [3]] output_shape [2, 8, 3, 3] : tensor<16x3x3xf32> into tensor<2x8x3x3xf32>
  %et = tensor.empty() : tensor<8x2x3x3xf32>
  %t = linalg.transpose ins(%ex : tensor<2x8x3x3xf32>) outs(%et : tensor<8x2x3x3xf32>) permutation = [1, 0, 2, 3]
  return %t : tensor<8x2x3x3xf32>
}

func.func @reads_index(%x: tensor<8xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %r = arith.addf %a, %fi : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = tensor.extract_slice %g[2] [4] [1] : tensor<8xf32> to tensor<4xf32>
  return %s : tensor<4xf32>
}

func.func @other_reader(%x: tensor<8xf32>) -> (tensor<4xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %s = tensor.extract_slice %g[2] [4] [1] : tensor<8xf32> to tensor<4xf32>
  return %s, %g : tensor<4xf32>, tensor<8xf32>
}

func.func @input_copy_dearer(%x: tensor<2x4x10x10xf32>, %w: tensor<3x4x3x3xf32>) -> tensor<3x2x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<2x4x10x10xf32>, tensor<3x4x3x3xf32>) outs(%f : tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  %cc = tensor.collapse_shape %c [[0, 1], [2], [3]] : tensor<2x3x8x8xf32> into tensor<6x8x8xf32>
  %s1 = tensor.extract_slice %cc[0, 1, 0] [6, 7, 8] [1, 1, 1] : tensor<6x8x8xf32> to tensor<6x7x8xf32>
  %s2 = tensor.extract_slice %s1[0, 0, 1] [6, 6, 6] [1, 1, 1] : tensor<6x7x8xf32> to tensor<6x6x6xf32>
  %ex = tensor.expand_shape %s2 [[0, 1], [2], [3]] output_shape [2, 3, 6, 6] : tensor<6x6x6xf32> into tensor<2x3x6x6xf32>
  %et = tensor.empty() : tensor<3x2x6x6xf32>
  %t = linalg.transpose ins(%ex : tensor<2x3x6x6xf32>) outs(%et : tensor<3x2x6x6xf32>) permutation = [1, 0, 2, 3]
  return %t : tensor<3x2x6x6xf32>
}
