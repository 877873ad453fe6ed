// SPDX-License-Identifier: Apache-2.0
//
// The regex subset of pattern files (docs/KFUNCS.md) compiled into the same
// DFA layout as literal sets: each rule parsed into a small syntax tree
// (byte sets, concatenation, alternation, bounded repetition), all rules
// of a file built into one Thompson NFA, its byte sets refined into byte
// classes, then subset construction over the union with the start state
// joined to every state (unanchored search: a rule matches where any
// substring does). A DFA state's match is the lowest id of the rules whose
// accepting NFA state it holds, so the scan's first match is the same
// "ends first, lowest id" as the literal automaton's. The DFA is then
// minimised (Hopcroft, 1971): states with the same rules ending in them
// start in one block, and blocks split until every block's states go to
// one block on each class, so the answers (first match, lowest id, every
// rule's bit) are unchanged. The construction stops at
// EBPFGPU_PATTERNS_MAX_DFA_BUILD_STATES, the minimised DFA at
// EBPFGPU_PATTERNS_MAX_DFA_STATES: the rule that crosses a cap is found by
// bisection over the file's prefixes and named.

#include "PatternsImpl.h"

#include "ebpf-gpu/Platform/MapAbi.h"

#include <algorithm>
#include <bitset>
#include <cctype>
#include <map>
#include <memory>
#include <unordered_map>

namespace ebpfgpu::abi::detail {

namespace {

using ByteSet = std::bitset<256>;

struct Node {
  enum Kind { Set, Concat, Alt, Repeat } K = Set;
  ByteSet Bytes;                            // Set
  std::vector<std::unique_ptr<Node>> Kids;  // Concat, Alt; Repeat: one
  unsigned Min = 0, Max = 0;                // Repeat; Max == Unbounded: no bound
};
constexpr unsigned Unbounded = ~0u;

int hexValue(char C) {
  if (C >= '0' && C <= '9')
    return C - '0';
  C = char(std::tolower(static_cast<unsigned char>(C)));
  return C >= 'a' && C <= 'f' ? C - 'a' + 10 : -1;
}

ByteSet range(unsigned Lo, unsigned Hi) {
  ByteSet S;
  for (unsigned B = Lo; B <= Hi; ++B)
    S.set(B);
  return S;
}

/// Python's and PCRE's ASCII classes: \d [0-9], \w [A-Za-z0-9_],
/// \s [ \t\n\v\f\r].
ByteSet predefined(char C) {
  ByteSet S;
  switch (std::tolower(static_cast<unsigned char>(C))) {
  case 'd':
    S = range('0', '9');
    break;
  case 'w':
    S = range('0', '9') | range('A', 'Z') | range('a', 'z');
    S.set('_');
    break;
  default: // 's'
    S = range('\t', '\r');
    S.set(' ');
    break;
  }
  return std::isupper(static_cast<unsigned char>(C)) ? ~S : S;
}

ByteSet foldCase(ByteSet S) {
  for (unsigned B = 'a'; B <= 'z'; ++B)
    if (S[B] || S[B - 32])
      S.set(B).set(B - 32);
  return S;
}

class Parser {
public:
  Parser(const std::string &T, bool Nocase) : T(T), Nocase(Nocase) {}

  std::unique_ptr<Node> parse() {
    auto N = alt();
    if (N && At < T.size() && Why.empty())
      Why = T[At] == ')' ? "a ')' without its '('" : std::string("unexpected '") + T[At] + "'";
    return Why.empty() ? std::move(N) : nullptr;
  }
  std::string Why;

private:
  const std::string &T;
  bool Nocase;
  size_t At = 0;
  unsigned Depth = 0;

  std::unique_ptr<Node> fail(const std::string &W) {
    if (Why.empty())
      Why = W;
    return nullptr;
  }
  std::unique_ptr<Node> set(ByteSet S) {
    auto N = std::make_unique<Node>();
    N->Bytes = S;
    return N;
  }

  std::unique_ptr<Node> alt() {
    auto First = concat();
    if (!First)
      return nullptr;
    if (At >= T.size() || T[At] != '|')
      return First;
    auto N = std::make_unique<Node>();
    N->K = Node::Alt;
    N->Kids.push_back(std::move(First));
    while (At < T.size() && T[At] == '|') {
      ++At;
      auto Next = concat();
      if (!Next)
        return nullptr;
      N->Kids.push_back(std::move(Next));
    }
    return N;
  }

