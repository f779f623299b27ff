#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @dense(%arg0: tensor<2x40xf32>) -> tensor<2x24xf32> {
    %cst = arith.constant -1.280000e+02 : f32
    %cst_0 = arith.constant 1.270000e+02 : f32
    %c0_i32 = arith.constant 0 : i32
    %cst_1 = arith.constant 1.54601017E-4 : f32
    %cst_2 = arith.constant 0.0251759496 : f32
    %cst_3 = arith.constant 0.000000e+00 : f32
    %cst_4 = arith.constant 1.5460101518669465E-4 : f64
    %cst_5 = arith.constant 0.0383143537 : f32
    %cst_6 = arith.constant dense<"0x04FC1503EF0C2A1FE9D7EC01B4F9D7E8EEF60D22FC2DEA0B1D03E8E2F107DFF9FB12070CEBFC1A31D7312C1909F62F403B2B0CD90015D60D0E17D9EAF2DA39F00BF8342B15B8021621EC3BD5EA1E024106EBF4DCD615132AE737F733F2E8082205EDD4D21020FBDD1CD6E914B70DED04FE0717E72E181B261A1B02D2FCE7D208EDDEDE090C2B00222E25B3280B0E0C0C0AF4C2FCE623F703E4EF00D00AFDD9B211F6EFF83BFE03D0361E23021E0C14FBD022C1F8F9DE14F9F211F02D0BF1C1D523FEF736D6EDF113EAECCC181AF005D6F12D044BE613FA1200EEE464FDBEEB16F02C21FBF1DFE9D02734D7DAC6E19BDB2AF51CF03906F453F5D807FF23E21A1CEA05E54CE9F1DDF50019ECFAD2E55A22E7D4E0FF01E8D62E0FF4F9EFA004DDDFEB18DAD11519E112F70AD71B2715128508FFFBEB020DF7F128DC2206E6F7E2160BEEDC0A1FFC0EF402F70ACF15F90CF50ADD27C9DE083009F8D2FAFF3714CE42F3E330FEF4071C20D3411FF4E5E004EBE71A0CF3182DDCEC1F170726DDD0E404E6F0E0ECDF0C1AF0F9ED110334DC0C0EF413D145D41EDB25F3050224F69FE706F21921FBCF2D23F645F5DBFB23E140E31F12FB23CF2CFEEE18231941232AEE0312FF0A0E1BFDF5E5E326FD1AD6C1DE25230BE6FCF6F5AEE4FA31052EF3F8810F1239F003E9DAE9F52C00E60507EA25C2F916D40C2A0FC9E8280A000E17E9F705EEFC2AE03F3DC8FB0BE7E8F818EF3B09FD2F140CF53B1AF9CD0CDBC8F7092A091AD8FF041C041AF00C0ED706F6C21FF4E4F40531FB0F2D1123F019FE23DFE729FAF403EA2BD7FB0BFDE6E40EDE15CEEE01D715FFDECFCD02DAD4F84A0919071AD4F209FFFAEAF8E7B1D90F333B031D1EE9C901C7F614D201280C111E380528FEEE0AECEDECB503D7FD2FEFEE2C1220F418EAEA13ED194EC9E824FB26DF0BFB050BD8DD2E0A03FF0CDADF2A051CEC2D0B1012E6C3DD352AF5F622FBD62910AEF6051005EBFC0AF7F429E1F5BE121B121E0E0B0FF727F5D01C3CE1FDEAF402D8F7D0EDD9DEC82811C2EDEAE9D119F30F112DC53929134E071BE82505F145F600FAE711180CB321F5D81412DE51D9C8DA2EFAF4FEEDEAEB1721DE081ADDF0DED603E815FF0DF6EBFD00E90E180538EB11F308E5240627D7F0E3EFE9FCFFFFEE061DE300FE0FFEFFE001E211FD01E31A171C49FE27FC0D0C0915F6011139E5C5F00306032720FEF1F5F4F9CDF1F2FAF816EFF212F807160E08FA1606F0FBD8E1C3EA2BEE1A00E92C13C722DDFA16F62419CDF109EDF91A0AE206ECD8DB09FF00DBFADEE2FBD316510FDEF7CDF41113DE0A2639E9E402A1EFF7F1CCF8E719E2F7F812"> : tensor<24x40xi8>
    %cst_7 = arith.constant dense<[-16468, -2203, 4913, -2339, -9877, 2113, 2178, -1750, -7502, -4791, -2029, -5663, -12420, -4976, -399, -3280, -489, 541, 5799, 14255, 4733, -9084, -17186, -611]> : tensor<24xi32>
    %0 = tensor.empty() : tensor<24xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst_7 : tensor<24xi32>) outs(%0 : tensor<24xf32>) {
    ^bb0(%in: i32, %out: f32):
      %14 = arith.sitofp %in : i32 to f32
      %15 = arith.mulf %14, %cst_1 : f32
      linalg.yield %15 : f32
    } -> tensor<24xf32>
    %2 = tensor.empty() : tensor<2x40xi8>
    %3 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<2x40xf32>) outs(%2 : tensor<2x40xi8>) {
    ^bb0(%in: f32, %out: i8):
      %14 = arith.divf %in, %cst_2 : f32
      %15 = math.roundeven %14 : f32
      %16 = arith.addf %15, %cst_3 : f32
      %17 = arith.maximumf %16, %cst : f32
      %18 = arith.minimumf %17, %cst_0 : f32
      %19 = arith.fptosi %18 : f32 to i8
      linalg.yield %19 : i8
    } -> tensor<2x40xi8>
    %4 = tensor.empty() : tensor<40x24xi8>
    %transposed = linalg.transpose ins(%cst_6 : tensor<24x40xi8>) outs(%4 : tensor<40x24xi8>) permutation = [1, 0] 
    %5 = tensor.empty() : tensor<2x24xi32>
    %6 = linalg.fill ins(%c0_i32 : i32) outs(%5 : tensor<2x24xi32>) -> tensor<2x24xi32>
    %7 = linalg.quantized_matmul ins(%3, %transposed, %c0_i32, %c0_i32 : tensor<2x40xi8>, tensor<40x24xi8>, i32, i32) outs(%6 : tensor<2x24xi32>) -> tensor<2x24xi32>
    %8 = tensor.empty() : tensor<2x24xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<2x24xi32>) outs(%8 : tensor<2x24xf32>) {
    ^bb0(%in: i32, %out: f32):
      %14 = arith.truncf %cst_4 : f64 to f32
      %15 = arith.sitofp %in : i32 to f32
      %16 = arith.mulf %15, %14 : f32
      linalg.yield %16 : f32
    } -> tensor<2x24xf32>
    %10 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%9, %1 : tensor<2x24xf32>, tensor<24xf32>) outs(%8 : tensor<2x24xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %14 = arith.addf %in, %in_8 : f32
      linalg.yield %14 : f32
    } -> tensor<2x24xf32>
    %11 = tensor.empty() : tensor<2x24xi8>
    %12 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<2x24xf32>) outs(%11 : tensor<2x24xi8>) {
    ^bb0(%in: f32, %out: i8):
      %14 = arith.divf %in, %cst_5 : f32
      %15 = math.roundeven %14 : f32
      %16 = arith.addf %15, %cst_3 : f32
      %17 = arith.maximumf %16, %cst : f32
      %18 = arith.minimumf %17, %cst_0 : f32
      %19 = arith.fptosi %18 : f32 to i8
      linalg.yield %19 : i8
    } -> tensor<2x24xi8>
    %13 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<2x24xi8>) outs(%8 : tensor<2x24xf32>) {
    ^bb0(%in: i8, %out: f32):
      %14 = arith.sitofp %in : i8 to f32
      %15 = arith.mulf %14, %cst_5 : f32
      linalg.yield %15 : f32
    } -> tensor<2x24xf32>
    return %13 : tensor<2x24xf32>
  }
}

