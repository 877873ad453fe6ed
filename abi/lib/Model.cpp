// SPDX-License-Identifier: Apache-2.0
//
// Model files read, checked and laid out for model maps (the kfunc
// ebpf_gpu_classify). The format is line-based text that a person writes by
// hand and scripts/model-from-sklearn.py writes from a scikit-learn model;
// every bound of MapAbi.h (features, classes, trees, depth, nodes, layers,
// widths) is checked here, with the line that breaks it, so that the
// evaluator (MapModel.inc) runs a bounded amount of work a packet and the
// verifier can bound the kfunc's result by the classes.

#include "ebpf-gpu/Abi/Model.h"
#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Support/ReadFile.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace ebpfgpu::abi {

namespace {

/// The integer `T` when it is one in [Lo, Hi].
bool parseInt(const std::string &T, int64_t Lo, int64_t Hi, int64_t &Out) {
  if (T.empty() || T.size() > 20)
    return false;
  char *End = nullptr;
  errno = 0;
  long long V = std::strtoll(T.c_str(), &End, 10);
  if (errno || *End || V < Lo || V > Hi)
    return false;
  Out = V;
  return true;
}

/// A tree's nodes as its lines gave them, checked when the tree ends.
struct TreeLines {
  uint64_t Line = 0; // of its `tree` line
  std::vector<ModelNode> Nodes;
  std::vector<uint64_t> NodeLine; // 0: not given
};

/// Why the nodes of a tree do not make a tree (or ""); its depth in `Depth`.
std::string checkTree(const std::vector<ModelNode> &Nodes, uint32_t &Depth) {
  std::vector<uint32_t> Parents(Nodes.size(), 0), Level(Nodes.size(), 0);
  Depth = 0;
  for (size_t I = 0; I < Nodes.size(); ++I) {
    const ModelNode &N = Nodes[I];
    if (N.Feature < 0)
      continue;
    for (uint32_t C : {N.Left, N.Right}) {
      if (C <= I || C >= Nodes.size())
        return "node " + std::to_string(I) + "'s child " + std::to_string(C) +
               " is not a later node of the tree (nodes 0 to " + std::to_string(Nodes.size() - 1) +
               ", children after their parent)";
      if (++Parents[C] > 1)
        return "node " + std::to_string(C) + " has two parents";
    }
  }
  for (size_t I = 1; I < Nodes.size(); ++I)
    if (Parents[I] == 0)
      return "node " + std::to_string(I) + " is not reached from the root (node 0)";
  // Children come after their parents: one pass gives each node's level.
  for (size_t I = 0; I < Nodes.size(); ++I) {
    if (Nodes[I].Feature < 0) {
      Depth = std::max(Depth, Level[I]);
      continue;
    }
    Level[Nodes[I].Left] = Level[Nodes[I].Right] = Level[I] + 1;
  }
  if (Depth > EBPFGPU_MODEL_MAX_DEPTH)
    return "the tree is " + std::to_string(Depth) + " levels deep, more than " +
           std::to_string(EBPFGPU_MODEL_MAX_DEPTH);
  return "";
}

/// The integers of W[From..]: exactly Count of them, each in [Lo, Hi], into
/// `Out`; or why not ("" when they are).
std::string ints(const std::vector<std::string> &W, size_t From, size_t Count, int64_t Lo,
                 int64_t Hi, const std::string &What, std::vector<int64_t> &Out) {
  if (W.size() - From != Count)
    return "'" + W[0] + "' takes " + std::to_string(Count) + " " + What + ", not " +
           std::to_string(W.size() - From);
  Out.clear();
  for (size_t I = From; I < W.size(); ++I) {
    int64_t V;
    if (!parseInt(W[I], Lo, Hi, V))
      return "'" + W[I] + "': " + What + " are integers from " + std::to_string(Lo) + " to " +
             std::to_string(Hi);
    Out.push_back(V);
  }
  return "";
}

/// parseModelText's reading, a line at a time: the model so far and where
/// in the file it is. Each step takes a line's words and returns why the
/// line is refused ("" when it is not); finish() checks what only the end
/// can (every layer's rows, every tree's nodes).
class ModelParser {
public:
  explicit ModelParser(const std::string &Name) : Name(Name) {}

