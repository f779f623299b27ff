// vta-tile on a layer whose smallest tile does not fit the SRAMs: one error at the region's
// output naming the layer (its loc("...") name, else the kind and line vta-pack gives it), the
// SRAM, and the elements and bytes needed and available, on each shipped configuration.
// A 40x40 kernel needs 1600 weight elements for one output and one input channel block, and
// as many input elements for its window (one output row, one column): more than the weight
// SRAM of every configuration, and than the input SRAM of batch2 (1024 elements of 2x16).

// RUN: not vta-opt %s --split-input-file -p vta-pack,vta-tile 2>&1 | filecheck %s --check-prefix=DEF
// RUN: not vta-opt %s --split-input-file --config block32 -p vta-pack,vta-tile 2>&1 | filecheck %s --check-prefix=B32
// RUN: not vta-opt %s --split-input-file --config batch2 -p vta-pack,vta-tile 2>&1 | filecheck %s --check-prefix=B2
// RUN: not vta-opt %s --split-input-file -p vta-to-isa 2>&1 | filecheck %s --check-prefix=DEF

// DEF: vta-tile-too-large.mlir:[[# @LINE + 12]]:3: error: 'linalg.generic' op vta-tile: layer 'big_kernel': cannot tile this convolution: even its smallest tile (1 output and 1 input channel block(s), 1 output row of 1 column) needs 1600 elements (409600 bytes) of the weight SRAM (#vta.sram<wgt>) for its 40x40 kernel, which has 1024 (262144 bytes) available{{$}}
// B32: vta-tile-too-large.mlir:[[# @LINE + 11]]:3: error: 'linalg.generic' op vta-tile: layer 'big_kernel': cannot tile this convolution: even its smallest tile (1 output and 1 input channel block(s), 1 output row of 1 column) needs 1600 elements (1638400 bytes) of the weight SRAM (#vta.sram<wgt>) for its 40x40 kernel, which has 512 (524288 bytes) available{{$}}
// B2: vta-tile-too-large.mlir:[[# @LINE + 10]]:3: error: 'linalg.generic' op vta-tile: layer 'big_kernel': cannot tile this convolution: even its smallest tile (1 output and 1 input channel block(s), 1 output row of 1 column) needs 1600 elements (51200 bytes) of the input SRAM (#vta.sram<inp>) for its 40x40 input window, which has 1024 (32768 bytes) available; and 1600 elements (409600 bytes) of the weight SRAM (#vta.sram<wgt>) for its 40x40 kernel, which has 1024 (262144 bytes) available{{$}}

func.func @named(%x: memref<1x32x41x41xi8>, %w: memref<32x32x40x40xi8>,
                 %y: memref<1x32x2x2xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x32x2x2xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x32x2x2xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x32x41x41xi8>, memref<32x32x40x40xi8>)
      outs(%acc : memref<1x32x2x2xi32>) loc("big_kernel")
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x32x2x2xi32>) outs(%y : memref<1x32x2x2xi8>) {
  ^bb0(%a: i32, %o: i8):
    %s = arith.constant 10 : i32
    %r = arith.shrsi %a, %s : i32
    %t = arith.trunci %r : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}

// -----

// Without a loc("..."), the layer is named as vta-run --stats names it: the kind and line of
// its convolution.

// DEF: vta-tile-too-large.mlir:[[# @LINE + 12]]:3: error: 'linalg.generic' op vta-tile: layer 'conv2d@[[# @LINE + 9]]': cannot tile this convolution: even its smallest tile (1 output and 1 input channel block(s), 1 output row of 1 column) needs 1600 elements (409600 bytes) of the weight SRAM (#vta.sram<wgt>) for its 40x40 kernel
// B32: error: 'linalg.generic' op vta-tile: layer 'conv2d@{{[0-9]+}}': cannot tile this convolution: even its smallest tile {{.*}} of the weight SRAM (#vta.sram<wgt>)
// B2: error: 'linalg.generic' op vta-tile: layer 'conv2d@{{[0-9]+}}': cannot tile this convolution: even its smallest tile {{.*}} of the input SRAM (#vta.sram<inp>) {{.*}} of the weight SRAM (#vta.sram<wgt>)

func.func @unnamed(%x: memref<1x32x41x41xi8>, %w: memref<32x32x40x40xi8>,
                   %y: memref<1x32x2x2xi8>) {
  %c0 = arith.constant 0 : i32
  %acc = memref.alloc() : memref<1x32x2x2xi32>
  linalg.fill ins(%c0 : i32) outs(%acc : memref<1x32x2x2xi32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : memref<1x32x41x41xi8>, memref<32x32x40x40xi8>)
      outs(%acc : memref<1x32x2x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                   affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc : memref<1x32x2x2xi32>) outs(%y : memref<1x32x2x2xi8>) {
  ^bb0(%a: i32, %o: i8):
    %t = arith.trunci %a : i32 to i8
    linalg.yield %t : i8
  }
  func.return
}
