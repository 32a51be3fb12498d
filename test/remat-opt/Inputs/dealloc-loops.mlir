// Bufferized steps with scatter loops, as One-Shot Bufferize leaves them
// (test/remat-opt/dealloc-loops.test).

// The embedding backward: the doubled updates (%tmp) are read inside the
// loop, the zero fill (%acc) is carried through it and read after it.
func.func @scatter_then_use(%upd: memref<6x4xf32>, %idx: memref<6x1xi64>, %x: memref<8x4xf32>) -> memref<8x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 0.0 : f32
  %tmp = memref.alloc() {alignment = 64 : i64} : memref<6x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%upd : memref<6x4xf32>) outs(%tmp : memref<6x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.addf %in, %in : f32
    linalg.yield %d : f32
  }
  %acc = memref.alloc() {alignment = 64 : i64} : memref<8x4xf32>
  linalg.fill ins(%cst : f32) outs(%acc : memref<8x4xf32>)
  %r = scf.for %i = %c0 to %c6 step %c1 iter_args(%a = %acc) -> (memref<8x4xf32>) {
    %id = memref.load %idx[%i, %c0] : memref<6x1xi64>
    %row = arith.index_cast %id : i64 to index
    %inner = scf.for %j = %c0 to %c4 step %c1 iter_args(%b = %a) -> (memref<8x4xf32>) {
      %inside = arith.cmpi ult, %row, %c8 : index
      %y = scf.if %inside -> (memref<8x4xf32>) {
        %u = memref.load %tmp[%i, %j] : memref<6x4xf32>
        %o = memref.load %b[%row, %j] : memref<8x4xf32>
        %s = arith.addf %o, %u : f32
        memref.store %s, %b[%row, %j] : memref<8x4xf32>
        scf.yield %b : memref<8x4xf32>
      } else {
        scf.yield %b : memref<8x4xf32>
      }
      scf.yield %y : memref<8x4xf32>
    }
    scf.yield %inner : memref<8x4xf32>
  }
  %out = memref.alloc() {alignment = 64 : i64} : memref<8x4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r, %x : memref<8x4xf32>, memref<8x4xf32>) outs(%out : memref<8x4xf32>) {
  ^bb0(%in: f32, %in2: f32, %o2: f32):
    %m = arith.mulf %in, %in2 : f32
    linalg.yield %m : f32
  }
  return %out : memref<8x4xf32>
}

// -----

// A scatter into an argument, returned: the loop's result is the
// argument's buffer, which the step does not own: copied at the return.
// A scatter into a fresh buffer returned through the loop: not freed.
func.func @returned(%upd: memref<2xf32>, %idx: memref<2xi64>, %t: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %t) -> (memref<4xf32>) {
    %id = memref.load %idx[%i] : memref<2xi64>
    %row = arith.index_cast %id : i64 to index
    %u = memref.load %upd[%i] : memref<2xf32>
    memref.store %u, %a[%row] : memref<4xf32>
    scf.yield %a : memref<4xf32>
  }
  %z = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
  linalg.fill ins(%cst : f32) outs(%z : memref<4xf32>)
  %s = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %z) -> (memref<4xf32>) {
    %id = memref.load %idx[%i] : memref<2xi64>
    %row = arith.index_cast %id : i64 to index
    %u = memref.load %upd[%i] : memref<2xf32>
    memref.store %u, %a[%row] : memref<4xf32>
    scf.yield %a : memref<4xf32>
  }
  return %r, %s : memref<4xf32>, memref<4xf32>
}

// -----

// Refused: the loop swaps its two buffers (its results are not its inits).
func.func @swapped(%n: index) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a0 = memref.alloc() : memref<4xf32>
  %b0 = memref.alloc() : memref<4xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %a0, %b = %b0) -> (memref<4xf32>, memref<4xf32>) {
    scf.yield %b, %a : memref<4xf32>, memref<4xf32>
  }
  return %r#0 : memref<4xf32>
}

// -----

// Refused: a buffer allocated in the loop body.
func.func @alloc_in_loop(%n: index, %x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloc() : memref<4xf32>
    memref.copy %x, %t : memref<4xf32> to memref<4xf32>
  }
  return
}

// -----

// Refused: the branches yield different buffers.
func.func @branches(%c: i1) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %r = scf.if %c -> (memref<4xf32>) {
    scf.yield %a : memref<4xf32>
  } else {
    scf.yield %b : memref<4xf32>
  }
  return %r : memref<4xf32>
}

// -----

// Refused: a while loop carrying a buffer.
func.func @while_loop(%x: memref<4xf32>) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  %r = scf.while (%b = %a) : (memref<4xf32>) -> memref<4xf32> {
    %c = arith.constant false
    scf.condition(%c) %b : memref<4xf32>
  } do {
  ^bb0(%b: memref<4xf32>):
    scf.yield %b : memref<4xf32>
  }
  return %r : memref<4xf32>
}
