// SPDX-License-Identifier: Apache-2.0
//
// `ebpf-gpu-loader compare` (Compare.h). For each program: ebpf-gpu's
// verifier and host compilation, the kernel's load, and where both accept
// one run of every packet on each back end, compared as
// tests/lit/loader/Inputs/differential.py compares two `run`s: every
// verdict and length, the bytes of every packet that goes out (passed,
// sent back, redirected), the maps and global data after the run, and the
// event records in order. Each program gets fresh maps on both sides.

#include "ebpf-gpu/Tools/ApiProgram.h"
#include "Compare.h"
#include "Options.h"
#include "ebpf-gpu/Compiler/Lifter.h"
#include "ebpf-gpu/Exec/Executors.h"
#include "ebpf-gpu/Exec/KernelBackend.h"
#include "ebpf-gpu/Loader/MapEntries.h"

#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Verifier/Verifier.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace ebpfgpu::tools {

using runtime::PacketBatch;

namespace {


int compareUsage(const std::string &Msg) {
  if (!Msg.empty())
    std::fprintf(stderr, "%s: error: %s\n", Tool, Msg.c_str());
  std::fprintf(stderr,
               "usage: %s compare PROG.o --pcap IN.pcap [--section NAME]...\n"
               "           [--map-size MAP=ENTRIES]... [--map-key-size MAP=BYTES]...\n"
               "           [--map-value-size MAP=BYTES]... [--inner-map OUTER=MAP]...\n"
               "           [--map-set MAP:KEYHEX:VALUEHEX|MAP:KEYHEX:@NAME]... [--map-file FILE]...\n"
               "  Every program of PROG.o (or each --section) through ebpf-gpu's verifier and\n"
               "  the kernel's; where both accept, the host back end and BPF_PROG_TEST_RUN run\n"
               "  the packets and must agree on verdicts, output bytes, maps and events.\n"
               "  One line per program, 'NAME: RESULT: DETAIL', RESULT one of\n"
               "    both       both accept and the back ends agree\n"
               "    neither    both refuse (DETAIL: the kernel's reason)\n"
               "    kernel     only the kernel accepts (DETAIL: ebpf-gpu's reason)\n"
               "    ours       only ebpf-gpu accepts: unsound (DETAIL: the kernel's reason)\n"
               "    ebpf-gpu-only  it uses ebpf-gpu's own map types and kfuncs, which the\n"
               "               kernel lacks; ebpf-gpu accepts it (DETAIL: what it uses)\n"
               "    device-bound   it calls the XDP RX metadata kfuncs, which the kernel\n"
               "               cannot test-run; ebpf-gpu accepts it (DETAIL: why)\n"
               "    differ     both accept, the back ends differ (DETAIL: where)\n"
               "    not-xdp    its section names another program type (tc, tracing, ...):\n"
               "               neither side runs it\n"
               "    attach-bound  a devmap or cpumap program (xdp/devmap, xdp/cpumap) that\n"
               "               the kernel refuses as a plain XDP program, the only kind its\n"
               "               test runs take (DETAIL: the kernel's reason)\n"
               "    error      a back end failed to run it\n"
               "  The map options set what user space sets before load, on both sides (as\n"
               "  run's; the kernel's through libbpf); --map-set and --map-file (run's) set\n"
               "  entries after load and before the packets, on both sides: a program\n"
               "  array's slot by program name (@NAME), a map of maps' by inner map name.\n"
               "  Exits 1 when a program gave ours, differ or error. Needs root.\n",
               Tool);
  return 2;
}

std::string lastLine(const std::string &Text) {
  size_t End = Text.find_last_not_of("\n");
  if (End == std::string::npos)
    return "";
  size_t Start = Text.rfind('\n', End);
  return Text.substr(Start == std::string::npos ? 0 : Start + 1,
                     End + 1 - (Start == std::string::npos ? 0 : Start + 1));
}

std::vector<std::string> splitLines(const std::string &Text) {
  std::vector<std::string> Lines;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t End = Text.find('\n', Pos);
    if (End == std::string::npos)
      End = Text.size();
    Lines.push_back(Text.substr(Pos, End - Pos));
    Pos = End + 1;
  }
  return Lines;
}

/// A map dump without its read-only data (`.rodata*` lines): nothing a
/// program does changes it, and libbpf binds it to every program it loads,
/// so the kernel back end reaches it where the host's program does not.
std::string withoutReadOnlyData(const std::string &Maps) {
  std::string Out;
  for (const std::string &L : splitLines(Maps))
    if (L.rfind(".rodata", 0) != 0)
      Out += L + "\n";
  return Out;
}

