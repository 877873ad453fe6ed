// SPDX-License-Identifier: Apache-2.0
//
// ebpf-gpu-bench: compiled XDP programs against their hand-written CUDA
// twins, on the same packets, in one run, with no LLVM. For each pair of a
// suite: both are loaded through the loader (PTX JIT-compiled by the
// driver), the compiled one gets its map entries (a map file, as the
// loader's --map-file) and the twin the same tables in its own layout
// (module globals); then every verdict, redirect target and output byte is
// checked (how depends on whether the program's decisions depend on packet
// order, below), and only then timed: warm-up, then interleaved
// repetitions (compiled, twin, compiled, ...) timed with device events,
// median, min and p90 reported. The packets stay in GPU memory; their
// bytes are restored before every launch (programs rewrite them). An
// end-to-end mode times the whole path of a batch (pinned staging, copy
// in, kernel, verdicts out, one stream) by batch size.
//
// Checks, per pair:
//   exact     every verdict and output byte equal (order-independent programs)
//   converge  stateful programs whose state settles (a firewall's flow
//             table once every flow's SYN has been seen): each program runs
//             passes over the packets until two passes decide alike, then
//             the settled passes must agree exactly
//   cms:T     count-min sketch with threshold T: each program's verdicts
//             in its first two passes, from zero sketches, are checked
//             against bounds computed here (a packet must be dropped when
//             its estimate before the pass is past T, must pass when its
//             estimate after the pass is not; in between either is right)
//
// usage: ebpf-gpu-bench --suite FILE --pcap IN.pcap [options]
//        ebpf-gpu-bench --gpu-object P.gpu.o --cuda-ptx K.ptx --cuda-kernel NAME --pcap IN.pcap
//        ebpf-gpu-bench --probe   (opens the GPU, prints its name: exit 0 when usable)
// Suite lines: NAME compiled=P.gpu.o ptx=K.ptx kernel=K [maps=FILE]
//   [twin-array=MAP:GLOBAL]... [twin-sorted=MAP:GLOBAL:COUNT_GLOBAL]
//   [twin-map=MAP:GLOBAL]... [twin-zero=GLOBAL] [twin-state=GLOBAL]...
//   [check=exact|converge|cms:T]
//   ('#' comments)
// twin-array writes the value of each MAP entry of the map file at
// GLOBAL + key * value size; twin-sorted writes key||value records sorted
// by the key's first 32-bit word (an LPM prefix length), largest first, and
// their number to COUNT_GLOBAL; twin-map writes the whole content a
// "MAP:@FILE" line gives a pattern map (the automaton compiled from FILE,
// the bytes the compiled program's map then holds) at GLOBAL, so that both
// scan the same automaton; twin-zero names a 32-bit counter of the
// twin that must be 0 after the checks (e.g. refused inserts); twin-state
// names the twin's tables that hold a converging program's state.
//
// Converging programs are timed from their settled state: once both have
// settled, the compiled program's maps and the twin's twin-state globals
// are saved, and every timed launch starts from that copy (restored
// outside the timed span). Without it each launch would start where the
// last left off (flows deleted by FIN and opened again by SYN, elements
// moved between lists), and the compiled firewall's median moved by 30%
// between runs of one object. Before it is saved, the compiled program's
// hashed maps are relaid in key order (abi::relayHashMap: the same
// contents, element i the i-th smallest key), so every run times one
// placement, not whichever the settle passes' race to insert left (two
// identical conntrack objects differed by up to 15% in one run before);
// --keep-placement times the raced placement. The twins' tables are
// their own formats and keep theirs.

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Loader/GpuLoader.h"
#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Support/ReadFile.h"
#include "ebpf-gpu/Tools/ArgCursor.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "BenchCommon.h"

using namespace ebpfgpu;
using namespace ebpfgpu::bench;

[[noreturn]] void ebpfgpu::bench::fail(const std::string &Msg, int Code) {
  std::fprintf(stderr, "ebpf-gpu-bench: error: %s\n", Msg.c_str());
  std::exit(Code);
}


