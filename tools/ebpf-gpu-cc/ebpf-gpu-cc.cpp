// SPDX-License-Identifier: Apache-2.0
//
// ebpf-gpu-cc: the compiler driver. Reads an eBPF ELF object (or raw
// instructions), and prints or writes any stage of the pipeline. Exit codes:
// 0 success, 1 the input was refused (malformed, unsupported, unsafe),
// 2 bad command line. A failed run leaves no output file behind.

#include "Skeleton.h"

#include "ebpf-gpu/Compiler/GpuArtifact.h"
#include "ebpf-gpu/Compiler/GpuBackend.h"
#include "ebpf-gpu/Compiler/Lifter.h"
#include "ebpf-gpu/ISA/Decoder.h"
#include "ebpf-gpu/ISA/Disassembler.h"
#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Support/ReadFile.h"
#include "ebpf-gpu/Verifier/Verifier.h"

#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <bpf/libbpf.h>

#include <tuple>

using namespace ebpfgpu;
using namespace llvm;

namespace {

enum class EmitKind { Insns, Maps, VerifierLog, Llvm, GpuLlvm, Ptx, GpuObj, Skeleton };
enum class InputKind { Elf, Bin, Hex };

cl::OptionCategory Category("ebpf-gpu-cc options");

cl::opt<std::string> InputPath(cl::Positional, cl::desc("<input object>"), cl::Required,
                               cl::cat(Category));
cl::opt<std::string> OutputPath("o",
                                cl::desc("Output file (default: INPUT.gpu.o for gpu-obj, "
                                         "standard output for text)"),
                                cl::value_desc("file"), cl::cat(Category));
cl::opt<std::string> Section("section",
                             cl::desc("Program to compile: a function name or a section "
                                      "name (needed when the object has several)"),
                             cl::value_desc("name"), cl::cat(Category));
cl::opt<EmitKind> Emit(
    "emit", cl::desc("What to produce"), cl::init(EmitKind::GpuObj),
    cl::values(clEnumValN(EmitKind::GpuObj, "gpu-obj",
                          "the .gpu.o the loader runs: PTX, metadata, maps (default)"),
               clEnumValN(EmitKind::Insns, "insns", "decoded, linked instructions"),
               clEnumValN(EmitKind::Maps, "maps",
                          "the object's map definitions (and the slots it fills)"),
               clEnumValN(EmitKind::VerifierLog, "verifier-log",
                          "the verifier's abstract state before every instruction"),
               clEnumValN(EmitKind::Llvm, "llvm", "optimised LLVM IR of the program"),
               clEnumValN(EmitKind::GpuLlvm, "gpu-llvm",
                          "LLVM IR of the GPU module (program, helpers, batch kernel)"),
               clEnumValN(EmitKind::Ptx, "ptx", "PTX for the CUDA driver"),
               clEnumValN(EmitKind::Skeleton, "skeleton",
                          "a C header embedding the object, with its maps and global data "
                          "typed, on libebpf-gpu (as bpftool gen skeleton)")),
    cl::cat(Category));
cl::opt<std::string> SkeletonName("skeleton-name",
                                  cl::desc("--emit=skeleton: the skeleton's name (struct NAME_gpu; "
                                           "default: the object file's name up to its first dot)"),
                                  cl::value_desc("name"), cl::cat(Category));
cl::opt<std::string> GpuArch("target",
                             cl::desc("GPU target for PTX (default sm_70: every GPU from Volta on)"),
                             cl::value_desc("sm_XX"), cl::init("sm_70"), cl::cat(Category));
cl::list<std::string> InnerMaps(
    "inner-map",
    cl::desc("OUTER=MAP: the map of maps OUTER, defined without __array(values, ...), holds "
             "maps shaped as the object's map MAP (as user space sets libbpf's inner map "
             "before load); repeatable"),
    cl::value_desc("OUTER=MAP"), cl::cat(Category));
cl::list<std::string> MapSizes(
    "map-size",
    cl::desc("MAP=ENTRIES: max_entries of the object's map MAP, as user space sets it before "
             "load (maps the object leaves at 0); repeatable"),
    cl::value_desc("MAP=ENTRIES"), cl::cat(Category));
cl::list<std::string> MapKeySizes(
    "map-key-size",
    cl::desc("MAP=BYTES: the key size of the object's map MAP, as user space sets it before load "
             "(libbpf's bpf_map__set_key_size); repeatable"),
    cl::value_desc("MAP=BYTES"), cl::cat(Category));
cl::list<std::string> MapValueSizes(
    "map-value-size",
    cl::desc("MAP=BYTES: the value size of the object's map MAP, as user space sets it before "
             "load (libbpf's bpf_map__set_value_size; a global data section such as .bss "
             "resized, its last array variable with it); the verifier checks the program "
             "against it; repeatable"),
    cl::value_desc("MAP=BYTES"), cl::cat(Category));
cl::opt<bool> NoVerify("no-verify",
                       cl::desc("Skip the safety verifier (for testing back ends on programs "
                                "outside its reach; a .gpu.o is marked unverified)"),
                       cl::cat(Category));
cl::opt<uint64_t> MemSize("mem-size",
                          cl::desc("Raw platform: bytes of memory r1 points to (for the verifier)"),
                          cl::init(0), cl::cat(Category));
cl::opt<unsigned> MaxRegisters(
    "max-registers",
    cl::desc("Registers a GPU thread may use (PTX .maxnreg, as nvcc's -maxrregcount; 16-255; "
             "default: ptxas chooses). Fewer let more threads share a multiprocessor, at the "
             "price of spills"),
    cl::value_desc("N"), cl::init(0), cl::cat(Category));
cl::opt<bool> BudgetVariant(
    "budget-variant",
    cl::desc("Without --max-registers: also emit the batch kernel built with 32 registers; "
             "the loader times both on the first large batches and keeps the faster "
             "(default: on; --budget-variant=false: the default build only)"),
    cl::init(true), cl::cat(Category));
cl::opt<bool> SystemAtomics(
    "system-atomics",
    cl::desc("Atomics at system scope (PTX atom.sys), for a program whose maps are changed "
             "from several GPUs (the loader's --gpus 0,1): one copy in the first GPU's memory, "
             "reached from the others over peer access. Slower on one GPU; the default, .gpu "
             "scope, is coherent among one GPU's threads only"),
    cl::init(false), cl::cat(Category));
cl::opt<unsigned> OptLevel("O", cl::desc("Optimisation level 0-3 (default 2)"), cl::Prefix,
                           cl::init(2), cl::cat(Category));
cl::opt<std::string> PlatformName("platform",
                                  cl::desc("Program type: xdp (default) or raw (r1 = memory, "
                                           "r2 = length, as bpf_conformance)"),
                                  cl::init("xdp"), cl::cat(Category));
cl::opt<InputKind> Input(
    "input", cl::desc("Input format"), cl::init(InputKind::Elf),
    cl::values(clEnumValN(InputKind::Elf, "elf", "eBPF ELF object (default)"),
               clEnumValN(InputKind::Bin, "bin", "raw little-endian instructions"),
               clEnumValN(InputKind::Hex, "hex", "instructions as hex text")),
    cl::cat(Category));

const char *ToolName = "ebpf-gpu-cc";

[[noreturn]] void fail(const Twine &Msg, int Code = 1) {
  WithColor::error(errs(), ToolName) << Msg << "\n";
  std::exit(Code);
}

std::vector<uint8_t> parseHex(StringRef Text) {
  std::vector<uint8_t> Bytes;
  int Nibble = -1;
  for (char C : Text) {
    if (std::isspace(static_cast<unsigned char>(C)))
      continue;
    int V = std::isdigit(static_cast<unsigned char>(C)) ? C - '0'
            : (C >= 'a' && C <= 'f')                     ? C - 'a' + 10
            : (C >= 'A' && C <= 'F')                     ? C - 'A' + 10
                                                         : -1;
    if (V < 0)
      fail(InputPath + ": not hex text (character '" + Twine(C) + "')");
    if (Nibble < 0) {
      Nibble = V;
    } else {
      Bytes.push_back(uint8_t(Nibble << 4 | V));
      Nibble = -1;
    }
  }
  if (Nibble >= 0)
    fail(InputPath + ": odd number of hex digits");
  return Bytes;
}

object::ObjectSpec readInput() {
  if (Input == InputKind::Elf) {
    object::ReadOptions Opts;
    for (const std::string &A : InnerMaps) {
      auto T = object::parseInnerMapTemplate(A);
      if (!T)
        fail(T.error().message(), 2);
      Opts.InnerMapTemplates.push_back(std::move(*T));
    }
    for (const std::string &A : MapSizes) {
      auto S = object::parseMapSize(A);
      if (!S)
        fail(S.error().message(), 2);
      Opts.MaxEntries.push_back(std::move(*S));
    }
    for (const auto &[List, Option, Into] :
         {std::tuple(&MapKeySizes, "--map-key-size", &Opts.KeySizes),
          std::tuple(&MapValueSizes, "--map-value-size", &Opts.ValueSizes)})
      for (const std::string &A : *List) {
        auto S = object::parseMapNumber(A, Option, "BYTES");
        if (!S)
          fail(S.error().message(), 2);
        Into->push_back(std::move(*S));
      }
    ebpfgpu::Expected<object::ObjectSpec> Obj = object::readObjectFile(InputPath, Opts);
    if (!Obj)
      fail(Obj.error().message());
    if (Obj->Programs.empty())
      fail(Obj->Unlinked.empty() ? InputPath + ": no programs (no code section other than .text)"
                                 : InputPath + ": " + Obj->Unlinked[0].Reason);
    return std::move(*Obj);
  }
  auto Buf = MemoryBuffer::getFileOrSTDIN(InputPath, /*IsText=*/false);
  if (!Buf)
    fail(InputPath + ": cannot read: " + Buf.getError().message());
  StringRef Data = (*Buf)->getBuffer();
  std::vector<uint8_t> Bytes = Input == InputKind::Hex
                                   ? parseHex(Data)
                                   : std::vector<uint8_t>(Data.begin(), Data.end());
  auto Insns = isa::decodeProgram(Bytes.data(), Bytes.size());
  if (!Insns)
    fail(InputPath + ": " + Insns.error().message());
  object::ObjectSpec Obj;
  Obj.Path = InputPath;
  Obj.Programs.push_back(compiler::programFromInsns(std::move(*Insns), "prog"));
  return Obj;
}

std::vector<const object::ProgramSpec *> selectPrograms(const object::ObjectSpec &Obj,
                                                        bool All) {
  if (!Section.empty()) {
    std::vector<const object::ProgramSpec *> Out;
    for (const object::ProgramSpec &P : Obj.Programs)
      if (P.Name == Section || P.Section == Section)
        Out.push_back(&P);
    if (Out.empty()) {
      if (std::string Why = Obj.unlinkedReason(Section); !Why.empty())
        fail(InputPath + ": " + Why);
      std::string Have;
      for (const object::ProgramSpec &P : Obj.Programs)
        Have += (Have.empty() ? "" : ", ") + P.Name + " (" + P.Section + ")";
      fail(InputPath + ": no program or section named '" + Section + "' (have: " + Have + ")");
    }
    if (!All)
      Out.resize(1);
    return Out;
  }
  if (Obj.programCount() > 1 && !All) {
    std::string Have;
    for (const object::ProgramSpec &P : Obj.Programs)
      Have += (Have.empty() ? "" : ", ") + P.Name;
    for (const object::UnlinkedProgram &U : Obj.Unlinked)
      Have += (Have.empty() ? "" : ", ") + U.Name + " (not linked: " + U.Reason + ")";
    fail(InputPath + ": " + Twine(Obj.programCount()) +
         " programs; choose one with --section (" + Have + ")");
  }
  std::vector<const object::ProgramSpec *> Out;
  for (const object::ProgramSpec &P : Obj.Programs)
    Out.push_back(&P);
  return Out;
}

void emitInsns(const object::ObjectSpec &Obj, raw_ostream &OS) {
  const platform::Platform *Plat = platform::findPlatform(PlatformName);
  isa::DisasmNames Names;
  Names.Helper = [&](int32_t Id) -> std::string {
    const platform::HelperProto *H = Plat->helper(Id);
    return H ? "bpf_" + H->Name : "";
  };
  Names.Map = [&](int32_t Idx) -> std::string {
    return Idx >= 0 && size_t(Idx) < Obj.Maps.size() ? Obj.Maps[size_t(Idx)].Name : "";
  };
  for (const object::ProgramSpec *P : selectPrograms(Obj, true)) {
    OS << "program " << P->Name << " (section " << P->Section << ", " << P->Insns.size()
       << " insns)\n";
    const object::LineInfo *Last = nullptr;
    for (uint32_t Pc = 0; Pc < P->Insns.size(); ++Pc) {
      for (const object::FunctionSpec &F : P->Functions)
        if (F.StartPc == Pc)
          OS << F.Name << ":\n";
      if (P->Insns[Pc].LddwHigh)
        continue;
      const object::LineInfo *L = P->lineFor(Pc);
      if (L && L != Last && L->Pc == Pc && !L->SourceText.empty())
        OS << "; " << L->SourceText << "\n";
      Last = L ? L : Last;
      OS << format("%6u: ", Pc) << isa::disassemble(P->Insns[Pc], Pc, &Names) << "\n";
    }
  }
}

void emitSkeleton(const object::ObjectSpec &Obj, raw_ostream &OS) {
  if (Input != InputKind::Elf)
    fail("--emit=skeleton: the input must be an eBPF object (--input=elf)", 2);
  const object::ProgramSpec *P = selectPrograms(Obj, false)[0];
  ebpfgpu::Expected<std::vector<uint8_t>> Image = readFileBytes(InputPath);
  if (!Image)
    fail(Image.error().message());
  std::vector<std::string> Notes;
  auto H = tools::writeSkeleton(
      Obj, *P, *Image, SkeletonName.empty() ? tools::skeletonName(InputPath) : SkeletonName, Notes);
  if (!H)
    fail(InputPath + ": " + H.error().message());
  for (const std::string &N : Notes)
    WithColor::note(errs(), ToolName) << InputPath << ": " << N << "\n";
  OS << *H;
}

void emitMaps(const object::ObjectSpec &Obj, raw_ostream &OS) {
  for (const object::MapSpec &M : Obj.Maps) {
    OS << M.Name << ": " << platform::mapTypeName(M.Type) << " key " << M.KeySize
       << "B value " << M.ValueSize << "B max_entries " << M.MaxEntries;
    if (M.Flags)
      OS << format(" flags 0x%x", M.Flags);
    if (std::string Pin = object::mapPinningName(M); !Pin.empty())
      OS << " pinning " << Pin;
    for (const object::MapSpec &In : M.Inner)
      OS << " inner " << platform::mapTypeName(In.Type) << " key " << In.KeySize
         << "B value " << In.ValueSize << "B max_entries " << In.MaxEntries;
    // The slots the object fills, by slot: a program array's (static
    // `.values`, iproute2's "ID/KEY" sections, "tail:MAP/SLOT" tags), a
    // map of maps' (static `.values`).
    auto Slots = M.InitialPrograms;
    Slots.insert(Slots.end(), M.InitialMaps.begin(), M.InitialMaps.end());
    std::sort(Slots.begin(), Slots.end());
    for (const auto &[Slot, Prog] : Slots)
      OS << (&Slot == &Slots.front().first ? " slots " : ",") << Slot << "=" << Prog;
    OS << "\n";
  }
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  libbpf_set_print(nullptr);
  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](raw_ostream &OS) { OS << "ebpf-gpu-cc 0.1 (LLVM 19)\n"; });
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "ebpf-gpu-cc: compile XDP programs for GPUs and the host\n",
                                   &errs()))
    return 2;
  if (OptLevel > 3)
    fail("-O" + Twine(OptLevel) + ": optimisation level must be 0 to 3", 2);
  if (MaxRegisters && (MaxRegisters < 16 || MaxRegisters > 255))
    fail("--max-registers=" + Twine(MaxRegisters) + ": must be 16 to 255", 2);
  const platform::Platform *Plat = platform::findPlatform(PlatformName);
  if (!Plat)
    fail("--platform=" + PlatformName + ": unknown platform (xdp or raw)", 2);

  object::ObjectSpec Obj = readInput();

  // Nothing is compiled unless the verifier proves it safe.
  auto Verify = [&](const object::ProgramSpec &P, bool WantLog) {
    verifier::Options VO;
    VO.Platform = Plat;
    VO.RawMemSize = MemSize;
    VO.Log = WantLog;
    if (Plat->hasContext())
      VO.License = Obj.License;
    verifier::Result R = verifier::verify(P, Obj.Maps, VO);
    if (!R.ok() && !WantLog)
      fail(InputPath + ": program " + P.Name + ": refused by the verifier: " +
           verifier::formatDiagnostic(*R.Error, P));
    return R;
  };
  // A program that tail-calls brings every program it may reach: all are
  // verified. The set leaves packets as they came only if each does.
  bool ReadOnlyPackets = false;
  // A skeleton's program is verified when it is loaded (its .rodata may
  // change before).
  if (Emit != EmitKind::Insns && Emit != EmitKind::Maps && Emit != EmitKind::VerifierLog &&
      Emit != EmitKind::Skeleton && !NoVerify) {
    ReadOnlyPackets = true;
    for (const object::ProgramSpec *P :
         compiler::programSetFor(Obj, *selectPrograms(Obj, false)[0]).Programs)
      ReadOnlyPackets &= !Verify(*P, false).WritesPacket;
  }

  compiler::LiftOptions Lift;
  Lift.Platform = Plat;
  compiler::GpuOptions Gpu;
  Gpu.Arch = GpuArch;
  Gpu.OptLevel = OptLevel;
  Gpu.MaxRegisters = MaxRegisters;
  Gpu.BudgetVariant = BudgetVariant;
  Gpu.PacketsReadOnly = ReadOnlyPackets;
  Gpu.SystemScopeAtomics = SystemAtomics;

  std::string Text;
  raw_string_ostream OS(Text);
  switch (Emit) {
  case EmitKind::VerifierLog: {
    const object::ProgramSpec *P = selectPrograms(Obj, false)[0];
    verifier::Result R = Verify(*P, true);
    OS << R.Log;
    if (R.ok()) {
      OS << "verified: " << R.InsnsProcessed << " instructions processed, " << R.StatesStored
         << " states stored, " << R.PathsPruned << " paths pruned\n";
      for (uint32_t Pc : R.UninitStackReads)
        OS << "note: pc " << Pc
           << " reads stack bytes the program may not have written: zero here, whatever "
              "the kernel's stack held there\n";
    } else {
      OS << "refused: " << verifier::formatDiagnostic(*R.Error, *P) << "\n";
    }
    break;
  }
  case EmitKind::Insns:
    emitInsns(Obj, OS);
    break;
  case EmitKind::Maps:
    emitMaps(Obj, OS);
    break;
  case EmitKind::Skeleton:
    emitSkeleton(Obj, OS);
    break;
  case EmitKind::Llvm: {
    const object::ProgramSpec *P = selectPrograms(Obj, false)[0];
    LLVMContext Ctx;
    auto Lifted = compiler::liftProgramSet(compiler::programSetFor(Obj, *P), Obj.Maps, Lift, Ctx);
    if (!Lifted)
      fail(InputPath + ": program " + P->Name + ": " + toString(Lifted.takeError()));
    compiler::optimizeModule(*Lifted->Module, OptLevel);
    Lifted->Module->print(OS, nullptr);
    break;
  }
  case EmitKind::GpuLlvm:
  case EmitKind::Ptx: {
    const object::ProgramSpec *P = selectPrograms(Obj, false)[0];
    auto G = compiler::compileForGpu(compiler::programSetFor(Obj, *P), Obj.Maps, Lift, Gpu);
    if (!G)
      fail(InputPath + ": program " + P->Name + ": " + toString(G.takeError()));
    OS << (Emit == EmitKind::Ptx ? G->Ptx : G->Llvm);
    break;
  }
  case EmitKind::GpuObj: {
    const object::ProgramSpec *P = selectPrograms(Obj, false)[0];
    auto G = compiler::buildGpuObject(Obj, *P, Lift, Gpu, !NoVerify);
    if (!G)
      fail(InputPath + ": program " + P->Name + ": " + toString(G.takeError()));
    std::string Out = OutputPath;
    if (Out.empty()) {
      StringRef Stem = sys::path::stem(InputPath);
      Out = (Stem.empty() ? StringRef("out") : Stem).str() + ".gpu.o";
    }
    if (Out == "-")
      fail("a .gpu.o is binary; name an output file with -o", 2);
    if (MaybeError E = abi::writeFileAtomically(Out, abi::writeGpuObject(*G)))
      fail(E->message());
    return 0;
  }
  }

  std::string Path = OutputPath.empty() ? std::string("-") : std::string(OutputPath);
  std::error_code EC;
  ToolOutputFile Out(Path, EC, sys::fs::OF_None);
  if (EC)
    fail(Path + ": " + EC.message());
  Out.os() << OS.str();
  Out.os().flush();
  if (Out.os().has_error())
    fail(Path + ": write failed");
  Out.keep();
  return 0;
}