  std::unique_ptr<Node> concat() {
    auto N = std::make_unique<Node>();
    N->K = Node::Concat;
    while (At < T.size() && T[At] != '|' && T[At] != ')') {
      auto A = atom();
      if (!A)
        return nullptr;
      while (At < T.size() && (T[At] == '*' || T[At] == '+' || T[At] == '?' || T[At] == '{')) {
        unsigned Min = 0, Max = Unbounded;
        if (T[At] == '{') {
          if (!bounds(Min, Max))
            return nullptr;
        } else {
          Min = T[At] == '+' ? 1 : 0;
          Max = T[At] == '?' ? 1 : Unbounded;
          ++At;
        }
        if (A->K == Node::Repeat)
          return fail("a quantifier after a quantifier (lazy and possessive forms are not in the "
                      "subset; group it: (a*)?)");
        auto R = std::make_unique<Node>();
        R->K = Node::Repeat;
        R->Min = Min;
        R->Max = Max;
        R->Kids.push_back(std::move(A));
        A = std::move(R);
      }
      N->Kids.push_back(std::move(A));
    }
    return N;
  }

  /// {m}, {m,} or {m,n}, each count at most EBPFGPU_PATTERNS_MAX_REPEAT.
  bool bounds(unsigned &Min, unsigned &Max) {
    size_t Close = T.find('}', At);
    if (Close == std::string::npos)
      return fail("a '{' repetition is not closed"), false;
    std::string In = T.substr(At + 1, Close - At - 1);
    size_t Comma = In.find(',');
    auto Num = [&](const std::string &D, unsigned &Out) {
      if (D.empty() || D.size() > 5 ||
          !std::all_of(D.begin(), D.end(), [](unsigned char C) { return std::isdigit(C); }))
        return false;
      Out = unsigned(std::stoul(D));
      return true;
    };
    bool Ok = Num(In.substr(0, Comma), Min);
    if (Ok && Comma == std::string::npos)
      Max = Min;
    else if (Ok && Comma + 1 == In.size())
      Max = Unbounded;
    else if (Ok)
      Ok = Num(In.substr(Comma + 1), Max);
    if (!Ok)
      return fail("'{" + In + "}': a repetition is {m}, {m,} or {m,n} with decimal counts"), false;
    if (Max != Unbounded && Max < Min)
      return fail("'{" + In + "}': the upper count is below the lower"), false;
    if (Min > EBPFGPU_PATTERNS_MAX_REPEAT ||
        (Max != Unbounded && Max > EBPFGPU_PATTERNS_MAX_REPEAT))
      return fail("'{" + In + "}': repetition counts are at most " +
                  std::to_string(EBPFGPU_PATTERNS_MAX_REPEAT)),
             false;
    At = Close + 1;
    return true;
  }

  /// The escape whose '\' is at At, as the set S; Single says whether it
  /// is one byte (what a range's ends must be) or a class (\d ...).
  bool escape(ByteSet &S, bool &Single) {
    if (At + 1 >= T.size())
      return fail("a '\\' ends the pattern (write \\\\ for a backslash)"), false;
    char E = T[At + 1];
    At += 2;
    Single = true;
    S.reset();
    switch (E) {
    case 'x': {
      int Hi = At < T.size() ? hexValue(T[At]) : -1;
      int Lo = At + 1 < T.size() ? hexValue(T[At + 1]) : -1;
      if (Hi < 0 || Lo < 0)
        return fail("\\x takes two hex digits"), false;
      S.set(unsigned(Hi * 16 + Lo));
      At += 2;
      return true;
    }
    case 'n': S.set('\n'); return true;
    case 'r': S.set('\r'); return true;
    case 't': S.set('\t'); return true;
    case 'f': S.set('\f'); return true;
    case 'v': S.set('\v'); return true;
    case 'd': case 'D': case 'w': case 'W': case 's': case 'S':
      S = predefined(E);
      Single = false;
      return true;
    default:
      if (std::isalnum(static_cast<unsigned char>(E)))
        return fail(std::string("unknown escape \\") + E +
                    " (\\xHH, \\n \\r \\t \\f \\v, \\d \\w \\s and their negations, and "
                    "escaped punctuation are known)"),
               false;
      S.set(static_cast<unsigned char>(E));
      return true;
    }
  }