  /// Line `N`, its words `W` (not empty).
  std::string line(uint64_t N, const std::vector<std::string> &W) {
    if (Where == Start)
      return start(W);
    if (Rows)
      return row(W);
    const std::string &K = W[0];
    if (K == "features" || K == "classes")
      return headField(W);
    if (K == "trees" || K == "mlp")
      return kind(W);
    if (Where == InTrees && K == "bias")
      return bias(W);
    if (Where == InTrees && K == "tree")
      return tree(N, W);
    if (Where == InTrees && (K == "node" || K == "leaf"))
      return node(N, W);
    if (Where == InMlp && K == "input")
      return input(W);
    if (Where == InMlp && K == "layer")
      return layer(N, W);
    return "'" + K + "' is not a line of " +
           (Where == Head    ? std::string("a model's head (features, classes, then trees or mlp)")
            : Where == InTrees ? std::string("a tree ensemble (bias, tree, node, leaf)")
                               : std::string("an MLP (input, layer and its rows)"));
  }

  /// The model, once the file's `Lines` lines are read.
  Expected<ModelSpec> finish(uint64_t Lines);

private:
  Error failAt(uint64_t N, const std::string &Why) const {
    return Error(Name + ":" + std::to_string(N) + ": " + Why);
  }

  std::string start(const std::vector<std::string> &W) {
    if (W.size() != 2 || W[0] != "ebpf-gpu-model")
      return "a model file starts with 'ebpf-gpu-model 1'";
    if (W[1] != "1")
      return "model format version " + W[1] + ": this loader reads version 1";
    Where = Head;
    return "";
  }

  /// An MLP layer's row: its bias, then In weights.
  std::string row(const std::vector<std::string> &W) {
    ModelLayer &L = M.Layers.back();
    if (W.size() != L.In + 1)
      return "a layer's row holds its bias, then " + std::to_string(L.In) + " weights: " +
             std::to_string(L.In + 1) + " numbers, not " + std::to_string(W.size());
    if (std::string Why = ints(W, 0, L.In + 1, -int64_t(EBPFGPU_MODEL_MAX_BIAS),
                               EBPFGPU_MODEL_MAX_BIAS, "a bias and weights", V);
        !Why.empty())
      return Why;
    for (size_t I = 1; I < V.size(); ++I)
      if (V[I] < -128 || V[I] > 127)
        return "weight " + std::to_string(V[I]) + " is not an int8 (-128 to 127)";
    L.Bias.push_back(int32_t(V[0]));
    for (size_t I = 1; I < V.size(); ++I)
      L.Weights.push_back(int8_t(V[I]));
    --Rows;
    return "";
  }

  std::string headField(const std::vector<std::string> &W) {
    const std::string &K = W[0];
    if (Where != Head)
      return "'" + K + "' comes before 'trees' or 'mlp'";
    uint32_t &Field = K == "features" ? M.Features : M.Classes;
    int64_t Lo = K == "features" ? 1 : 2;
    int64_t Hi = K == "features" ? EBPFGPU_MODEL_MAX_FEATURES : EBPFGPU_MODEL_MAX_CLASSES;
    if (Field)
      return "a second '" + K + "' line";
    if (std::string Why = ints(W, 1, 1, Lo, Hi, K, V); !Why.empty())
      return Why;
    Field = uint32_t(V[0]);
    return "";
  }