namespace {

struct Stats {
  double Median = 0, Min = 0, P90 = 0, P99 = 0;
};

Stats summarize(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  Stats S;
  S.Min = V.front();
  S.Median = V[V.size() / 2];
  S.P90 = V[std::min(V.size() - 1, V.size() * 9 / 10)];
  S.P99 = V[std::min(V.size() - 1, V.size() * 99 / 100)];
  return S;
}

using loader::MapEntry;

/// MAP:KEYHEX:VALUEHEX lines, '#' comments (the loader's --map-file).
std::vector<MapEntry> readMapFile(const std::string &Path) {
  auto Entries = loader::readMapFile(Path);
  if (!Entries)
    fail(Entries.error().message());
  return std::move(*Entries);
}

struct Pair {
  std::string Name, Compiled, Ptx, Kernel, MapFile, Check = "exact";
  std::vector<std::pair<std::string, std::string>> TwinArrays; ///< map, global
  std::vector<std::pair<std::string, std::string>> TwinMaps;   ///< map, global
  std::string SortedMap, SortedGlobal, SortedCount;
  std::vector<std::string> TwinZero, TwinState;
};

std::vector<Pair> readSuite(const std::string &Path) {
  return readSuiteFile<Pair>(
      Path, "benchmark pairs",
      [](Pair &P, const std::string &K, const std::string &V, const std::string &W,
         const std::string &Where) {
        auto Parts = split(V, ':');
        if (K == "compiled") P.Compiled = V;
        else if (K == "ptx") P.Ptx = V;
        else if (K == "kernel") P.Kernel = V;
        else if (K == "maps") P.MapFile = V;
        else if (K == "check") P.Check = V;
        else if (K == "twin-zero") P.TwinZero.push_back(V);
        else if (K == "twin-state") P.TwinState.push_back(V);
        else if (K == "twin-array" && Parts.size() == 2) P.TwinArrays.push_back({Parts[0], Parts[1]});
        else if (K == "twin-map" && Parts.size() == 2) P.TwinMaps.push_back({Parts[0], Parts[1]});
        else if (K == "twin-sorted" && Parts.size() == 3) {
          P.SortedMap = Parts[0];
          P.SortedGlobal = Parts[1];
          P.SortedCount = Parts[2];
        } else
          fail(Where + "unknown or malformed '" + W + "'");
      },
      [](const Pair &P, const std::string &Where) {
        if (P.Compiled.empty() || P.Ptx.empty() || P.Kernel.empty())
          fail(Where + P.Name + " needs compiled=, ptx= and kernel=");
        if (P.MapFile.empty() && (!P.TwinArrays.empty() || !P.TwinMaps.empty() || !P.SortedMap.empty()))
          fail(Where + P.Name + ": twin-array=, twin-sorted= and twin-map= need maps=");
        if (P.Check != "exact" && !convergePasses(P.Check, Where) && P.Check.rfind("cms:", 0) != 0)
          fail(Where + "check must be exact, converge[:N] or cms:THRESHOLD");
      });
}

struct Options {
  std::string Pcap, Json;
  uint64_t Packets = 0, Reps = 100, Warmup = 10, E2eReps = 300;
  std::vector<uint32_t> E2eSizes;
  uint32_t E2eFrame = 64;
  /// Time converging programs from the placement their settle passes left
  /// (--keep-placement), not relaid in key order.
  bool KeepPlacement = false;
};

/// The packets, resident in GPU memory, and their host copy.
struct Resident {
  runtime::PacketBatch Batch{64};
  size_t N = 0;
  std::vector<ebpfgpu_packet_desc> Descs;
  std::unique_ptr<loader::GpuBatch> GB;
  /// Host copies of the frames after a checked launch, kept across pairs
  /// (gigabytes: allocated once).
  std::vector<uint8_t> FA, FB;
};

/// One pair, loaded and set up.
struct Loaded {
  std::unique_ptr<loader::GpuProgram> A, B; ///< compiled, twin
  std::string ProgramName;
  /// The compiled program's hashed maps that abi::relayHashMap lays out.
  std::vector<std::string> Relaid;
  /// Wall time of GpuProgram::load (the driver's JIT of the PTX, the maps
  /// allocated and bound), compiled and twin, ms.
  double LoadA = 0, LoadB = 0;
};

Loaded load(loader::GpuDevice &Dev, const Pair &P) {
  Loaded L;
  auto Spec = check(abi::readGpuObjectFile(P.Compiled), P.Compiled);
  L.ProgramName = Spec.Program;
  for (const platform::MapSpec &M : Spec.Maps)
    if (ebpfgpu_map_is_hashed(M.Type) && M.Type != EBPFGPU_MAP_LPM_TRIE)
      L.Relaid.push_back(M.Name);
  std::ifstream PtxIn(P.Ptx);
  if (!PtxIn)
    fail(P.Ptx + ": cannot open file");
  abi::GpuObjectSpec Hand;
  Hand.Program = P.Kernel;
  Hand.Platform = platform::PlatformKind::Xdp;
  Hand.Kernel = P.Kernel;
  Hand.Ptx.assign(std::istreambuf_iterator<char>(PtxIn), {});
  auto Timed = [](auto Load, double &Ms) {
    auto T0 = std::chrono::steady_clock::now();
    auto Prog = Load();
    Ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - T0).count();
    return Prog;
  };
  L.A = Timed([&] { return check(loader::GpuProgram::load(Dev, Spec), P.Compiled); }, L.LoadA);
  L.B = Timed([&] { return check(loader::GpuProgram::load(Dev, Hand), P.Ptx); }, L.LoadB);
  if (P.MapFile.empty())
    return L;
  std::vector<MapEntry> Entries = readMapFile(P.MapFile);
  for (const MapEntry &E : Entries)
    check(E.Inner.empty() ? L.A->updateMap(E.Map, E.Key, E.Value)
                          : L.A->setInnerMap(E.Map, E.Key, E.Inner),
          P.MapFile + ": map '" + E.Map + "'");
  for (auto &[Map, Global] : P.TwinArrays)
    for (const MapEntry &E : Entries) {
      if (E.Map != Map)
        continue;
      uint32_t Index = 0;
      std::memcpy(&Index, E.Key.data(), std::min<size_t>(4, E.Key.size()));
      check(L.B->writeGlobal(Global, size_t(Index) * E.Value.size(), E.Value.data(),
                             E.Value.size()),
            P.Ptx + ": twin table for map '" + Map + "'");
    }
  for (auto &[Map, Global] : P.TwinMaps) {
    const MapEntry *Whole = nullptr;
    for (const MapEntry &E : Entries)
      if (E.Map == Map && !E.PatternFile.empty())
        Whole = &E;
    if (!Whole)
      fail(P.MapFile + ": no MAP:@FILE line for map '" + Map + "' (twin-map=" + Map + ":" +
           Global + ")");
    check(L.B->writeGlobal(Global, 0, Whole->Value.data(), Whole->Value.size()),
          P.Ptx + ": twin table for map '" + Map + "'");
  }
  if (!P.SortedMap.empty()) {
    std::vector<const MapEntry *> Sel;
    for (const MapEntry &E : Entries)
      if (E.Map == P.SortedMap)
        Sel.push_back(&E);
    auto First = [](const MapEntry *E) {
      uint32_t V = 0;
      std::memcpy(&V, E->Key.data(), std::min<size_t>(4, E->Key.size()));
      return V;
    };
    std::stable_sort(Sel.begin(), Sel.end(),
                     [&](const MapEntry *X, const MapEntry *Y) { return First(X) > First(Y); });
    std::vector<uint8_t> Records;
    for (const MapEntry *E : Sel) {
      Records.insert(Records.end(), E->Key.begin(), E->Key.end());
      Records.insert(Records.end(), E->Value.begin(), E->Value.end());
    }
    uint32_t Count = uint32_t(Sel.size());
    check(L.B->writeGlobal(P.SortedGlobal, 0, Records.data(), Records.size()),
          P.Ptx + ": twin table for map '" + P.SortedMap + "'");
    check(L.B->writeGlobal(P.SortedCount, 0, &Count, sizeof(Count)),
          P.Ptx + ": twin table size");
  }
  return L;
}

