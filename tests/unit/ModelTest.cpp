// SPDX-License-Identifier: Apache-2.0
//
// Models (abi/lib/Model.cpp) and the evaluator that ebpf_gpu_classify runs
// on host and GPU (Abi/MapModel.inc), through a host model map: random
// tree ensembles and int8 MLPs, written as model-file text and read back,
// classify as a naive evaluator of the same ModelSpec does (recursive
// walks, int64 arithmetic with explicit floor shifts); the file's errors
// name their line; damaged models are refused before they reach a map.

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Abi/Model.h"
#include "ebpf-gpu/Platform/MapAbi.h"

#include <gtest/gtest.h>

#include <random>

using namespace ebpfgpu;
using namespace ebpfgpu::abi;

namespace {

/// Floor division by 2^S, as an arithmetic right shift.
int64_t floorShift(int64_t V, unsigned S) {
  int64_t D = int64_t(1) << S;
  return V >= 0 ? V / D : -((-V + D - 1) / D);
}

int64_t walk(const std::vector<ModelNode> &T, size_t N, const std::vector<int32_t> &X, size_t C) {
  const ModelNode &Node = T[N];
  if (Node.Feature < 0)
    return Node.Scores[C];
  return walk(T, X[Node.Feature] <= Node.Threshold ? Node.Left : Node.Right, X, C);
}

int64_t naive(const ModelSpec &M, const std::vector<int32_t> &X) {
  std::vector<int64_t> Score(M.Classes, 0);
  if (!M.Mlp) {
    for (size_t C = 0; C < M.Classes; ++C) {
      Score[C] = M.Bias[C];
      for (const auto &T : M.Trees)
        Score[C] += walk(T, 0, X, C);
    }
  } else {
    std::vector<int64_t> V;
    for (size_t I = 0; I < M.Features; ++I)
      V.push_back(std::clamp<int64_t>(floorShift(X[I], M.InShift[I]), -128, 127));
    for (size_t L = 0; L < M.Layers.size(); ++L) {
      const ModelLayer &Layer = M.Layers[L];
      std::vector<int64_t> Out;
      for (size_t J = 0; J < Layer.Out; ++J) {
        int64_t Acc = Layer.Bias[J];
        for (size_t I = 0; I < Layer.In; ++I)
          Acc += int64_t(Layer.Weights[J * Layer.In + I]) * V[I];
        Acc = floorShift(Acc, Layer.Shift);
        if (L + 1 < M.Layers.size())
          Acc = std::clamp<int64_t>(Acc, 0, 127);
        Out.push_back(Acc);
      }
      V = Out;
    }
    Score = V;
  }
  return std::max_element(Score.begin(), Score.end()) - Score.begin(); // the first maximum
}

/// A random tree of at most `Depth` levels, its nodes in preorder.
void grow(std::mt19937 &Rng, const ModelSpec &M, std::vector<ModelNode> &T, unsigned Depth) {
  size_t Me = T.size();
  T.emplace_back();
  if (Depth == 0 || Rng() % 3 == 0) {
    for (uint32_t C = 0; C < M.Classes; ++C)
      T[Me].Scores.push_back(int32_t(Rng() % 2001) - 1000 + (Rng() % 50 == 0 ? INT32_MAX / 2 : 0));
    return;
  }
  T[Me].Feature = int32_t(Rng() % M.Features);
  T[Me].Threshold = int32_t(Rng() % 41) - 20;
  T[Me].Left = uint32_t(T.size());
  grow(Rng, M, T, Depth - 1);
  T[Me].Right = uint32_t(T.size());
  grow(Rng, M, T, Depth - 1);
}

ModelSpec randomModel(std::mt19937 &Rng, bool Mlp) {
  ModelSpec M;
  M.Mlp = Mlp;
  M.Features = 1 + Rng() % 12;
  M.Classes = 2 + Rng() % 5;
  if (!Mlp) {
    for (uint32_t C = 0; C < M.Classes; ++C)
      M.Bias.push_back(int32_t(Rng() % 201) - 100);
    M.Trees.resize(1 + Rng() % 10);
    for (auto &T : M.Trees)
      grow(Rng, M, T, Rng() % 2 ? 1 + Rng() % 5 : EBPFGPU_MODEL_MAX_DEPTH);
    return M;
  }
  for (uint32_t I = 0; I < M.Features; ++I)
    M.InShift.push_back(uint8_t(Rng() % 4 == 0 ? Rng() % 32 : Rng() % 3));
  uint32_t In = M.Features, Layers = 1 + Rng() % EBPFGPU_MODEL_MAX_LAYERS;
  for (uint32_t L = 0; L < Layers; ++L) {
    ModelLayer Layer;
    Layer.In = In;
    Layer.Out = L + 1 == Layers ? M.Classes : 1 + Rng() % EBPFGPU_MODEL_MAX_WIDTH;
    Layer.Shift = Rng() % 10;
    for (uint32_t J = 0; J < Layer.Out; ++J)
      Layer.Bias.push_back(int32_t(Rng() % (2 * EBPFGPU_MODEL_MAX_BIAS + 1)) - EBPFGPU_MODEL_MAX_BIAS);
    for (uint32_t K = 0; K < Layer.In * Layer.Out; ++K)
      Layer.Weights.push_back(int8_t(Rng() % 4 == 0 ? (Rng() % 2 ? 127 : -128) : int(Rng() % 256) - 128));
    In = Layer.Out;
    M.Layers.push_back(std::move(Layer));
  }
  return M;
}

platform::MapShape modelShape(uint32_t Bytes) {
  platform::MapShape S;
  S.Type = EBPFGPU_MAP_MODEL;
  S.MaxEntries = Bytes;
  return S;
}

} // namespace