bool keptVerdict(uint64_t V) {
  return V == uint64_t(runtime::XdpAction::Pass) || V == uint64_t(runtime::XdpAction::Tx) ||
         V == uint64_t(runtime::XdpAction::Redirect);
}

/// Where the host's results (`H`) and the kernel's (`K`) first differ, or
/// an empty string.
std::string firstDifference(const PacketBatch &H, const PacketBatch &K, const std::string &HMaps,
                            const std::string &KMaps, const std::string &HEvents,
                            const std::string &KEvents) {
  auto Line = [](const PacketBatch &B, size_t I) {
    return std::to_string(I) + " " + runtime::xdpActionName(B.verdict(I)) + " " +
           std::to_string(B.length(I));
  };
  for (size_t I = 0; I < H.size() && I < K.size(); ++I)
    if (H.verdict(I) != K.verdict(I) || H.length(I) != K.length(I))
      return "packet differs: host: " + Line(H, I) + " / kernel: " + Line(K, I);
  if (H.size() != K.size())
    return "host gave " + std::to_string(H.size()) + " verdicts, kernel " +
           std::to_string(K.size());
  for (size_t I = 0; I < H.size(); ++I)
    if (keptVerdict(H.verdict(I)) && std::memcmp(H.data(I), K.data(I), H.length(I)) != 0)
      return "output packets differ (packet " + std::to_string(I) + ")";
  if (HMaps != KMaps)
    return "map contents differ:\n--- host\n" + HMaps + "--- kernel\n" + KMaps;
  std::vector<std::string> HE = splitLines(HEvents), KE = splitLines(KEvents);
  for (size_t I = 0; I < HE.size() && I < KE.size(); ++I)
    if (HE[I] != KE[I])
      return "event record " + std::to_string(I) + " differs: host: " + HE[I] + " / kernel: " +
             KE[I];
  if (HE.size() != KE.size())
    return "host wrote " + std::to_string(HE.size()) + " event records, kernel " +
           std::to_string(KE.size());
  return "";
}

struct Outcome {
  std::string Result, Detail;
};

/// Where the programs `P` may run (it and those it tail-calls) read stack
/// bytes they may not have written ("prog pc N, ..."), or "": ebpf-gpu reads
/// zeros there, the kernel whatever its stack held.
std::string uninitStackReads(const object::ObjectSpec &Obj, const object::ProgramSpec &P) {
  std::string Where;
  for (const object::ProgramSpec *Q : compiler::programSetFor(Obj, P).Programs) {
    verifier::Options VO;
    VO.License = Obj.License;
    for (uint32_t Pc : verifier::verify(*Q, Obj.Maps, VO).UninitStackReads)
      Where += (Where.empty() ? "" : ", ") + Q->Name + " pc " + std::to_string(Pc);
  }
  return Where;
}