  std::string kind(const std::vector<std::string> &W) {
    const std::string &K = W[0];
    if (HaveKind)
      return "a second model ('trees' or 'mlp'): a file holds one";
    if (!M.Features || !M.Classes)
      return "'features N' and 'classes C' come before '" + K + "'";
    if (W.size() != 1)
      return "'" + K + "' takes nothing after it";
    HaveKind = true;
    M.Mlp = K == "mlp";
    Where = M.Mlp ? InMlp : InTrees;
    if (M.Mlp)
      M.InShift.assign(M.Features, 0);
    else
      M.Bias.assign(M.Classes, 0);
    return "";
  }

  std::string bias(const std::vector<std::string> &W) {
    if (!Trees.empty())
      return "'bias' comes before the first tree";
    if (std::string Why = ints(W, 1, M.Classes, INT32_MIN, INT32_MAX, "scores", V); !Why.empty())
      return Why;
    std::copy(V.begin(), V.end(), M.Bias.begin());
    return "";
  }

  std::string tree(uint64_t N, const std::vector<std::string> &W) {
    if (W.size() != 1)
      return "'tree' takes nothing after it";
    if (Trees.size() == EBPFGPU_MODEL_MAX_TREES)
      return "more than " + std::to_string(EBPFGPU_MODEL_MAX_TREES) + " trees";
    Trees.push_back(TreeLines{N, {}, {}});
    return "";
  }

  std::string node(uint64_t N, const std::vector<std::string> &W) {
    const std::string &K = W[0];
    if (Trees.empty())
      return "'" + K + "' before any 'tree'";
    bool Leaf = K == "leaf";
    std::string Why =
        Leaf ? ints(W, 1, 1 + M.Classes, INT32_MIN, INT32_MAX, "an index and scores", V)
             : ints(W, 1, 5, INT32_MIN, INT32_MAX, "an index, feature, threshold, left, right", V);
    if (!Why.empty())
      return Why + (Leaf ? " (leaf INDEX and one score a class)"
                         : " (node INDEX FEATURE THRESHOLD LEFT RIGHT)");
    if (V[0] < 0 || V[0] >= int64_t(EBPFGPU_MODEL_MAX_NODES))
      return "node index " + std::to_string(V[0]) + " is not from 0 to " +
             std::to_string(EBPFGPU_MODEL_MAX_NODES - 1);
    if (++TotalNodes > EBPFGPU_MODEL_MAX_NODES)
      return "more than " + std::to_string(EBPFGPU_MODEL_MAX_NODES) + " nodes in all";
    TreeLines &T = Trees.back();
    size_t I = size_t(V[0]);
    if (T.Nodes.size() <= I) {
      T.Nodes.resize(I + 1);
      T.NodeLine.resize(I + 1, 0);
    }
    if (T.NodeLine[I])
      return "node " + std::to_string(I) + " is given twice (line " +
             std::to_string(T.NodeLine[I]) + ")";
    T.NodeLine[I] = N;
    ModelNode &Node = T.Nodes[I];
    if (Leaf) {
      Node.Scores.assign(V.begin() + 1, V.end());
      return "";
    }
    if (V[1] < 0 || V[1] >= int64_t(M.Features))
      return "feature " + std::to_string(V[1]) + " is not one of the model's " +
             std::to_string(M.Features) + " (0 to " + std::to_string(M.Features - 1) + ")";
    if (V[3] < 0 || V[4] < 0)
      return "a child is a node index, not " + std::to_string(std::min(V[3], V[4]));
    Node.Feature = int32_t(V[1]);
    Node.Threshold = int32_t(V[2]);
    Node.Left = uint32_t(V[3]);
    Node.Right = uint32_t(V[4]);
    return "";
  }

  std::string input(const std::vector<std::string> &W) {
    if (!M.Layers.empty())
      return "'input' comes before the first layer";
    if (std::string Why = ints(W, 1, M.Features, 0, 31, "shifts", V); !Why.empty())
      return Why;
    for (size_t I = 0; I < V.size(); ++I)
      M.InShift[I] = uint8_t(V[I]);
    return "";
  }