/// One checked pass: pristine frames, verdicts cleared, a launch; returns
/// the verdicts (every packet must have one).
std::vector<ebpfgpu_verdict> pass(Resident &R, loader::GpuProgram &Prog, const std::string &Who,
                                  bool Stateful) {
  check(R.GB->restoreFrames(), Who);
  check(R.GB->clearVerdicts(), Who);
  check(R.GB->launch(Prog), Who + ": launch");
  if (Stateful)
    check(Prog.reclaimMaps(), Who + ": reclaim");
  std::vector<ebpfgpu_verdict> V;
  check(R.GB->verdicts(V), Who);
  for (size_t I = 0; I < V.size(); ++I)
    if (V[I].action > 4)
      fail(Who + ": packet " + std::to_string(I) + " got no verdict (action " +
           std::to_string(V[I].action) + ")");
  return V;
}

bool sameVerdict(const ebpfgpu_verdict &X, const ebpfgpu_verdict &Y) {
  return X.action == Y.action && X.data_offset == Y.data_offset && X.length == Y.length &&
         X.redirect_target == Y.redirect_target;
}

std::string describe(const ebpfgpu_verdict &V) {
  return "action " + std::to_string(V.action) + " offset " + std::to_string(V.data_offset) +
         " length " + std::to_string(V.length) + " target " + std::to_string(V.redirect_target);
}