/// Program `Name` on both sides, with the map shapes `Shapes` set before
/// load; `P` null: a program of the object that could not be linked
/// (ObjectSpec::Unlinked), which the kernel may load.
Outcome compareProgram(const object::ObjectSpec &Obj, const std::string &Path,
                       const std::string &Name, const object::ProgramSpec *P,
                       const PacketBatch &Packets, const object::ReadOptions &Shapes,
                       const std::vector<loader::MapEntry> &Entries) {
  if (const object::UnlinkedProgram *U = P ? nullptr : Obj.findUnlinked(Name);
      U && !U->OtherType.empty())
    return {"not-xdp", "section '" + U->Section + "' is for " + U->OtherType + " programs"};
  // The host side is a program on the C API (ApiProgram.h), as `run`'s.
  ApiLoad L;
  L.Object = Path;
  L.Section = Name;
  L.Backend = exec::Backend::Host;
  L.Shapes = {Shapes.InnerMapTemplates, Shapes.MaxEntries, Shapes.KeySizes, Shapes.ValueSizes};
  auto Host = P ? ApiProgram::load(L)
                : Expected<ApiProgram>(Error(Path + ": " + Obj.unlinkedReason(Name)));
  exec::KernelLoadOptions KO;
  KO.MapSizes = Shapes.MaxEntries;
  KO.KeySizes = Shapes.KeySizes;
  KO.ValueSizes = Shapes.ValueSizes;
  KO.InnerMaps = Shapes.InnerMapTemplates;
  // A devmap or cpumap program runs in the kernel's test runs only as a
  // plain XDP program: compared so, and said so.
  const object::UnlinkedProgram *Unlinked = P ? nullptr : Obj.findUnlinked(Name);
  std::string Section = P ? P->Section : Unlinked ? Unlinked->Section : "";
  KO.PlainXdpAttach = exec::isDevmapOrCpumapSection(Section);
  std::string AsPlain = KO.PlainXdpAttach ? " (the kernel's as a plain XDP program: it test-runs no "
                                            "devmap or cpumap program)"
                                          : "";
  auto Loaded = exec::KernelProgram::load(Path, Name, KO);
  if (!Loaded)
    return {"error", Loaded.error().message()};
  // Not unsound: the program asks for what only ebpf-gpu offers.
  if (!Loaded->Program && Loaded->EbpfGpuOnly)
    return {Host ? "ebpf-gpu-only" : "neither",
            "the kernel cannot load it: " + Loaded->Why +
                (Host ? "" : "; ebpf-gpu: " + lastLine(Host.error().message()))};
  // Not unsound either: the kernel has the kfuncs but cannot test-run them.
  if (!Loaded->Program && Loaded->DeviceBound)
    return {Host ? "device-bound" : "neither",
            "the kernel cannot test-run it: " + Loaded->Why +
                (Host ? "" : "; ebpf-gpu: " + lastLine(Host.error().message()))};
  if (!Loaded->Program && !Loaded->VerifierRefused && !Loaded->Missing)
    return {"error", "the kernel refused it without a verifier log: " + Loaded->Why + ": " +
                         lastLine(Loaded->Log)};
  std::string KernelWhy = Loaded->Program   ? ""
                          : Loaded->Missing ? Loaded->Why
                                            : exec::kernelRefusalReason(Loaded->Log);
  if (!Host)
    return {Loaded->Program ? "kernel" : "neither",
            Loaded->Program ? lastLine(Host.error().message()) : KernelWhy};
  if (!Loaded->Program)
    return {KO.PlainXdpAttach ? "attach-bound" : "ours", KernelWhy + AsPlain};

  ApiProgram &Exec = *Host;
  if (MaybeError Err = Exec.setEntries(Entries))
    return {"error", "host back end: " + Err->message()};
  if (MaybeError Err = Loaded->Program->setMapEntries(Entries))
    return {"error", "kernel back end: --map-set: " + Err->message()};
  PacketBatch HostPackets = Packets, KernelPackets = Packets;
  if (MaybeError E = Exec.run(HostPackets))
    return {"error", "host back end: " + E->message()};
  auto Trace = Exec.takeTrace();
  auto HostEvents = Exec.takeEvents();
  auto Warnings = Exec.warnings();
  auto HostMaps = Exec.formatMaps();
  for (auto *E : {Trace ? nullptr : &Trace.error(), HostEvents ? nullptr : &HostEvents.error(),
                  Warnings ? nullptr : &Warnings.error(), HostMaps ? nullptr : &HostMaps.error()})
    if (E)
      return {"error", "host back end: " + E->message()};
  for (const std::string &W : *Warnings)
    std::fprintf(stderr, "%s: warning: %s: %s\n", Tool, Name.c_str(), W.c_str());

  std::string KernelEvents;
  uint64_t Lost = 0;
  if (MaybeError E = Loaded->Program->run(KernelPackets, std::nullopt, 0, KernelEvents, Lost)) {
    if (auto O = Loaded->Program->overflow())
      return {"differ", "packet " + std::to_string(O->first) + ": the kernel made it " +
                            std::to_string(O->second) + " bytes long, past its buffer on the host"
                            " (host: " + runtime::xdpActionName(HostPackets.verdict(O->first)) +
                            " " + std::to_string(HostPackets.length(O->first)) + ")"};
    return {"error", "kernel back end: " + E->message()};
  }
  if (Lost)
    return {"error", "kernel back end: lost " + std::to_string(Lost) + " perf event records"};
  std::string Diff = firstDifference(HostPackets, KernelPackets, withoutReadOnlyData(*HostMaps),
                                     withoutReadOnlyData(Loaded->Program->dumpMaps()), *HostEvents,
                                     KernelEvents);
  if (!Diff.empty()) {
    // A program that reads stack bytes it never wrote sees zeros here and
    // the kernel's leftovers there: such a difference is explained, not a
    // fault.
    if (std::string Where = uninitStackReads(Obj, *P); !Where.empty())
      return {"uninit-stack", "host and kernel differ where the program reads stack bytes it "
                              "may not have written (" + Where + "): zero on ebpf-gpu's back "
                              "ends, whatever the kernel's stack held there; " + Diff + AsPlain};
    return {"differ", Diff + AsPlain};
  }
  return {"both", std::to_string(Packets.size()) + " packets, host and kernel agree" + AsPlain};
}

} // namespace