  std::string layer(uint64_t N, const std::vector<std::string> &W) {
    if (M.Layers.size() == EBPFGPU_MODEL_MAX_LAYERS)
      return "more than " + std::to_string(EBPFGPU_MODEL_MAX_LAYERS) + " layers";
    if (std::string Why = ints(W, 1, 3, 0, INT32_MAX, "sizes", V); !Why.empty())
      return Why + " (layer IN OUT SHIFT)";
    uint32_t Want = M.Layers.empty() ? M.Features : M.Layers.back().Out;
    if (V[0] != Want)
      return "the layer takes " + std::to_string(V[0]) + " inputs; the " +
             (M.Layers.empty() ? "model's features" : "layer before gives") + " " +
             std::to_string(Want);
    if (V[1] < 1 || V[1] > EBPFGPU_MODEL_MAX_WIDTH)
      return "a layer has 1 to " + std::to_string(EBPFGPU_MODEL_MAX_WIDTH) + " outputs, not " +
             std::to_string(V[1]);
    if (V[2] > 31)
      return "shift " + std::to_string(V[2]) + " is not from 0 to 31";
    ModelLayer L;
    L.In = uint32_t(V[0]);
    L.Out = uint32_t(V[1]);
    L.Shift = uint32_t(V[2]);
    M.Layers.push_back(std::move(L));
    Rows = uint32_t(V[1]);
    LayerLine = N;
    return "";
  }

  const std::string &Name;
  ModelSpec M;
  enum { Start, Head, InTrees, InMlp } Where = Start;
  bool HaveKind = false;
  std::vector<TreeLines> Trees;
  uint64_t Rows = 0;      // MLP: rows still owed to the last layer
  uint64_t LayerLine = 0; // the last `layer` line
  uint64_t TotalNodes = 0;
  std::vector<int64_t> V; // the line's integers (ints())
};

Expected<ModelSpec> ModelParser::finish(uint64_t Lines) {
  if (Where == Start)
    return Error(Name + ": empty: a model file starts with 'ebpf-gpu-model 1'");
  if (!HaveKind)
    return failAt(Lines, "the file ends before 'trees' or 'mlp'");
  if (Rows)
    return failAt(LayerLine, "the layer has " + std::to_string(M.Layers.back().Out - Rows) +
                                 " of its " + std::to_string(M.Layers.back().Out) + " rows");
  if (M.Mlp) {
    if (M.Layers.empty())
      return failAt(Lines, "an MLP without layers");
    if (M.Layers.back().Out != M.Classes)
      return failAt(LayerLine, "the last layer gives " + std::to_string(M.Layers.back().Out) +
                                   " outputs, one a class: " + std::to_string(M.Classes));
    return std::move(M);
  }
  if (Trees.empty())
    return failAt(Lines, "a tree ensemble without trees");
  for (TreeLines &T : Trees) {
    for (size_t I = 0; I < T.Nodes.size(); ++I)
      if (!T.NodeLine[I])
        return failAt(T.Line, "the tree has no node " + std::to_string(I) +
                                  " (its nodes are numbered from 0, the root)");
    if (T.Nodes.empty())
      return failAt(T.Line, "a tree without nodes");
    uint32_t Depth;
    if (std::string Why = checkTree(T.Nodes, Depth); !Why.empty())
      return failAt(T.Line, "this tree: " + Why);
    M.Trees.push_back(std::move(T.Nodes));
  }
  return std::move(M);
}

} // namespace

bool looksLikeModelText(const std::string &Text) {
  std::istringstream In(Text);
  std::string Line;
  while (std::getline(In, Line)) {
    std::istringstream Words(Line.substr(0, Line.find('#')));
    std::string W;
    if (Words >> W)
      return W == "ebpf-gpu-model";
  }
  return false;
}