TEST(Model, EvaluatorEqualsNaive) {
  std::mt19937 Rng(18);
  for (int Round = 0; Round < 400; ++Round) {
    ModelSpec Spec = randomModel(Rng, Round % 2);
    // Through the file format: what the loader reads is what was meant.
    auto Read = parseModelText(formatModelText(Spec), "random.model");
    ASSERT_TRUE(Read) << Read.error().message();
    auto Bytes = compileModel(*Read);
    ASSERT_TRUE(Bytes) << Bytes.error().message();
    ASSERT_EQ(checkModel(Bytes->data(), Bytes->size()), "");
    HostMap M("model", modelShape(uint32_t(Bytes->size()) + 64));
    ASSERT_FALSE(setMapEntry("model", *M.header(), {}, *Bytes));
    for (int T = 0; T < 50; ++T) {
      std::vector<int32_t> X(Spec.Features);
      for (int32_t &V : X)
        V = Rng() % 8 == 0 ? int32_t(Rng()) : int32_t(Rng() % 61) - 30; // extremes too
      ASSERT_EQ(hostModelClassify(M.info(), X.data(), X.size()), naive(Spec, X))
          << "round " << Round << ", input " << T;
    }
    // Another number of features: -EINVAL.
    std::vector<int32_t> X(Spec.Features + 1);
    EXPECT_EQ(hostModelClassify(M.info(), X.data(), X.size()), -22);
  }
}