/// Verdicts of A and B equal, packet by packet, and the frames after them.
void compareExact(const std::string &Name, const std::vector<ebpfgpu_verdict> &VA,
                  const std::vector<uint8_t> &FA, const std::vector<ebpfgpu_verdict> &VB,
                  const std::vector<uint8_t> &FB, const Resident &R) {
  size_t Mismatch = 0, First = SIZE_MAX;
  for (size_t I = 0; I < VA.size(); ++I)
    if (!sameVerdict(VA[I], VB[I]) && Mismatch++ == 0)
      First = I;
  if (Mismatch)
    fail(Name + ": " + std::to_string(Mismatch) + " of " + std::to_string(VA.size()) +
         " verdicts differ; first, packet " + std::to_string(First) + ": compiled " +
         describe(VA[First]) + ", CUDA " + describe(VB[First]));
  size_t Bad = 0;
  for (size_t I = 0; I < R.N; ++I) {
    const ebpfgpu_packet_desc &D = R.Descs[I];
    if (std::memcmp(FA.data() + D.buffer, FB.data() + D.buffer, D.buffer_size) != 0 && Bad++ == 0)
      First = I;
  }
  if (Bad)
    fail(Name + ": the output bytes of " + std::to_string(Bad) + " packets differ; first, packet " +
         std::to_string(First));
}

/// Passes until two in a row decide alike, after at least `Least` (at
/// most Least + 6); returns the last.
std::vector<ebpfgpu_verdict> settle(Resident &R, loader::GpuProgram &Prog, const std::string &Who,
                                    unsigned Least, unsigned &Passes) {
  std::vector<ebpfgpu_verdict> Prev = pass(R, Prog, Who, true);
  for (Passes = 2; Passes <= Least + 6; ++Passes) {
    std::vector<ebpfgpu_verdict> Cur = pass(R, Prog, Who, true);
    if (Passes >= Least && std::equal(Cur.begin(), Cur.end(), Prev.begin(), sameVerdict))
      return Cur;
    Prev = std::move(Cur);
  }
  fail(Who + ": verdicts still change after " + std::to_string(Least + 6) +
       " passes over the packets");
}

/// The compiled program's settled hashed maps laid out in key order
/// (abi::relayHashMap), so that every run times the same placement, not the
/// one the settle passes' race to insert left; one more pass from the
/// relaid state must decide as the settled passes did (`Settled`). Leaves
/// the relaid state saved (saveState) and in place, for the timed launches.
void relaySettled(Resident &R, loader::GpuProgram &Prog, const std::string &Who,
                  const std::vector<std::string> &Maps,
                  const std::vector<ebpfgpu_verdict> &Settled) {
  if (Maps.empty()) {
    check(Prog.saveState(), Who + ": saving the settled maps");
    return;
  }
  for (const std::string &M : Maps)
    check(Prog.accessMap(M,
                         [](ebpfgpu_map &H, bool &Changed) -> MaybeError {
                           abi::relayHashMap(H);
                           Changed = true;
                           return std::nullopt;
                         }),
          Who + ": relaying map '" + M + "'");
  check(Prog.saveState(), Who + ": saving the relaid maps");
  std::vector<ebpfgpu_verdict> V = pass(R, Prog, Who, true);
  if (!std::equal(V.begin(), V.end(), Settled.begin(), Settled.end(), sameVerdict))
    fail(Who + ": a pass from the relaid maps decides otherwise than the settled passes");
  check(Prog.restoreState(), Who + ": restoring the relaid maps");
  std::string Names;
  for (const std::string &M : Maps)
    Names += (Names.empty() ? "" : ", ") + M;
  std::printf("%s: timed from the settled state with its hashed maps relaid in key order (%s)\n",
              Who.c_str(), Names.c_str());
}

/// The count-min check (see the top of the file): returns the packets whose
/// verdict the bounds left open, over both programs and both passes.
uint64_t checkCms(const std::string &Name, Resident &R, Loaded &L, uint64_t Threshold) {
  const CmsBounds Bounds(
      R.N, [&](size_t I) { return R.Batch.data(I); }, [&](size_t I) { return R.Batch.length(I); });
  uint64_t Open = 0;
  std::vector<ebpfgpu_verdict> First;
  for (unsigned Pass = 1; Pass <= 2; ++Pass) {
    for (auto [Prog, Who] : {std::pair{L.A.get(), std::string("compiled")},
                             std::pair{L.B.get(), std::string("CUDA")}}) {
      std::vector<ebpfgpu_verdict> V = pass(R, *Prog, Name + " (" + Who + ")", false);
      for (size_t I = 0; I < R.N; ++I) {
        if (!Bounds.sketched(I)) {
          // Not sketched: the decision does not depend on state.
          if (First.size() == R.N && V[I].action != First[I].action)
            fail(Name + ": packet " + std::to_string(I) + " (not IPv4) decided differently");
          continue;
        }
        const unsigned Want = Bounds.want(I, Pass, Threshold);
        if (Want == 0) {
          ++Open;
          if (V[I].action != 1 && V[I].action != 2)
            fail(Name + " (" + Who + "): packet " + std::to_string(I) + " got action " +
                 std::to_string(V[I].action));
        } else if (V[I].action != Want)
          fail(Name + " (" + Who + "), pass " + std::to_string(Pass) + ": packet " +
               std::to_string(I) + " must get action " + std::to_string(Want) + ", got " +
               std::to_string(V[I].action));
      }
      if (First.empty())
        First = V;
    }
  }
  // The twin's sketch after two passes: every addition, none lost.
  std::vector<uint64_t> Sketch(Bounds.adds().size());
  check(L.B->readGlobal("cms_sketch", 0, Sketch.data(), Sketch.size() * 8), Name + " (CUDA)");
  for (size_t K = 0; K < Sketch.size(); ++K)
    if (Sketch[K] != 2 * Bounds.adds()[K])
      fail(Name + ": the CUDA twin's sketch lost updates (counter " + std::to_string(K) + ")");
  return Open;
}