Expected<ModelSpec> parseModelText(const std::string &Text, const std::string &Name) {
  ModelParser P(Name);
  std::istringstream In(Text);
  uint64_t N = 0;
  for (std::string Line; std::getline(In, Line);) {
    ++N;
    std::istringstream Words(Line.substr(0, Line.find('#')));
    std::vector<std::string> W;
    for (std::string T; Words >> T;)
      W.push_back(T);
    if (W.empty())
      continue;
    if (std::string Why = P.line(N, W); !Why.empty())
      return Error(Name + ":" + std::to_string(N) + ": " + Why);
  }
  return P.finish(N);
}

Expected<std::vector<uint8_t>> compileModel(const ModelSpec &Spec) {
  ebpfgpu_model H{};
  H.magic = EBPFGPU_MODEL_MAGIC;
  H.version = EBPFGPU_MODEL_VERSION;
  H.nfeatures = Spec.Features;
  H.nclasses = Spec.Classes;
  std::vector<uint8_t> Out(sizeof(H));
  auto Put32 = [&](uint32_t V) {
    uint8_t B[4];
    std::memcpy(B, &V, 4);
    Out.insert(Out.end(), B, B + 4);
  };
  if (Spec.Mlp) {
    H.kind = EBPFGPU_MODEL_MLP;
    H.nlayers = uint32_t(Spec.Layers.size());
    if (H.nlayers == 0 || H.nlayers > EBPFGPU_MODEL_MAX_LAYERS)
      return Error("an MLP has 1 to " + std::to_string(EBPFGPU_MODEL_MAX_LAYERS) + " layers");
    std::copy(Spec.InShift.begin(), Spec.InShift.end(), H.in_shift);
    H.width[0] = Spec.Features;
    for (size_t L = 0; L < Spec.Layers.size(); ++L) {
      H.width[L + 1] = Spec.Layers[L].Out;
      H.shift[L] = Spec.Layers[L].Shift;
      for (int32_t B : Spec.Layers[L].Bias)
        Put32(uint32_t(B));
    }
    for (const ModelLayer &L : Spec.Layers)
      for (int8_t W : L.Weights)
        Out.push_back(uint8_t(W));
  } else {
    H.kind = EBPFGPU_MODEL_TREES;
    H.ntrees = uint32_t(Spec.Trees.size());
    std::vector<ebpfgpu_model_node> Nodes;
    std::vector<int32_t> Leaves;
    for (const auto &T : Spec.Trees) {
      Put32(uint32_t(Nodes.size())); // the root
      uint32_t Base = uint32_t(Nodes.size()), Depth;
      if (std::string Why = checkTree(T, Depth); !Why.empty())
        return Error(Why);
      H.depth = std::max(H.depth, Depth);
      for (const ModelNode &N : T) {
        ebpfgpu_model_node R{N.Feature, N.Threshold, Base + N.Left, Base + N.Right};
        if (N.Feature < 0) {
          if (N.Scores.size() != Spec.Classes)
            return Error("a leaf needs one score a class");
          R.left = uint32_t(Leaves.size());
          R.right = 0;
          Leaves.insert(Leaves.end(), N.Scores.begin(), N.Scores.end());
        }
        Nodes.push_back(R);
      }
    }
    for (int32_t B : Spec.Bias)
      Put32(uint32_t(B));
    H.nnodes = uint32_t(Nodes.size());
    H.nleaves = uint32_t(Leaves.size() / Spec.Classes);
    for (const ebpfgpu_model_node &N : Nodes) {
      Put32(uint32_t(N.feature));
      Put32(uint32_t(N.threshold));
      Put32(N.left);
      Put32(N.right);
    }
    for (int32_t S : Leaves)
      Put32(uint32_t(S));
  }
  while (Out.size() % 8)
    Out.push_back(0);
  H.bytes = Out.size();
  std::memcpy(Out.data(), &H, sizeof(H));
  if (std::string Why = checkModel(Out.data(), Out.size()); !Why.empty())
    return Error(Why);
  return Out;
}