  std::unique_ptr<Node> atom() {
    char C = T[At];
    switch (C) {
    case '(': {
      if (++Depth > 32)
        return fail("groups nest deeper than 32");
      ++At;
      if (At < T.size() && T[At] == '?')
        return fail("'(?' group forms are not in the subset");
      auto N = alt();
      if (!N)
        return nullptr;
      if (At >= T.size() || T[At] != ')')
        return fail("a '(' group is not closed");
      ++At;
      --Depth;
      return N;
    }
    case '[':
      return bracket();
    case '.':
      ++At;
      return set(ByteSet().set());
    case '\\': {
      ByteSet S;
      bool Single;
      if (!escape(S, Single))
        return nullptr;
      return set(Nocase ? foldCase(S) : S);
    }
    case '*': case '+': case '?': case '{':
      return fail(std::string("'") + C + "' with nothing to repeat");
    case '^': case '$':
      return fail(std::string("the anchor '") + C +
                  "' is not in the subset (a rule matches anywhere in the bytes); write \\" + C +
                  " for the byte");
    case ']': case '}':
      return fail(std::string("a stray '") + C + "' (write \\" + C + " for the byte)");
    default:
      ++At;
      return set(Nocase ? foldCase(ByteSet().set(static_cast<unsigned char>(C)))
                        : ByteSet().set(static_cast<unsigned char>(C)));
    }
  }

  /// [...] or [^...]: bytes, escapes, ranges a-z; ']' and '-' escaped or
  /// '-' first or last. Case is folded before a '^' negates, as PCRE's and
  /// Python's [^a] with nocase refuse both 'a' and 'A'.
  std::unique_ptr<Node> bracket() {
    ++At;
    bool Negate = At < T.size() && T[At] == '^';
    if (Negate)
      ++At;
    ByteSet S;
    bool Any = false;
    while (true) {
      if (At >= T.size())
        return fail("a '[' class is not closed");
      if (T[At] == ']')
        break;
      ByteSet Lo;
      bool Single = true;
      unsigned LoByte = static_cast<unsigned char>(T[At]);
      if (T[At] == '\\') {
        if (!escape(Lo, Single))
          return nullptr;
        if (Single)
          LoByte = unsigned(Lo._Find_first());
      } else {
        Lo.set(LoByte);
        ++At;
      }
      if (Single && At + 1 < T.size() && T[At] == '-' && T[At + 1] != ']') {
        ++At;
        ByteSet Hi;
        bool HiSingle = true;
        unsigned HiByte = static_cast<unsigned char>(T[At]);
        if (T[At] == '\\') {
          if (!escape(Hi, HiSingle))
            return nullptr;
          if (!HiSingle)
            return fail("a range's end is a class (\\d, \\w, \\s)");
          HiByte = unsigned(Hi._Find_first());
        } else {
          ++At;
        }
        if (HiByte < LoByte)
          return fail("a range's end is below its start");
        Lo = range(LoByte, HiByte);
      }
      S |= Lo;
      Any = true;
    }
    ++At;
    if (!Any)
      return fail("an empty class '[]' (write \\] for the byte)");
    if (Nocase)
      S = foldCase(S);
    return set(Negate ? ~S : S);
  }
};

bool nullable(const Node &N) {
  switch (N.K) {
  case Node::Set:
    return false;
  case Node::Concat:
    return std::all_of(N.Kids.begin(), N.Kids.end(), [](const auto &K) { return nullable(*K); });
  case Node::Alt:
    return std::any_of(N.Kids.begin(), N.Kids.end(), [](const auto &K) { return nullable(*K); });
  case Node::Repeat:
    return N.Min == 0 || nullable(*N.Kids[0]);
  }
  return false;
}

/// A rule's syntax tree, or null with Why set.
std::unique_ptr<Node> parseRule(const PatternRule &R, std::string &Why) {
  if (!R.IsRegex) {
    auto N = std::make_unique<Node>();
    N->K = Node::Concat;
    for (uint8_t B : R.Bytes) {
      auto S = std::make_unique<Node>();
      S->Bytes.set(B);
      N->Kids.push_back(std::move(S));
    }
    return N;
  }
  Parser P(R.Regex, R.Nocase);
  auto N = P.parse();
  if (!N) {
    Why = P.Why;
    return nullptr;
  }
  if (nullable(*N)) {
    Why = "the pattern matches the empty string (it would match every packet)";
    return nullptr;
  }
  return N;
}

/// The NFA of all rules: Thompson's construction, states with one byte
/// set edge or up to two empty edges; each rule's accepting state.
struct Nfa {
  struct State {
    int32_t Set = -1; // index into Sets, -1: empty edges only
    uint32_t To = 0;
    std::vector<uint32_t> Eps;
    int32_t Accepts = -1; // rule id
  };
  std::vector<State> States;
  std::vector<ByteSet> Sets;
  std::map<std::string, int32_t> SetIndex;
  std::vector<uint32_t> Starts;
  size_t Limit = size_t(1) << 22;
  bool TooBig = false;