struct PairResult {
  std::string Name, Program, Check, CheckNote;
  Stats A, B; ///< kernel ms
  struct E2e {
    uint32_t Batch;
    Stats A, B; ///< batch latency, us
  };
  std::vector<E2e> E2es;
  std::array<uint64_t, 5> Actions{};
  uint64_t GridA = 0, GridB = 0; ///< threads a launch over the resident packets has
  double LoadA = 0, LoadB = 0;   ///< GpuProgram::load, ms
  std::string KernelA;           ///< the batch kernel build the loader chose (kernelChoice)
};

PairResult runPair(loader::GpuDevice &Dev, Resident &R, const Pair &P, const Options &O) {
  PairResult Res;
  Res.Name = P.Name;
  Res.Check = P.Check;
  Loaded L = load(Dev, P);
  Res.Program = L.ProgramName;
  Res.LoadA = L.LoadA;
  Res.LoadB = L.LoadB;
  Res.GridA = L.A->launchThreads(uint32_t(R.N));
  Res.GridB = L.B->launchThreads(uint32_t(R.N));
  bool Stateful = P.Check != "exact";
  std::string CA = P.Name + " (compiled)", CB = P.Name + " (CUDA)";

  // Correctness first.
  std::vector<ebpfgpu_verdict> VA, VB;
  std::vector<uint8_t> &FA = R.FA, &FB = R.FB;
  const unsigned Least = convergePasses(P.Check, "");
  if (P.Check == "exact" || Least) {
    unsigned PassesA = 1, PassesB = 1;
    if (P.Check == "exact") {
      VA = pass(R, *L.A, CA, false);
      check(R.GB->frames(FA), CA);
      VB = pass(R, *L.B, CB, false);
      check(R.GB->frames(FB), CB);
    } else {
      VA = settle(R, *L.A, CA, Least, PassesA);
      check(R.GB->frames(FA), CA);
      VB = settle(R, *L.B, CB, Least, PassesB);
      check(R.GB->frames(FB), CB);
    }
    compareExact(P.Name, VA, FA, VB, FB, R);
    for (const ebpfgpu_verdict &V : VA)
      ++Res.Actions[V.action];
    Res.CheckNote = P.Check == "exact"
                        ? "every verdict, redirect target and output byte equal"
                        : "settled after " + std::to_string(PassesA) + " (compiled) and " +
                              std::to_string(PassesB) +
                              " (CUDA) passes; settled verdicts, targets and bytes equal";
  } else {
    uint64_t Threshold = std::strtoull(P.Check.c_str() + 4, nullptr, 0);
    uint64_t Open = checkCms(P.Name, R, L, Threshold);
    VA = pass(R, *L.A, CA, false);
    for (const ebpfgpu_verdict &V : VA)
      ++Res.Actions[V.action];
    Res.CheckNote = "verdicts of 2 passes from zero sketches within host-computed bounds; " +
                    std::to_string(Open) + " of " + std::to_string(4 * R.N) +
                    " verdicts left open by the bounds";
  }
  for (const std::string &G : P.TwinZero) {
    uint32_t V = 0;
    check(L.B->readGlobal(G, 0, &V, sizeof(V)), CB);
    if (V)
      fail(CB + ": " + G + " = " + std::to_string(V) + " (must stay 0)");
  }
  if (auto Starved = L.A->starvedMaps(); Starved && !Starved->empty())
    std::fprintf(stderr, "ebpf-gpu-bench: warning: %s: updates refused: %s\n", CA.c_str(),
                 (*Starved)[0].c_str());
  std::printf("%s: checked: %s\n", P.Name.c_str(), Res.CheckNote.c_str());
  std::fflush(stdout);

  // Converging programs: every timed launch starts from the settled state.
  bool FromSettled = Least != 0;
  if (FromSettled) {
    if (O.KeepPlacement)
      check(L.A->saveState(), CA + ": saving the settled maps");
    else
      relaySettled(R, *L.A, CA, L.Relaid, VA);
    check(L.B->saveState(P.TwinState), CB + ": saving the settled tables");
  }
  // Interleaved repetitions, so clock and thermal drift hit both alike;
  // the frames are restored (and a stateful program's state restored or
  // its maps reclaimed) before each launch, outside the timed span.
  std::vector<double> TA, TB;
  for (uint64_t Rep = 0; Rep < O.Warmup + O.Reps; ++Rep)
    for (auto [Prog, T, IsA] : {std::tuple{L.A.get(), &TA, true}, std::tuple{L.B.get(), &TB, false}}) {
      check(R.GB->restoreFrames(), P.Name);
      if (FromSettled)
        check(Prog->restoreState(), (IsA ? CA : CB) + ": restoring the settled state");
      float Ms = check(R.GB->launch(*Prog), (IsA ? CA : CB) + ": launch");
      if (IsA && Stateful && !FromSettled)
        check(Prog->reclaimMaps(), CA + ": reclaim");
      if (Rep >= O.Warmup)
        T->push_back(Ms);
    }
  Res.A = summarize(TA);
  Res.B = summarize(TB);
  Res.KernelA = L.A->kernelChoice();
  std::printf("%s: compiled batch kernel: %s\n", P.Name.c_str(), Res.KernelA.c_str());

  // End to end: batches of 64-byte frames (each packet's first bytes, as a
  // runtime staging headers would copy them), copied in from pinned
  // memory, run, verdicts copied out, one stream; host clock per batch.
  if (!O.E2eSizes.empty()) {
    uint32_t Max = *std::max_element(O.E2eSizes.begin(), O.E2eSizes.end());
    auto SB = check(loader::GpuStagedBatch::create(Dev, Max, size_t(Max) * O.E2eFrame),
                    "staged batch");
    for (uint32_t I = 0; I < Max; ++I) {
      size_t Src = I % R.N;
      uint32_t Len = std::min<uint32_t>(R.Batch.length(Src), O.E2eFrame);
      std::memset(SB->frames() + size_t(I) * O.E2eFrame, 0, O.E2eFrame);
      std::memcpy(SB->frames() + size_t(I) * O.E2eFrame, R.Batch.data(Src), Len);
      ebpfgpu_packet_desc D{};
      D.buffer = SB->deviceFrames() + uint64_t(I) * O.E2eFrame;
      D.data_offset = 0;
      D.length = Len;
      D.buffer_size = O.E2eFrame;
      SB->descs()[I] = D;
    }
    for (uint32_t Size : O.E2eSizes) {
      std::vector<double> LA, LB;
      std::vector<ebpfgpu_verdict> First;
      for (uint64_t Rep = 0; Rep < O.Warmup + O.E2eReps; ++Rep)
        for (auto [Prog, T, IsA] :
             {std::tuple{L.A.get(), &LA, true}, std::tuple{L.B.get(), &LB, false}}) {
          auto T0 = std::chrono::steady_clock::now();
          check(SB->run(*Prog, Size, size_t(Size) * O.E2eFrame), P.Name + ": end-to-end batch");
          auto T1 = std::chrono::steady_clock::now();
          if (IsA && Stateful)
            check(Prog->reclaimMaps(), CA + ": reclaim");
          // Order-independent programs: the first batch of each must agree.
          if (Rep == 0 && !Stateful) {
            if (IsA)
              First.assign(SB->verdicts(), SB->verdicts() + Size);
            else
              for (uint32_t I = 0; I < Size; ++I)
                if (!sameVerdict(First[I], SB->verdicts()[I]))
                  fail(P.Name + ": end-to-end batch of " + std::to_string(Size) +
                       ": verdicts differ at packet " + std::to_string(I));
          }
          for (uint32_t I = 0; Rep == 0 && I < Size; ++I)
            if (SB->verdicts()[I].action > 4)
              fail(P.Name + ": end-to-end batch: packet " + std::to_string(I) + " got no verdict");
          if (Rep >= O.Warmup)
            T->push_back(std::chrono::duration<double, std::micro>(T1 - T0).count());
        }
      Res.E2es.push_back({Size, summarize(LA), summarize(LB)});
    }
  }
  return Res;
}

