// SPDX-License-Identifier: Apache-2.0
//
// Models for model maps (EBPFGPU_MAP_MODEL, the kfunc ebpf_gpu_classify):
// a model file's text read into a tree ensemble or an int8 MLP, the model
// laid out as a model map holds it (MapAbi.h: struct ebpfgpu_model, which
// MapModel.inc evaluates), and a model's bytes checked before they go into
// a map, since the evaluator trusts them. Pure functions of their
// arguments; thread-safe. docs/KFUNCS.md gives the file format and the
// layout.

#ifndef EBPF_GPU_ABI_MODEL_H
#define EBPF_GPU_ABI_MODEL_H

#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::abi {

/// One node of a tree, by its index in the tree (0 the root): a split
/// (Feature >= 0: to Left when x[Feature] <= Threshold, else to Right,
/// both later nodes) or a leaf (Feature -1) with a score per class.
struct ModelNode {
  int32_t Feature = -1;
  int32_t Threshold = 0;
  uint32_t Left = 0, Right = 0;
  std::vector<int32_t> Scores;
};

/// One MLP layer: Out rows of In int8 weights, Out int32 biases, the
/// accumulators' right shift.
struct ModelLayer {
  uint32_t In = 0, Out = 0, Shift = 0;
  std::vector<int32_t> Bias;
  std::vector<int8_t> Weights; // row-major: Weights[j * In + i]
};

/// A model as a file states it.
struct ModelSpec {
  bool Mlp = false;
  uint32_t Features = 0, Classes = 0;
  std::vector<int32_t> Bias;                 // trees: one per class
  std::vector<std::vector<ModelNode>> Trees; // trees
  std::vector<uint8_t> InShift;              // MLP: one per feature
  std::vector<ModelLayer> Layers;            // MLP
};

/// The model of model-file text (docs/KFUNCS.md): its first line
/// `ebpf-gpu-model 1`, then `features N`, `classes C`, and `trees` (with
/// `bias`, `tree`, `node` and `leaf` lines) or `mlp` (with `input` and
/// `layer` lines, each layer followed by its rows). Every bound of MapAbi.h
/// is checked; errors say "NAME:LINE: why".
Expected<ModelSpec> parseModelText(const std::string &Text, const std::string &Name);

/// True when `Text` starts (comments and blank lines aside) as a model file
/// does: what tells a model file from a pattern file at MAP:@FILE.
bool looksLikeModelText(const std::string &Text);

/// `Spec` laid out as a model map holds it. `Spec` must be as
/// parseModelText returns (the checks are its): errors only for sizes.
Expected<std::vector<uint8_t>> compileModel(const ModelSpec &Spec);

/// The text of `Spec` in the model-file format (parseModelText reads it back).
std::string formatModelText(const ModelSpec &Spec);

/// parseModelText then compileModel of the file at `Path`.
Expected<std::vector<uint8_t>> compileModelFile(const std::string &Path);

/// Why `Bytes` is not a model the evaluator may run, or "" when it is: its
/// header, bounds, sizes and every index are checked.
std::string checkModel(const uint8_t *Bytes, size_t Size);

/// "tree ensemble of T trees, N nodes, depth D, F features, C classes, B
/// bytes" (or "mlp of L layers (10-16-3), ...") of a checked model.
std::string describeModel(const uint8_t *Bytes);

} // namespace ebpfgpu::abi

#endif // EBPF_GPU_ABI_MODEL_H