  uint32_t add() {
    if (States.size() >= Limit)
      TooBig = true;
    States.emplace_back();
    return uint32_t(States.size() - 1);
  }
  int32_t setOf(const ByteSet &S) {
    auto [It, New] = SetIndex.try_emplace(S.to_string(), int32_t(Sets.size()));
    if (New)
      Sets.push_back(S);
    return It->second;
  }
  /// The fragment of N from In; returns its exit state.
  uint32_t build(const Node &N, uint32_t In) {
    if (TooBig)
      return In;
    switch (N.K) {
    case Node::Set: {
      // A fresh state holds the byte edge: In may be a loop's head, whose
      // own edges are empty ones.
      uint32_t E = add();
      uint32_t Out = add();
      States[In].Eps.push_back(E);
      States[E].Set = setOf(N.Bytes);
      States[E].To = Out;
      return Out;
    }
    case Node::Concat:
      for (const auto &K : N.Kids)
        In = build(*K, In);
      return In;
    case Node::Alt: {
      uint32_t Out = add();
      for (const auto &K : N.Kids) {
        uint32_t Entry = add();
        States[In].Eps.push_back(Entry);
        States[build(*K, Entry)].Eps.push_back(Out);
      }
      return Out;
    }
    case Node::Repeat: {
      const Node &K = *N.Kids[0];
      for (unsigned I = 0; I < N.Min; ++I)
        In = build(K, In);
      if (N.Max == Unbounded) {
        // A loop: from In, take K any number of times.
        uint32_t Loop = add();
        States[In].Eps.push_back(Loop);
        uint32_t Back = build(K, Loop);
        States[Back].Eps.push_back(Loop);
        return Loop;
      }
      uint32_t Out = add();
      for (unsigned I = N.Min; I < N.Max; ++I) {
        States[In].Eps.push_back(Out);
        In = build(K, In);
      }
      States[In].Eps.push_back(Out);
      return Out;
    }
    }
    return In;
  }
};

} // namespace

std::string checkRegex(const PatternRule &R) {
  std::string Why;
  parseRule(R, Why);
  return Why;
}

void minimiseDfa(DfaResult &D) {
  const uint32_t N = uint32_t(D.Outputs.size()), NC = D.NClasses;
  if (N <= 1)
    return;
  // Each class's inverse: the states that go to t on c are
  // Pred[Start[c * N + t]] to Pred[Start[c * N + t + 1] - 1].
  std::vector<uint32_t> Start(size_t(NC) * N + 1, 0), Pred(size_t(N) * NC);
  for (uint32_t S = 0; S < N; ++S)
    for (uint32_t C = 0; C < NC; ++C)
      ++Start[size_t(C) * N + D.Next[size_t(S) * NC + C]];
  for (size_t K = 1; K < Start.size(); ++K)
    Start[K] += Start[K - 1]; // the end of each list, for now
  for (uint32_t S = N; S-- > 0;)
    for (uint32_t C = 0; C < NC; ++C)
      Pred[--Start[size_t(C) * N + D.Next[size_t(S) * NC + C]]] = S;
  Start.back() = uint32_t(Pred.size());

  // The partition: block B's states are Elems[First[B]] to
  // Elems[End[B] - 1], its marked ones (those moving to the splitter)
  // first. The initial blocks: states with the same output list.
  std::vector<uint32_t> Elems(N), Loc(N), BlockOf(N), First, End, Marked;
  {
    std::map<std::vector<int32_t>, uint32_t> ByOutputs;
    for (uint32_t S = 0; S < N; ++S)
      BlockOf[S] = ByOutputs.try_emplace(D.Outputs[S], uint32_t(ByOutputs.size())).first->second;
    const uint32_t NB = uint32_t(ByOutputs.size());
    First.assign(NB + 1, 0);
    for (uint32_t S = 0; S < N; ++S)
      ++First[BlockOf[S] + 1];
    for (uint32_t B = 1; B <= NB; ++B)
      First[B] += First[B - 1];
    End.assign(First.begin() + 1, First.end());
    First.pop_back();
    std::vector<uint32_t> Fill = First;
    for (uint32_t S = 0; S < N; ++S) {
      Loc[S] = Fill[BlockOf[S]]++;
      Elems[Loc[S]] = S;
    }
    Marked.assign(NB, 0);
  }
  // Splitters (block, class). Hopcroft's rule: of a split block, only the
  // smaller part joins the splitters (where the whole still waits, it
  // waits as the other part), which bounds the work by NC * N log N.
  std::vector<std::pair<uint32_t, uint32_t>> Work;
  for (uint32_t B = 0; B < First.size(); ++B)
    for (uint32_t C = 0; C < NC; ++C)
      Work.emplace_back(B, C);
  std::vector<uint32_t> Splitter, Touched;
  while (!Work.empty()) {
    auto [A, C] = Work.back();
    Work.pop_back();
    // A's states, copied: marking reorders the states of the blocks it
    // touches, A among them.
    Splitter.assign(Elems.begin() + First[A], Elems.begin() + End[A]);
    for (uint32_t T : Splitter)
      for (uint32_t I = Start[size_t(C) * N + T], E = Start[size_t(C) * N + T + 1]; I < E; ++I) {
        uint32_t P = Pred[I], B = BlockOf[P];
        uint32_t To = First[B] + Marked[B];
        if (Loc[P] < To)
          continue; // marked already
        if (Marked[B]++ == 0)
          Touched.push_back(B);
        uint32_t Q = Elems[To];
        std::swap(Elems[Loc[P]], Elems[To]);
        Loc[Q] = Loc[P];
        Loc[P] = To;
      }
    for (uint32_t B : Touched) {
      uint32_t M = Marked[B];
      Marked[B] = 0;
      if (M == End[B] - First[B])
        continue;
      // The smaller part becomes the new block (its states relabelled).
      uint32_t NB = uint32_t(First.size());
      if (M <= End[B] - First[B] - M) {
        First.push_back(First[B]);
        End.push_back(First[B] + M);
        First[B] += M;
      } else {
        First.push_back(First[B] + M);
        End.push_back(End[B]);
        End[B] = First[B] + M;
      }
      Marked.push_back(0);
      for (uint32_t I = First[NB]; I < End[NB]; ++I)
        BlockOf[Elems[I]] = NB;
      for (uint32_t Cl = 0; Cl < NC; ++Cl)
        Work.emplace_back(NB, Cl);
    }
    Touched.clear();
  }

  // The minimal DFA: a block's state numbered by its lowest old state, so
  // the start (old 0) stays 0.
  const uint32_t NB = uint32_t(First.size());
  if (NB == N)
    return;
  std::vector<uint32_t> NewId(NB, UINT32_MAX), Rep;
  for (uint32_t S = 0; S < N; ++S)
    if (NewId[BlockOf[S]] == UINT32_MAX) {
      NewId[BlockOf[S]] = uint32_t(Rep.size());
      Rep.push_back(S);
    }
  std::vector<uint32_t> Next(size_t(NB) * NC);
  std::vector<std::vector<int32_t>> Outputs(NB);
  for (uint32_t B = 0; B < NB; ++B) {
    for (uint32_t C = 0; C < NC; ++C)
      Next[size_t(B) * NC + C] = NewId[BlockOf[D.Next[size_t(Rep[B]) * NC + C]]];
    Outputs[B] = std::move(D.Outputs[Rep[B]]);
  }
  D.Next = std::move(Next);
  D.Outputs = std::move(Outputs);
}

DfaResult compileDfa(const std::vector<PatternRule> &Rules, size_t Count, uint32_t MaxStates,
                     uint32_t BuildStates, bool Minimise) {
  DfaResult Res;
  Nfa N;
  for (size_t I = 0; I < Count; ++I) {
    std::string Why;
    auto Tree = parseRule(Rules[I], Why);
    if (!Tree) {
      Res.Why = Why;
      Res.Rule = I;
      return Res;
    }
    uint32_t Start = N.add();
    N.Starts.push_back(Start);
    uint32_t End = N.build(*Tree, Start);
    N.States[End].Accepts = int32_t(Rules[I].Id);
    if (N.TooBig) {
      Res.Why = "the rules' NFA needs more than " + std::to_string(N.Limit) + " states";
      Res.Rule = I;
      return Res;
    }
  }
  // Byte classes: bytes that every set treats alike share one.
  std::vector<std::vector<bool>> Sig(256, std::vector<bool>(N.Sets.size()));
  for (size_t S = 0; S < N.Sets.size(); ++S)
    for (unsigned B = 0; B < 256; ++B)
      Sig[B][S] = N.Sets[S][B];
  std::map<std::vector<bool>, uint8_t> ClassOf;
  std::vector<unsigned> Rep;
  for (unsigned B = 0; B < 256; ++B) {
    auto [It, New] = ClassOf.try_emplace(Sig[B], uint8_t(Rep.size()));
    if (New)
      Rep.push_back(B);
    Res.Classes[B] = It->second;
  }
  Res.NClasses = uint32_t(Rep.size());
  const uint32_t NC = Res.NClasses;

  // Subset construction. The start states' closure belongs to every DFA
  // state (the search is unanchored), so a DFA state is kept as the sorted
  // list of the other NFA states it holds (small, quick to hash), and the
  // starts' moves on each class are computed once.
  std::vector<uint32_t> Mark(N.States.size(), 0), InStart(N.States.size(), 0);
  uint32_t Epoch = 0;
  // The closure of Seed, without pure-empty-edge states (only byte edges
  // and accepts decide what follows) and without the starts' closure.
  auto Closure = [&](const std::vector<uint32_t> &Seed) {
    ++Epoch;
    std::vector<uint32_t> Out, Stack;
    for (uint32_t S : Seed)
      if (Mark[S] != Epoch) {
        Mark[S] = Epoch;
        Stack.push_back(S);
      }
    while (!Stack.empty()) {
      uint32_t S = Stack.back();
      Stack.pop_back();
      if (!InStart[S] && (N.States[S].Set >= 0 || N.States[S].Accepts >= 0))
        Out.push_back(S);
      for (uint32_t T : N.States[S].Eps)
        if (Mark[T] != Epoch) {
          Mark[T] = Epoch;
          Stack.push_back(T);
        }
    }
    std::sort(Out.begin(), Out.end());
    return Out;
  };
  std::vector<uint32_t> StartSet = Closure(N.Starts);
  for (uint32_t S : StartSet)
    InStart[S] = 1;
  std::vector<std::vector<uint32_t>> StartMove(NC);
  for (uint32_t C = 0; C < NC; ++C)
    for (uint32_t S : StartSet)
      if (N.States[S].Set >= 0 && N.Sets[N.States[S].Set][Rep[C]])
        StartMove[C].push_back(N.States[S].To);
  struct Hash {
    size_t operator()(const std::vector<uint32_t> &V) const {
      size_t H = 1469598103934665603ull;
      for (uint32_t X : V)
        H = (H ^ X) * 1099511628211ull;
      return H;
    }
  };
  std::unordered_map<std::vector<uint32_t>, uint32_t, Hash> Ids;
  std::vector<std::vector<uint32_t>> Sets;
  auto Intern = [&](std::vector<uint32_t> S) -> int64_t {
    auto It = Ids.find(S);
    if (It != Ids.end())
      return It->second;
    if (Sets.size() >= BuildStates)
      return -1;
    uint32_t Id = uint32_t(Sets.size());
    Ids.emplace(S, Id);
    Sets.push_back(std::move(S));
    return Id;
  };
  Intern({});
  for (size_t D = 0; D < Sets.size(); ++D) {
    for (uint32_t C = 0; C < NC; ++C) {
      std::vector<uint32_t> Seed = StartMove[C];
      for (uint32_t S : Sets[D]) {
        const Nfa::State &St = N.States[S];
        if (St.Set >= 0 && N.Sets[St.Set][Rep[C]])
          Seed.push_back(St.To);
      }
      int64_t T = Intern(Closure(Seed));
      if (T < 0) {
        Res.TooManyStates = true;
        Res.Why = "the regex rules' DFA needs more than " + std::to_string(BuildStates) +
                  " states before minimisation";
        return Res;
      }
      Res.Next.push_back(uint32_t(T));
    }
  }
  Res.Outputs.resize(Sets.size());
  for (size_t D = 0; D < Sets.size(); ++D) {
    std::vector<int32_t> &O = Res.Outputs[D];
    for (uint32_t S : Sets[D])
      if (N.States[S].Accepts >= 0)
        O.push_back(N.States[S].Accepts);
    std::sort(O.begin(), O.end());
    O.erase(std::unique(O.begin(), O.end()), O.end());
  }
  Res.BuiltStates = uint32_t(Sets.size());
  Sets.clear();
  Ids.clear();
  if (Minimise)
    minimiseDfa(Res);
  if (Res.Outputs.size() > MaxStates) {
    Res.TooManyStates = true;
    Res.Why = "the regex rules' DFA needs more than " + std::to_string(MaxStates) + " states";
  }
  return Res;
}

} // namespace ebpfgpu::abi::detail