void printResults(const std::vector<PairResult> &Results, const Options &O, size_t N) {
  std::printf("\n%zu packets resident in GPU memory, %llu warm-up + %llu interleaved "
              "repetitions, kernel time from device events\n",
              N, (unsigned long long)O.Warmup, (unsigned long long)O.Reps);
  std::printf("%-14s %11s %11s %11s %10s %11s %11s %10s %8s\n", "program", "comp med ms",
              "comp min", "comp p90", "comp Mpps", "CUDA med ms", "CUDA min", "CUDA Mpps",
              "ratio");
  for (const PairResult &R : Results)
    std::printf("%-14s %11.4f %11.4f %11.4f %10.1f %11.4f %11.4f %10.1f %8.3f\n",
                R.Name.c_str(), R.A.Median, R.A.Min, R.A.P90, N / (R.A.Median * 1e3), R.B.Median,
                R.B.Min, N / (R.B.Median * 1e3), R.B.Median / R.A.Median);
  std::printf("\nload (GpuProgram::load: the driver's JIT of the PTX, maps allocated and bound), "
              "ms\n");
  for (const PairResult &R : Results)
    std::printf("%-14s compiled %8.2f   CUDA %8.2f\n", R.Name.c_str(), R.LoadA, R.LoadB);
  if (O.E2eSizes.empty())
    return;
  std::printf("\nend to end (copy in + kernel + verdicts out, one stream, %u-byte frames, "
              "%llu batches): batch latency us p50/p99, Mpps at p50\n",
              O.E2eFrame, (unsigned long long)O.E2eReps);
  for (const PairResult &R : Results)
    for (const PairResult::E2e &E : R.E2es)
      std::printf("%-14s %6u  compiled %8.1f / %8.1f us %9.1f Mpps   CUDA %8.1f / %8.1f us "
                  "%9.1f Mpps\n",
                  R.Name.c_str(), E.Batch, E.A.Median, E.A.P99, E.Batch / E.A.Median, E.B.Median,
                  E.B.P99, E.Batch / E.B.Median);
}