std::string formatModelText(const ModelSpec &Spec) {
  std::ostringstream O;
  O << "ebpf-gpu-model 1\nfeatures " << Spec.Features << "\nclasses " << Spec.Classes << "\n";
  if (Spec.Mlp) {
    O << "mlp\ninput";
    for (uint8_t S : Spec.InShift)
      O << " " << unsigned(S);
    O << "\n";
    for (const ModelLayer &L : Spec.Layers) {
      O << "layer " << L.In << " " << L.Out << " " << L.Shift << "\n";
      for (uint32_t J = 0; J < L.Out; ++J) {
        O << L.Bias[J];
        for (uint32_t I = 0; I < L.In; ++I)
          O << " " << int(L.Weights[J * L.In + I]);
        O << "\n";
      }
    }
    return O.str();
  }
  O << "trees\nbias";
  for (int32_t B : Spec.Bias)
    O << " " << B;
  O << "\n";
  for (const auto &T : Spec.Trees) {
    O << "tree\n";
    for (size_t I = 0; I < T.size(); ++I) {
      if (T[I].Feature < 0) {
        O << "leaf " << I;
        for (int32_t S : T[I].Scores)
          O << " " << S;
      } else {
        O << "node " << I << " " << T[I].Feature << " " << T[I].Threshold << " " << T[I].Left
          << " " << T[I].Right;
      }
      O << "\n";
    }
  }
  return O.str();
}

Expected<std::vector<uint8_t>> compileModelFile(const std::string &Path) {
  auto Bytes = readFileBytes(Path);
  if (!Bytes)
    return Bytes.error();
  auto Spec = parseModelText(std::string(Bytes->begin(), Bytes->end()), Path);
  if (!Spec)
    return Spec.error();
  auto Out = compileModel(*Spec);
  if (!Out)
    return Error(Path + ": " + Out.error().message());
  return Out;
}

