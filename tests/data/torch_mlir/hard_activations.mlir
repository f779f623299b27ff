#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<() -> ()>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> ()>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
module {
  func.func @hard_activations(%arg0: tensor<1x3x6x6xf32>) -> tensor<1x16x6x6xf32> {
    %cst = arith.constant -1.280000e+02 : f32
    %cst_0 = arith.constant 1.270000e+02 : f32
    %cst_1 = arith.constant -2.14748365E+9 : f32
    %cst_2 = arith.constant 2.14748365E+9 : f32
    %cst_3 = arith.constant 0.000000e+00 : f32
    %cst_4 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_5 = arith.constant dense<1.000000e+00> : tensor<f32>
    %cst_6 = arith.constant dense<6.000000e+00> : tensor<f32>
    %cst_7 = arith.constant 2.73600803E-4 : f32
    %cst_8 = arith.constant 0.0133858267 : f32
    %cst_9 = arith.constant 0.0124899652 : f32
    %cst_10 = arith.constant 0.0307041071 : f32
    %cst_11 = arith.constant 2.7360079878552615E-4 : f64
    %c0_i32 = arith.constant 0 : i32
    %c0_i8 = arith.constant 0 : i8
    %cst_12 = arith.constant 0.0549483746 : f32
    %cst_13 = arith.constant 3.000000e+00 : f32
    %cst_14 = arith.constant 6.000000e+00 : f32
    %cst_15 = arith.constant 0.0934122428 : f32
    %cst_16 = arith.constant 2.500000e-01 : f32
    %cst_17 = arith.constant 4.000000e-01 : f32
    %cst_18 = arith.constant 0.00787401571 : f32
    %cst_19 = arith.constant dense<127> : tensor<i8>
    %cst_20 = arith.constant dense<[[[[103]], [[79]], [[92]], [[97]], [[114]], [[76]], [[66]], [[47]], [[44]], [[127]], [[77]], [[112]], [[28]], [[2]], [[38]], [[126]]]]> : tensor<1x16x1x1xi8>
    %cst_21 = arith.constant dense<[1047, 597, -169, 1185, -1645, 1489, -70, -595, 821, 1162, 844, 2192, 1185, 1407, -592, 117]> : tensor<16xi32>
    %cst_22 = arith.constant dense<"0x04FC1604EE0C2C20E8D5EB01B2F9D6E7EEF50E23FC2EEA0C1E03E7E1F107DEF9FB12070CEAFC1A32D6332D1A09F531423D2C0CD70016D50D0E17D8EAF1D93BEF0BF7352C15B6021722EB3DD4EA1F024306EBF3DBD515142CE739F635F1E7082305ECD3D11121FADC1DD5E815B40DEC04FD0717E630181C271B1C03D0FBE6D009EDDDDD090C2D00232F27B0290B0E0C0D0BF4C0FCE524F603E3EF00CE0AFCD8AF11F6EEF83DFE03CE371F24021F0C15FBCE23BFF8F9DD15F9F112F02F0CF0BFD425FEF637D5ECF014EAEBCA191BF005D4F02E054EE514F91300EDE367FDBCEA17EF2E22FBF0DEE8CE2936D6D8C4E097DA2CF41DF03B07F356F5D707FF24E11B1DEA05E44FE8F1DCF4001AEBFAD0E45D23E6D3DFFF01E7D5300FF3F9EE9D04DCDEEA19D9D01619E013F60AD61C2915138109FFFBEB020EF7F029DB2306E5F6E1170CEDDB0A20FC0EF302F60ACD16F80CF50BDC28C7DD083109F8D0FAFF3915CD44F3E232FEF4071C21D24320F3E4DF04EAE61B0CF3192EDBEC20180827DBCEE304E5F0DFEBDE0C1BF0F9EC120336DB0C0FF414D047D31FDA27F3050225F59CE606F11A22FBCE2F24F647F4DAFB24E042E2"> : tensor<16x3x3x3xi8>
    %0 = tensor.empty() : tensor<16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_21 : tensor<16xi32>) outs(%0 : tensor<16xf32>) {
    ^bb0(%in: i32, %out: f32):
      %36 = arith.sitofp %in : i32 to f32
      %37 = arith.mulf %36, %cst_7 : f32
      linalg.yield %37 : f32
    } -> tensor<16xf32>
    %2 = tensor.empty() : tensor<f32>
    %3 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = []} ins(%cst_19 : tensor<i8>) outs(%2 : tensor<f32>) {
    ^bb0(%in: i8, %out: f32):
      %36 = arith.sitofp %in : i8 to f32
      %37 = arith.mulf %36, %cst_8 : f32
      linalg.yield %37 : f32
    } -> tensor<f32>
    %4 = tensor.empty() : tensor<1x16x1x1xf32>
    %5 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_20 : tensor<1x16x1x1xi8>) outs(%4 : tensor<1x16x1x1xf32>) {
    ^bb0(%in: i8, %out: f32):
      %36 = arith.sitofp %in : i8 to f32
      %37 = arith.mulf %36, %cst_9 : f32
      linalg.yield %37 : f32
    } -> tensor<1x16x1x1xf32>
    %6 = tensor.empty() : tensor<1x3x6x6xi8>
    %7 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x3x6x6xf32>) outs(%6 : tensor<1x3x6x6xi8>) {
    ^bb0(%in: f32, %out: i8):
      %36 = arith.divf %in, %cst_10 : f32
      %37 = math.roundeven %36 : f32
      %38 = arith.addf %37, %cst_3 : f32
      %39 = arith.maximumf %38, %cst : f32
      %40 = arith.minimumf %39, %cst_0 : f32
      %41 = arith.fptosi %40 : f32 to i8
      linalg.yield %41 : i8
    } -> tensor<1x3x6x6xi8>
    %8 = tensor.empty() : tensor<16xi32>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<16xf32>) outs(%8 : tensor<16xi32>) {
    ^bb0(%in: f32, %out: i32):
      %36 = arith.truncf %cst_11 : f64 to f32
      %37 = arith.divf %in, %36 : f32
      %38 = math.roundeven %37 : f32
      %39 = arith.addf %38, %cst_3 : f32
      %40 = arith.maximumf %39, %cst_1 : f32
      %41 = arith.minimumf %40, %cst_2 : f32
      %42 = arith.fptosi %41 : f32 to i32
      linalg.yield %42 : i32
    } -> tensor<16xi32>
    %padded = tensor.pad %7 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %c0_i8 : i8
    } : tensor<1x3x6x6xi8> to tensor<1x3x8x8xi8>
    %10 = tensor.empty() : tensor<1x16x6x6xi32>
    %broadcasted = linalg.broadcast ins(%9 : tensor<16xi32>) outs(%10 : tensor<1x16x6x6xi32>) dimensions = [0, 2, 3] 
    %11 = linalg.conv_2d_nchw_fchw_q {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %cst_22, %c0_i32, %c0_i32 : tensor<1x3x8x8xi8>, tensor<16x3x3x3xi8>, i32, i32) outs(%broadcasted : tensor<1x16x6x6xi32>) -> tensor<1x16x6x6xi32>
    %12 = tensor.empty() : tensor<1x16x6x6xf32>
    %13 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x16x6x6xi32>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: i32, %out: f32):
      %36 = arith.truncf %cst_11 : f64 to f32
      %37 = arith.sitofp %in : i32 to f32
      %38 = arith.mulf %37, %36 : f32
      linalg.yield %38 : f32
    } -> tensor<1x16x6x6xf32>
    %14 = tensor.empty() : tensor<1x16x6x6xi8>
    %15 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x16x6x6xf32>) outs(%14 : tensor<1x16x6x6xi8>) {
    ^bb0(%in: f32, %out: i8):
      %36 = arith.divf %in, %cst_12 : f32
      %37 = math.roundeven %36 : f32
      %38 = arith.addf %37, %cst_3 : f32
      %39 = arith.maximumf %38, %cst : f32
      %40 = arith.minimumf %39, %cst_0 : f32
      %41 = arith.fptosi %40 : f32 to i8
      linalg.yield %41 : i8
    } -> tensor<1x16x6x6xi8>
    %16 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15 : tensor<1x16x6x6xi8>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: i8, %out: f32):
      %36 = arith.sitofp %in : i8 to f32
      %37 = arith.mulf %36, %cst_12 : f32
      linalg.yield %37 : f32
    } -> tensor<1x16x6x6xf32>
    %17 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16 : tensor<1x16x6x6xf32>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %36 = arith.addf %in, %cst_13 : f32
      linalg.yield %36 : f32
    } -> tensor<1x16x6x6xf32>
    %18 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%17 : tensor<1x16x6x6xf32>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %36 = arith.cmpf ugt, %in, %cst_3 : f32
      %37 = arith.select %36, %in, %cst_3 : f32
      linalg.yield %37 : f32
    } -> tensor<1x16x6x6xf32>
    %19 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18, %cst_6 : tensor<1x16x6x6xf32>, tensor<f32>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %36 = arith.cmpf olt, %in, %in_23 : f32
      %37 = arith.select %36, %in, %in_23 : f32
      linalg.yield %37 : f32
    } -> tensor<1x16x6x6xf32>
    %20 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19 : tensor<1x16x6x6xf32>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %36 = arith.divf %in, %cst_14 : f32
      linalg.yield %36 : f32
    } -> tensor<1x16x6x6xf32>
    %21 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%20, %16 : tensor<1x16x6x6xf32>, tensor<1x16x6x6xf32>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %36 = arith.mulf %in, %in_23 : f32
      linalg.yield %36 : f32
    } -> tensor<1x16x6x6xf32>
    %22 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%21 : tensor<1x16x6x6xf32>) outs(%14 : tensor<1x16x6x6xi8>) {
    ^bb0(%in: f32, %out: i8):
      %36 = arith.divf %in, %cst_12 : f32
      %37 = math.roundeven %36 : f32
      %38 = arith.addf %37, %cst_3 : f32
      %39 = arith.maximumf %38, %cst : f32
      %40 = arith.minimumf %39, %cst_0 : f32
      %41 = arith.fptosi %40 : f32 to i8
      linalg.yield %41 : i8
    } -> tensor<1x16x6x6xi8>
    %23 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%22 : tensor<1x16x6x6xi8>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: i8, %out: f32):
      %36 = arith.sitofp %in : i8 to f32
      %37 = arith.mulf %36, %cst_12 : f32
      linalg.yield %37 : f32
    } -> tensor<1x16x6x6xf32>
    %24 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%23, %3 : tensor<1x16x6x6xf32>, tensor<f32>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %36 = arith.mulf %in, %in_23 : f32
      linalg.yield %36 : f32
    } -> tensor<1x16x6x6xf32>
    %25 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%24 : tensor<1x16x6x6xf32>) outs(%14 : tensor<1x16x6x6xi8>) {
    ^bb0(%in: f32, %out: i8):
      %36 = arith.divf %in, %cst_15 : f32
      %37 = math.roundeven %36 : f32
      %38 = arith.addf %37, %cst_3 : f32
      %39 = arith.maximumf %38, %cst : f32
      %40 = arith.minimumf %39, %cst_0 : f32
      %41 = arith.fptosi %40 : f32 to i8
      linalg.yield %41 : i8
    } -> tensor<1x16x6x6xi8>
    %26 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%25 : tensor<1x16x6x6xi8>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: i8, %out: f32):
      %36 = arith.sitofp %in : i8 to f32
      %37 = arith.mulf %36, %cst_15 : f32
      linalg.yield %37 : f32
    } -> tensor<1x16x6x6xf32>
    %27 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%26 : tensor<1x16x6x6xf32>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %36 = arith.mulf %in, %cst_16 : f32
      linalg.yield %36 : f32
    } -> tensor<1x16x6x6xf32>
    %28 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%27 : tensor<1x16x6x6xf32>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %36 = arith.addf %in, %cst_17 : f32
      linalg.yield %36 : f32
    } -> tensor<1x16x6x6xf32>
    %29 = linalg.generic {indexing_maps = [#map3, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_5, %28 : tensor<f32>, tensor<1x16x6x6xf32>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %36 = arith.cmpf olt, %in, %in_23 : f32
      %37 = arith.select %36, %in, %in_23 : f32
      linalg.yield %37 : f32
    } -> tensor<1x16x6x6xf32>
    %30 = linalg.generic {indexing_maps = [#map3, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_4, %29 : tensor<f32>, tensor<1x16x6x6xf32>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %36 = arith.cmpf ogt, %in, %in_23 : f32
      %37 = arith.select %36, %in, %in_23 : f32
      linalg.yield %37 : f32
    } -> tensor<1x16x6x6xf32>
    %31 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%30 : tensor<1x16x6x6xf32>) outs(%14 : tensor<1x16x6x6xi8>) {
    ^bb0(%in: f32, %out: i8):
      %36 = arith.divf %in, %cst_18 : f32
      %37 = math.roundeven %36 : f32
      %38 = arith.addf %37, %cst_3 : f32
      %39 = arith.maximumf %38, %cst : f32
      %40 = arith.minimumf %39, %cst_0 : f32
      %41 = arith.fptosi %40 : f32 to i8
      linalg.yield %41 : i8
    } -> tensor<1x16x6x6xi8>
    %32 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%31 : tensor<1x16x6x6xi8>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: i8, %out: f32):
      %36 = arith.sitofp %in : i8 to f32
      %37 = arith.mulf %36, %cst_18 : f32
      linalg.yield %37 : f32
    } -> tensor<1x16x6x6xf32>
    %33 = linalg.generic {indexing_maps = [#map2, #map4, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%32, %5 : tensor<1x16x6x6xf32>, tensor<1x16x1x1xf32>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: f32, %in_23: f32, %out: f32):
      %36 = arith.mulf %in, %in_23 : f32
      linalg.yield %36 : f32
    } -> tensor<1x16x6x6xf32>
    %34 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%33 : tensor<1x16x6x6xf32>) outs(%14 : tensor<1x16x6x6xi8>) {
    ^bb0(%in: f32, %out: i8):
      %36 = arith.divf %in, %cst_9 : f32
      %37 = math.roundeven %36 : f32
      %38 = arith.addf %37, %cst_3 : f32
      %39 = arith.maximumf %38, %cst : f32
      %40 = arith.minimumf %39, %cst_0 : f32
      %41 = arith.fptosi %40 : f32 to i8
      linalg.yield %41 : i8
    } -> tensor<1x16x6x6xi8>
    %35 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%34 : tensor<1x16x6x6xi8>) outs(%12 : tensor<1x16x6x6xf32>) {
    ^bb0(%in: i8, %out: f32):
      %36 = arith.sitofp %in : i8 to f32
      %37 = arith.mulf %36, %cst_9 : f32
      linalg.yield %37 : f32
    } -> tensor<1x16x6x6xf32>
    return %35 : tensor<1x16x6x6xf32>
  }
}