void writeJson(const std::string &Path, const std::vector<PairResult> &Results,
               const Options &O, size_t N, const std::string &Device) {
  std::ostringstream J;
  auto St = [&](const Stats &S) {
    std::ostringstream O2;
    O2 << "{\"median\": " << S.Median << ", \"min\": " << S.Min << ", \"p90\": " << S.P90
       << ", \"p99\": " << S.P99 << "}";
    return O2.str();
  };
  J << "{\"device\": " << jsonString(Device) << ", \"packets\": " << N
    << ", \"reps\": " << O.Reps << ", \"warmup\": " << O.Warmup
    << ", \"placement\": \"" << (O.KeepPlacement ? "raced" : "relaid") << "\""
    << ", \"e2e_reps\": " << O.E2eReps << ", \"e2e_frame\": " << O.E2eFrame << ", \"pairs\": [";
  for (size_t I = 0; I < Results.size(); ++I) {
    const PairResult &R = Results[I];
    J << (I ? ", " : "") << "{\"name\": " << jsonString(R.Name)
      << ", \"program\": " << jsonString(R.Program) << ", \"check\": " << jsonString(R.Check)
      << ", \"check_note\": " << jsonString(R.CheckNote) << ", \"actions\": [";
    for (size_t K = 0; K < 5; ++K)
      J << (K ? ", " : "") << R.Actions[K];
    J << "], \"compiled_ms\": " << St(R.A) << ", \"cuda_ms\": " << St(R.B)
      << ", \"compiled_mpps\": " << N / (R.A.Median * 1e3)
      << ", \"cuda_mpps\": " << N / (R.B.Median * 1e3)
      << ", \"ratio\": " << R.B.Median / R.A.Median << ", \"compiled_grid\": " << R.GridA
      << ", \"cuda_grid\": " << R.GridB << ", \"compiled_load_ms\": " << R.LoadA
      << ", \"cuda_load_ms\": " << R.LoadB
      << ", \"compiled_kernel\": " << jsonString(R.KernelA) << ", \"e2e\": [";
    for (size_t K = 0; K < R.E2es.size(); ++K) {
      const PairResult::E2e &E = R.E2es[K];
      J << (K ? ", " : "") << "{\"batch\": " << E.Batch << ", \"compiled_us\": " << St(E.A)
        << ", \"cuda_us\": " << St(E.B) << ", \"compiled_mpps\": " << E.Batch / E.A.Median
        << ", \"cuda_mpps\": " << E.Batch / E.B.Median << "}";
    }
    J << "]}";
  }
  J << "]}\n";
  std::string Tmp = Path + ".tmp";
  std::ofstream Out(Tmp);
  Out << J.str();
  Out.close();
  if (!Out || std::rename(Tmp.c_str(), Path.c_str()) != 0)
    fail(Path + ": cannot write");
}

} // namespace

