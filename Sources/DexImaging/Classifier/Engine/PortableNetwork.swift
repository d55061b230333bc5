/// The network's portable path: plain float loops in Swift, on every platform, and the
/// reference that the oneDNN backend is tested against.
///
/// It is written to be read, not tuned: each layer is the textbook loop over output pixels, in
/// 32-bit floats, on the calling thread. Immutable once built, so concurrent calls share it.
struct PortableNetwork: Sendable {
  let network: NetworkLayers

  /// The logits of a checked `size × size × 3` input; `isCancelled` is asked before each layer.
  func logits(
    _ input: [Float], size: Int, isCancelled: () -> Bool = { Task.isCancelled }
  ) throws(ClassifierError) -> [Float] {
    var activations: [[Float]] = []  // each layer's input, for the residual sums
    var (current, side) = (input, size)
    for layer in network.layers {
      if isCancelled() { throw .cancelled }
      activations.append(current)
      var (output, outputSide) = Self.convolution(current, side: side, layer: layer)
      if let from = layer.residualFrom {
        for i in output.indices { output[i] += activations[from][i] }
      }
      (current, side) = (output, outputSide)
    }
    return classify(current, pixels: side * side)
  }

  /// One convolution: dense (the stem, and the 1×1 layers with `kernel` 1), or depthwise (each
  /// channel filtered on its own).
  static func convolution(
    _ input: [Float], side: Int, layer: NetworkLayers.Layer
  ) -> ([Float], Int) {
    let (k, s, cin, cout) = (layer.kernel, layer.stride, layer.inputChannels, layer.outputChannels)
    let (outSide, pad) = NetworkLayers.samePadding(input: side, kernel: k, stride: s)
    var output = [Float](repeating: 0, count: outSide * outSide * cout)
    input.withUnsafeBufferPointer { input in
      layer.weights.withUnsafeBufferPointer { weights in
        output.withUnsafeMutableBufferPointer { output in
          for y in 0..<outSide {
            for x in 0..<outSide {
              let out = (y * outSide + x) * cout
              for o in 0..<cout { output[out + o] = layer.bias[o] }
              for ky in 0..<k {
                let iy = y * s - pad + ky
                guard (0..<side).contains(iy) else { continue }
                for kx in 0..<k {
                  let ix = x * s - pad + kx
                  guard (0..<side).contains(ix) else { continue }
                  let pixel = (iy * side + ix) * cin
                  if layer.depthwise {
                    let tap = (ky * k + kx) * cout
                    for c in 0..<cout { output[out + c] += input[pixel + c] * weights[tap + c] }
                    continue
                  }
                  for i in 0..<cin {
                    let value = input[pixel + i]
                    let row = ((ky * k + kx) * cin + i) * cout
                    for o in 0..<cout { output[out + o] += value * weights[row + o] }
                  }
                }
              }
              if layer.relu6 {
                for o in out..<out + cout { output[o] = min(max(output[o], 0), 6) }
              }
            }
          }
        }
      }
    }
    return (output, outSide)
  }

  /// Global average pooling, then the fully connected layer.
  func classify(_ features: [Float], pixels: Int) -> [Float] {
    let (channels, classes) = (network.features, network.classes)
    var pooled = [Float](repeating: 0, count: channels)
    for p in 0..<pixels {
      for c in 0..<channels { pooled[c] += features[p * channels + c] }
    }
    var logits = network.classifierBias
    network.classifierWeights.withUnsafeBufferPointer { weights in
      for c in 0..<channels {
        let value = pooled[c] / Float(pixels)
        for o in 0..<classes { logits[o] += value * weights[c * classes + o] }
      }
    }
    return logits
  }
}