std::string checkModel(const uint8_t *Bytes, size_t Size) {
  ebpfgpu_model H;
  if (Size < sizeof(H))
    return "shorter than a model's header (" + std::to_string(sizeof(H)) + " bytes)";
  std::memcpy(&H, Bytes, sizeof(H));
  if (H.magic != EBPFGPU_MODEL_MAGIC || H.version != EBPFGPU_MODEL_VERSION)
    return "not a model of version " + std::to_string(EBPFGPU_MODEL_VERSION);
  if (H.nfeatures < 1 || H.nfeatures > EBPFGPU_MODEL_MAX_FEATURES || H.nclasses < 2 ||
      H.nclasses > EBPFGPU_MODEL_MAX_CLASSES)
    return "bad feature or class count";
  if (H.bytes != Size)
    return "its sizes do not add up";
  auto Load32 = [&](uint64_t At) {
    uint32_t V;
    std::memcpy(&V, Bytes + At, 4);
    return V;
  };
  uint64_t Want = sizeof(H);
  if (H.kind == EBPFGPU_MODEL_MLP) {
    if (H.nlayers < 1 || H.nlayers > EBPFGPU_MODEL_MAX_LAYERS || H.width[0] != H.nfeatures ||
        H.width[H.nlayers] != H.nclasses)
      return "bad layer count or widths";
    uint64_t NBias = 0, NWeights = 0;
    for (uint32_t L = 0; L < H.nlayers; ++L) {
      if (H.width[L + 1] < 1 || H.width[L + 1] > EBPFGPU_MODEL_MAX_WIDTH || H.shift[L] > 31)
        return "layer " + std::to_string(L) + "'s width or shift is out of bounds";
      NBias += H.width[L + 1];
      NWeights += uint64_t(H.width[L + 1]) * H.width[L];
    }
    for (uint32_t I = 0; I < H.nfeatures; ++I)
      if (H.in_shift[I] > 31)
        return "feature " + std::to_string(I) + "'s shift is out of bounds";
    Want += NBias * 4 + NWeights;
    if (Size != (Want + 7) / 8 * 8)
      return "its sizes do not add up";
    for (uint64_t I = 0; I < NBias; ++I) {
      int32_t B = int32_t(Load32(sizeof(H) + I * 4));
      if (B < -EBPFGPU_MODEL_MAX_BIAS || B > EBPFGPU_MODEL_MAX_BIAS)
        return "a bias past 2^24";
    }
    return "";
  }
  if (H.kind != EBPFGPU_MODEL_TREES)
    return "an unknown model kind " + std::to_string(H.kind);
  if (H.ntrees < 1 || H.ntrees > EBPFGPU_MODEL_MAX_TREES || H.nnodes < H.ntrees ||
      H.nnodes > EBPFGPU_MODEL_MAX_NODES || H.nleaves < 1 || H.nleaves > H.nnodes ||
      H.depth > EBPFGPU_MODEL_MAX_DEPTH)
    return "bad tree, node, leaf count or depth";
  uint64_t RootAt = sizeof(H), NodeAt = RootAt + 4 * (uint64_t(H.ntrees) + H.nclasses);
  uint64_t LeafAt = NodeAt + 16 * uint64_t(H.nnodes);
  Want = LeafAt + 4 * uint64_t(H.nleaves) * H.nclasses;
  if (Size != (Want + 7) / 8 * 8)
    return "its sizes do not add up";
  // Every split's children are later nodes, so no walk loops; each node's
  // level (from its tree's root) bounds a walk's length by the depth.
  std::vector<uint32_t> Level(H.nnodes, UINT32_MAX);
  for (uint32_t T = 0; T < H.ntrees; ++T) {
    uint32_t R = Load32(RootAt + 4 * T);
    if (R >= H.nnodes)
      return "tree " + std::to_string(T) + "'s root is past the nodes";
    Level[R] = 0;
  }
  for (uint32_t I = 0; I < H.nnodes; ++I) {
    int32_t F = int32_t(Load32(NodeAt + 16 * uint64_t(I)));
    uint32_t L = Load32(NodeAt + 16 * uint64_t(I) + 8), R = Load32(NodeAt + 16 * uint64_t(I) + 12);
    if (Level[I] == UINT32_MAX)
      continue; // unreachable: never walked
    if (F < 0) {
      if (F != -1 || L % H.nclasses || L / H.nclasses >= H.nleaves)
        return "node " + std::to_string(I) + ": a bad leaf";
      continue;
    }
    if (uint32_t(F) >= H.nfeatures || L <= I || R <= I || L >= H.nnodes || R >= H.nnodes)
      return "node " + std::to_string(I) + ": a bad split";
    if (Level[I] + 1 > H.depth)
      return "node " + std::to_string(I) + " is deeper than the model's depth";
    Level[L] = Level[R] = Level[I] + 1;
  }
  return "";
}

std::string describeModel(const uint8_t *Bytes) {
  ebpfgpu_model H;
  std::memcpy(&H, Bytes, sizeof(H));
  std::string Shape;
  if (H.kind == EBPFGPU_MODEL_MLP) {
    Shape = "mlp of " + std::to_string(H.nlayers) + " layers (";
    for (uint32_t L = 0; L <= H.nlayers; ++L) {
      if (L)
        Shape += '-';
      Shape += std::to_string(H.width[L]);
    }
    Shape += ")";
  } else {
    Shape = "tree ensemble of " + std::to_string(H.ntrees) + " trees, " +
            std::to_string(H.nnodes) + " nodes, depth " + std::to_string(H.depth);
  }
  return Shape + ", " + std::to_string(H.nfeatures) + " features, " + std::to_string(H.nclasses) +
         " classes, " + std::to_string(H.bytes) + " bytes";
}

} // namespace ebpfgpu::abi