int main(int argc, char **argv) {
  Options O;
  std::string Suite, GpuObj, Ptx, Kernel;
  bool Probe = false;
  for (tools::ArgCursor C(argc, argv, usage, /*Skip=*/1); C.next();) {
    const std::string &A = C.arg();
    auto Val = [&] { return C.value(); };
    auto Num = [&]() {
      std::string V = C.value();
      uint64_t N;
      if (!tools::parseNumber(V, 0, UINT64_MAX, N, /*Base=*/0))
        fail(A + " needs a number, not '" + V + "'", 2);
      return N;
    };
    if (A == "--probe") Probe = true;
    else if (A == "--suite") Suite = Val();
    else if (A == "--gpu-object") GpuObj = Val();
    else if (A == "--cuda-ptx") Ptx = Val();
    else if (A == "--cuda-kernel") Kernel = Val();
    else if (A == "--pcap") O.Pcap = Val();
    else if (A == "--json") O.Json = Val();
    else if (A == "--packets") O.Packets = Num();
    else if (A == "--reps") O.Reps = Num();
    else if (A == "--warmup") O.Warmup = Num();
    else if (A == "--keep-placement") O.KeepPlacement = true;
    else if (A == "--e2e-reps") O.E2eReps = Num();
    else if (A == "--e2e") {
      for (const std::string &S : split(Val(), ',')) {
        char *End = nullptr;
        unsigned long long B = std::strtoull(S.c_str(), &End, 10);
        if (S.empty() || *End || B == 0 || B > (1u << 24))
          fail("--e2e needs batch sizes from 1 to 16777216, comma-separated", 2);
        O.E2eSizes.push_back(uint32_t(B));
      }
    } else fail("unknown argument " + A, 2);
  }
  if (Probe) {
    auto Dev = check(loader::GpuDevice::open(0), "GPU");
    std::printf("%s, %u threads resident at once\n", Dev->name().c_str(), Dev->residentThreads());
    return 0;
  }
  std::vector<Pair> Pairs;
  if (!Suite.empty())
    Pairs = readSuite(Suite);
  if (!GpuObj.empty() || !Ptx.empty() || !Kernel.empty()) {
    if (GpuObj.empty() || Ptx.empty() || Kernel.empty())
      fail("--gpu-object, --cuda-ptx and --cuda-kernel go together", 2);
    Pair P;
    P.Name = Kernel;
    P.Compiled = GpuObj, P.Ptx = Ptx, P.Kernel = Kernel;
    Pairs.push_back(P);
  }
  if (Pairs.empty() || O.Pcap.empty() || O.Reps == 0 || O.E2eReps == 0)
    fail("need --pcap and --suite (or --gpu-object, --cuda-ptx and --cuda-kernel)", 2);
  // Every input file is checked before the GPU is touched.
  for (const Pair &P : Pairs)
    for (const std::string &F : {P.Compiled, P.Ptx, P.MapFile})
      if (!F.empty() && !std::ifstream(F))
        fail(P.Name + ": " + F + ": cannot open file");
  // A twin-map's line in its map file, before the GPU and before any
  // pattern file is compiled (that is load's).
  for (const Pair &P : Pairs)
    for (auto &[Map, Global] : P.TwinMaps) {
      auto Text = readFileBytes(P.MapFile);
      auto Entries = Text ? loader::parseMapText(std::string(Text->begin(), Text->end()), P.MapFile)
                          : Expected<std::vector<MapEntry>>(Text.takeError());
      if (!Entries)
        fail(Entries.error().message());
      if (std::none_of(Entries->begin(), Entries->end(), [&, &Map = Map](const MapEntry &E) {
            return E.Map == Map && !E.PatternFile.empty();
          }))
        fail(P.MapFile + ": no MAP:@FILE line for map '" + Map + "' (twin-map=" + Map + ":" +
             Global + ")");
    }

  Resident R;
  R.Batch = check(runtime::readPcap(O.Pcap), O.Pcap);
  R.N = O.Packets ? std::min<size_t>(O.Packets, R.Batch.size()) : R.Batch.size();
  if (R.N == 0)
    fail(O.Pcap + ": no packets");
  R.Descs.resize(R.N);
  for (size_t I = 0; I < R.N; ++I) {
    R.Descs[I] = {};
    R.Descs[I].buffer = I * R.Batch.stride();
    R.Descs[I].data_offset = R.Batch.offset(I);
    R.Descs[I].length = R.Batch.length(I);
    R.Descs[I].buffer_size = uint32_t(R.Batch.stride());
  }
  auto Dev = check(loader::GpuDevice::open(0), "GPU");
  R.GB = check(loader::GpuBatch::create(*Dev, R.Batch.frames(), R.N * R.Batch.stride(), R.Descs),
               "packets to the GPU");
  std::printf("device: %s; %zu packets (%zu-byte buffers) resident in GPU memory\n",
              Dev->name().c_str(), R.N, R.Batch.stride());
  std::fflush(stdout);

  std::vector<PairResult> Results;
  for (const Pair &P : Pairs)
    Results.push_back(runPair(*Dev, R, P, O));
  printResults(Results, O, R.N);
  if (!O.Json.empty())
    writeJson(O.Json, Results, O, R.N, Dev->name());
  R.GB.reset(); // its device memory before the device (and the driver) goes
  return 0;
}