TEST(Model, FileErrorsNameTheLine) {
  const std::string Head = "ebpf-gpu-model 1\nfeatures 2\nclasses 2\n";
  struct Case {
    std::string Text, Want;
  } Cases[] = {
      {"model 1\n", "bad.model:1: a model file starts with 'ebpf-gpu-model 1'"},
      {"ebpf-gpu-model 2\n", "bad.model:1: model format version 2"},
      {Head + "trees\ntree\nnode 0 2 5 1 2\nleaf 1 0 1\nleaf 2 1 0\n",
       "bad.model:6: feature 2 is not one of the model's 2"},
      {Head + "trees\ntree\nnode 0 0 5 1 1\nleaf 1 0 1\n", "bad.model:5: this tree: node 1 has two parents"},
      {Head + "trees\ntree\nnode 0 0 5 1 3\nleaf 1 0 1\nleaf 2 1 0\nleaf 3 1 0\n",
       "bad.model:5: this tree: node 2 is not reached from the root"},
      {Head + "trees\ntree\nleaf 0 1\n", "bad.model:6: 'leaf' takes 3 an index and scores, not 2"},
      {Head + "trees\ntree\nnode 0 0 5 1 3\nleaf 1 0 1\nleaf 3 1 0\n",
       "bad.model:5: the tree has no node 2"},
      {Head + "mlp\nlayer 2 2 0\n0 1 2\n0 300 1\n", "bad.model:7: weight 300 is not an int8"},
      {Head + "mlp\nlayer 3 2 0\n", "bad.model:5: the layer takes 3 inputs; the model's features 2"},
      {Head + "mlp\nlayer 2 2 0\n0 1 2\n", "bad.model:5: the layer has 1 of its 2 rows"},
      {Head + "mlp\nlayer 2 3 0\n0 1 2\n0 1 2\n0 1 2\n", "bad.model:5: the last layer gives 3 outputs"},
      {"ebpf-gpu-model 1\nfeatures 65\n", "bad.model:2: '65': features are integers from 1 to 64"},
      {"ebpf-gpu-model 1\nfeatures 2\nclasses 17\n", "bad.model:3: '17': classes are integers from 2 to 16"},
      {Head + "forest\n", "bad.model:4: 'forest' is not a line of a model's head"},
  };
  for (const Case &C : Cases) {
    auto M = parseModelText(C.Text, "bad.model");
    ASSERT_FALSE(M) << C.Text;
    EXPECT_EQ(M.error().message().rfind(C.Want, 0), 0u) << M.error().message();
  }
  // A tree deeper than the ABI's bound.
  std::string Deep = Head + "trees\ntree\n";
  for (unsigned D = 0; D <= EBPFGPU_MODEL_MAX_DEPTH; ++D)
    Deep += "node " + std::to_string(2 * D) + " 0 0 " + std::to_string(2 * D + 1) + " " +
            std::to_string(2 * D + 2) + "\nleaf " + std::to_string(2 * D + 1) + " 0 1\n";
  Deep += "leaf " + std::to_string(2 * EBPFGPU_MODEL_MAX_DEPTH + 2) + " 1 0\n";
  auto M = parseModelText(Deep, "deep.model");
  ASSERT_FALSE(M);
  EXPECT_NE(M.error().message().find("17 levels deep, more than 16"), std::string::npos)
      << M.error().message();
  EXPECT_TRUE(looksLikeModelText("# a comment\n\nebpf-gpu-model 1\n"));
  EXPECT_FALSE(looksLikeModelText("GET /admin\n"));
}

TEST(Model, ChecksRefuseDamage) {
  auto Spec = parseModelText("ebpf-gpu-model 1\nfeatures 2\nclasses 2\ntrees\ntree\n"
                             "node 0 1 5 1 2\nleaf 1 3 0\nleaf 2 0 3\n",
                             "ok.model");
  ASSERT_TRUE(Spec) << Spec.error().message();
  auto Bytes = compileModel(*Spec);
  ASSERT_TRUE(Bytes);
  ASSERT_EQ(checkModel(Bytes->data(), Bytes->size()), "");
  size_t Nodes = sizeof(ebpfgpu_model) + 4 * (1 + 2);
  std::vector<uint8_t> Bad = *Bytes;
  Bad[Nodes + 8] = 0; // node 0's left child: itself, a loop
  EXPECT_NE(checkModel(Bad.data(), Bad.size()), "");
  Bad = *Bytes;
  Bad[Nodes] = 9; // node 0 splits on feature 9 of 2
  EXPECT_NE(checkModel(Bad.data(), Bad.size()), "");
  Bad = *Bytes;
  Bad[0] ^= 1; // the magic
  EXPECT_NE(checkModel(Bad.data(), Bad.size()), "");
  EXPECT_NE(checkModel(Bytes->data(), Bytes->size() - 8), "");
  HostMap M("model", modelShape(4096));
  EXPECT_TRUE(setMapEntry("model", *M.header(), {}, Bad));
  EXPECT_TRUE(setMapEntry("model", *M.header(), {0, 0, 0, 0}, *Bytes));
  // Nothing loaded: -EINVAL.
  int32_t X[2] = {1, 9};
  EXPECT_EQ(hostModelClassify(M.info(), X, 2), -22);
  ASSERT_FALSE(setMapEntry("model", *M.header(), {}, *Bytes));
  EXPECT_EQ(hostModelClassify(M.info(), X, 2), 1); // 9 > 5: right, class 1
  X[1] = 5;
  EXPECT_EQ(hostModelClassify(M.info(), X, 2), 0);
  HostMap Small("model", modelShape(sizeof(ebpfgpu_model)));
  auto E = setMapEntry("model", *Small.header(), {}, *Bytes);
  ASSERT_TRUE(E);
  EXPECT_NE(E->message().find("the model needs"), std::string::npos);
}
