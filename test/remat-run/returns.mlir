// How results come back. The deallocation pipeline clones returned values it
// does not own (arguments, constants) into fresh buffers, so outputs never alias
// inputs; the clones carry no alignment attribute, so the lowering rounds their
// sizes to 16 bytes (not 64). Scalars, i1, f64 and several results work.
//
// RUN: remat-run --json --entry=passthrough %s | FileCheck %s --check-prefix=PASS
// COM: clones: 4xf32 16 + 2x3xi32 24 -> 32 + 3xf32 12 -> 16 + 4xf32 16 = 80 live at the end.
// PASS: {"peak_bytes": 80, "argument_bytes": 40, "step_time_s": {{.*}}, "outputs": [{"index": 0, "checksum": "[[A:[0-9a-f]{16}]]"}, {"index": 1, "checksum": "{{[0-9a-f]{16}"}}}, {"index": 2, "checksum": "{{[0-9a-f]{16}"}}}, {"index": 3, "checksum": "[[A]]"}], "variant": "passthrough"}
//
// RUN: remat-run --json --entry=inplace --steps=3 %s | FileCheck %s --check-prefix=INPLACE
// COM: x + x is written into the argument's buffer in place (arguments are
// COM: writable), then cloned for the return: 16 bytes. remat-run restores the
// COM: inputs before every step, so the checksum is stable across steps.
// INPLACE: {"peak_bytes": 16, "argument_bytes": 16,
//
// RUN: remat-run --entry=scalars %s | FileCheck %s --check-prefix=SCALARS
// SCALARS: peak_bytes: 64 (64 B)
// SCALARS: argument_bytes: 52 (52 B)
// SCALARS: output 0: tensor<5xi1>, 5 bytes, checksum
// SCALARS: output 1: i1, 1 bytes, checksum af63bc4c8601b62c
// SCALARS: output 2: f64, 8 bytes, checksum
//
// RUN: remat-run --json --entry=scalar_only %s | FileCheck %s --check-prefix=ONE
// ONE: {"peak_bytes": 0, "argument_bytes": 12, "step_time_s": {{.*}}, "outputs": [{"index": 0, "checksum": "{{[0-9a-f]{16}"}}}], "variant": "scalar_only"}
//
// RUN: remat-run --json --entry=nothing %s | FileCheck %s --check-prefix=NONE
// NONE: {"peak_bytes": 0, "argument_bytes": 16, "step_time_s": {{.*}}, "outputs": [], "variant": "nothing"}

func.func @passthrough(%a: tensor<4xf32>, %b: tensor<2x3xi32>)
    -> (tensor<4xf32>, tensor<2x3xi32>, tensor<3xf32>, tensor<4xf32>) {
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  return %a, %b, %c, %a : tensor<4xf32>, tensor<2x3xi32>, tensor<3xf32>, tensor<4xf32>
}

func.func @inplace(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @scalars(%a: tensor<5xf32>, %b: tensor<5xf32>, %s: f32, %n: i64) -> (tensor<5xi1>, i1, f64) {
  %0 = arith.cmpf olt, %a, %b : tensor<5xf32>
  %t = arith.constant true
  %sf = arith.extf %s : f32 to f64
  %nf = arith.sitofp %n : i64 to f64
  %u = arith.addf %sf, %nf : f64
  %v = math.tanh %u : f64
  %w = math.erf %v : f64
  return %0, %t, %w : tensor<5xi1>, i1, f64
}

func.func @scalar_only(%a: tensor<2xf32>, %s: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %e = tensor.extract %a[%c0] : tensor<2xf32>
  %r = arith.mulf %e, %s : f32
  %t = math.exp %r : f32
  return %t : f32
}

func.func @nothing(%a: tensor<4xf32>) {
  return
}