int compareCommand(int argc, char **argv) {
  std::string Object, Pcap;
  std::vector<std::string> Sections;
  object::ReadOptions Shapes;
  MapShapeArgs Given; ///< --inner-map, --map-size, --map-key-size, --map-value-size
  std::vector<loader::MapEntry> Entries; ///< --map-set and --map-file, in order
  for (ArgCursor C(argc, argv, compareUsage); C.next();) {
    const std::string &A = C.arg();
    if (A == "--pcap")
      Pcap = C.value();
    else if (A == "--section")
      Sections.push_back(C.value());
    else if (auto Bad = parseMapShapeFlag(A, [&] { return C.value(); }, Given)) {
      if (!Bad->empty())
        return compareUsage(*Bad);
    } else if (A == "--map-set") {
      std::string V = C.value();
      auto E = loader::parseMapEntry(V);
      if (!E)
        return compareUsage("--map-set needs MAP:KEYHEX:VALUEHEX or MAP:KEYHEX:@NAME, not '" +
                            V + "'");
      if (!E->PatternFile.empty())
        return compareUsage("--map-set: " + E->Map +
                            ": pattern maps are ebpf-gpu's own; the kernel has none to compare");
      Entries.push_back(std::move(*E));
    } else if (A == "--map-file") {
      auto Read = loader::readMapFile(C.value());
      if (!Read) {
        std::fprintf(stderr, "%s: error: %s\n", Tool, Read.error().message().c_str());
        return 1;
      }
      Entries.insert(Entries.end(), Read->begin(), Read->end());
    } else if (A == "-h" || A == "--help") {
      compareUsage("");
      return 0;
    } else if (A.rfind("-", 0) == 0)
      return compareUsage("unknown option " + A);
    else if (Object.empty())
      Object = A;
    else
      return compareUsage("more than one object given ('" + Object + "', '" + A + "')");
  }
  if (Object.empty())
    return compareUsage("no object given");
  if (Pcap.empty())
    return compareUsage("no packets given (--pcap)");
  Expected<PacketBatch> Packets = runtime::readPcap(Pcap);
  if (!Packets) {
    std::fprintf(stderr, "%s: error: %s\n", Tool, Packets.error().message().c_str());
    return 1;
  }
  // As `run` on the kernel back end without a context: received on the
  // loopback device, queue 0.
  Packets->setIngress(1, 0);
  Shapes.InnerMapTemplates = Given.InnerMaps;
  Shapes.MaxEntries = Given.MapSizes;
  Shapes.KeySizes = Given.KeySizes;
  Shapes.ValueSizes = Given.ValueSizes;
  Expected<object::ObjectSpec> Obj = object::readObjectFile(Object, Shapes);
  if (!Obj) {
    std::fprintf(stderr, "%s: error: %s\n", Tool, Obj.error().message().c_str());
    return 1;
  }
  // Each program by name, with its spec (null: unlinked).
  std::vector<std::pair<std::string, const object::ProgramSpec *>> Chosen;
  if (Sections.empty()) {
    for (const object::ProgramSpec &P : Obj->Programs)
      Chosen.push_back({P.Name, &P});
    for (const object::UnlinkedProgram &U : Obj->Unlinked)
      Chosen.push_back({U.Name, nullptr});
  }
  for (const std::string &S : Sections) {
    if (const object::ProgramSpec *P = Obj->findProgram(S)) {
      Chosen.push_back({P->Name, P});
    } else if (const object::UnlinkedProgram *U = Obj->findUnlinked(S)) {
      Chosen.push_back({U->Name, nullptr});
    } else {
      std::fprintf(stderr, "%s: error: %s: no program or section named '%s'\n", Tool,
                   Object.c_str(), S.c_str());
      return 1;
    }
  }
  if (Chosen.empty()) {
    std::fprintf(stderr, "%s: error: %s: no programs\n", Tool, Object.c_str());
    return 1;
  }
  int Status = 0;
  for (const auto &[Name, P] : Chosen) {
    Outcome O = compareProgram(*Obj, Object, Name, P, *Packets, Shapes, Entries);
    if (O.Result == "ours" || O.Result == "differ" || O.Result == "error")
      Status = 1;
    // One line a program: a multi-line detail (map dumps) is indented.
    std::string Detail;
    for (char C : O.Detail)
      Detail += C == '\n' ? std::string("\n    ") : std::string(1, C);
    std::printf("%s: %s: %s\n", Name.c_str(), O.Result.c_str(), Detail.c_str());
    std::fflush(stdout);
  }
  return Status;
}

} // namespace ebpfgpu::tools
