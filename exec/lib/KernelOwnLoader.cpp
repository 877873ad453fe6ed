// SPDX-License-Identifier: Apache-2.0
//
// ebpf-gpu's own loader for the kernel back end (KernelBackend.h): objects
// that libbpf 1.x will not open (iproute2's legacy `maps` section, which
// Cilium's legacy builds use; Cilium's static tail programs and its own
// pinning values) are read by ebpf-gpu's object reader, as the host and GPU
// back ends read them, and loaded through the kernel's system calls: every
// map of the object created as the reader describes it (global data filled,
// .rodata frozen, inner maps from their definitions), the chosen program and
// the programs its program arrays hold statically loaded with their map
// references patched to the maps' descriptors, then those slots filled.
// Nothing is pinned, as with libbpf here. Programs that need the kernel's
// BTF (kfunc calls, kernel variables) are refused with a message: those
// objects are ones libbpf opens.

#include "ebpf-gpu/Exec/KernelBackend.h"

#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Platform/MapAbi.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <unistd.h>
#include <utility>

namespace ebpfgpu::exec {

namespace {

/// The kernel's 16-byte object names (BPF_OBJ_NAME_LEN): the first 15
/// characters the kernel takes in a name (letters, digits, '_' and '.').
std::string kernelObjectName(const std::string &Name) {
  std::string Out;
  for (char C : Name) {
    if (Out.size() == 15)
      break;
    Out += (std::isalnum(uint8_t(C)) || C == '_' || C == '.') ? C : '_';
  }
  return Out;
}

/// Descriptors made during a load: closed unless the load hands them on.
struct FdList {
  std::vector<int> Fds;
  ~FdList() {
    for (int Fd : Fds)
      close(Fd);
  }
  int keep(int Fd) {
    Fds.push_back(Fd);
    return Fd;
  }
  std::vector<int> release() { return std::exchange(Fds, {}); }
};

/// Creates map `M` (an inner definition too); -1 with errno set where the
/// kernel refuses it.
int createMap(const platform::MapSpec &M, int InnerFd) {
  LIBBPF_OPTS(bpf_map_create_opts, Opts);
  Opts.map_flags = M.Flags;
  Opts.inner_map_fd = InnerFd < 0 ? 0 : uint32_t(InnerFd);
  Opts.map_extra = M.Extra;
  // A perf event array of no size gets a slot per possible CPU, as libbpf
  // gives it.
  uint32_t Entries = M.MaxEntries;
  if (M.Type == BPF_MAP_TYPE_PERF_EVENT_ARRAY && !Entries)
    Entries = uint32_t(libbpf_num_possible_cpus());
  return bpf_map_create(static_cast<enum bpf_map_type>(M.Type), kernelObjectName(M.Name).c_str(),
                        M.KeySize, M.ValueSize, Entries, &Opts);
}

/// The program's instructions in the kernel's encoding, map references
/// patched to `MapFds`; an empty string or why it cannot be.
std::string encodeProgram(const object::ProgramSpec &P, const std::vector<int> &MapFds,
                          std::vector<struct bpf_insn> &Out) {
  Out.clear();
  for (size_t I = 0; I < P.Insns.size(); ++I) {
    const isa::Insn &In = P.Insns[I];
    struct bpf_insn K = {};
    K.code = In.Opcode;
    K.dst_reg = In.Dst & 0xf;
    K.src_reg = In.Src & 0xf;
    K.off = In.Off;
    K.imm = In.Imm;
    if (In.LddwHigh) { // its imm as the object has it (a map value's offset)
      Out.push_back(K);
      continue;
    }
    if (In.isCall() && In.Src == isa::CallKfunc)
      return "pc " + std::to_string(I) +
             ": a kfunc call, which needs the kernel's BTF ids (an object libbpf opens)";
    if (In.isLddw()) {
      switch (In.Src) {
      case isa::LddwImm64:
      case isa::LddwCodeAddr:
        break;
      case isa::LddwMapFd:
      case isa::LddwMapValue:
      case isa::LddwMapIdx:
      case isa::LddwMapIdxValue: {
        if (In.Imm < 0 || size_t(In.Imm) >= MapFds.size())
          return "pc " + std::to_string(I) + ": a reference to map " + std::to_string(In.Imm) +
                 ", which the object does not have";
        bool Value = In.Src == isa::LddwMapValue || In.Src == isa::LddwMapIdxValue;
        K.src_reg = Value ? BPF_PSEUDO_MAP_VALUE : BPF_PSEUDO_MAP_FD;
        K.imm = MapFds[size_t(In.Imm)];
        break;
      }
      default:
        return "pc " + std::to_string(I) +
               ": the address of a kernel variable, which needs the kernel's BTF (an object "
               "libbpf opens)";
      }
    }
    Out.push_back(K);
  }
  return "";
}

/// The verifier's log of a program the kernel refused (loaded again with
/// the log on, its last megabyte).
std::string refusalLog(const std::string &Name, const std::string &License,
                       const std::vector<struct bpf_insn> &Insns) {
  std::vector<char> Log(1 << 20, 0);
  LIBBPF_OPTS(bpf_prog_load_opts, Opts, .log_level = 1, .log_size = uint32_t(Log.size()),
              .log_buf = Log.data());
  int Fd = bpf_prog_load(BPF_PROG_TYPE_XDP, kernelObjectName(Name).c_str(), License.c_str(),
                         Insns.data(), Insns.size(), &Opts);
  if (Fd >= 0)
    close(Fd);
  return Log.data();
}

} // namespace

Expected<KernelLoad> KernelProgram::loadOwn(const std::string &Object, const std::string &Section,
                                            const KernelLoadOptions &O) {
  object::ReadOptions RO;
  RO.InnerMapTemplates = O.InnerMaps;
  RO.MaxEntries = O.MapSizes;
  RO.KeySizes = O.KeySizes;
  RO.ValueSizes = O.ValueSizes;
  auto Spec = object::readObjectFile(Object, RO);
  if (!Spec)
    return Spec.takeError();
  const object::ProgramSpec *Chosen = nullptr;
  if (Section.empty() && Spec->Programs.size() == 1)
    Chosen = &Spec->Programs[0];
  else if (!Section.empty())
    Chosen = Spec->findProgram(Section);
  if (!Chosen) {
    std::string Why = Spec->unlinkedReason(Section);
    return Error(Object + ": kernel back end: " +
                 (!Why.empty()                ? Why
                  : Section.empty() ? "several programs; choose one with --section"
                                    : "no such program"));
  }
  KernelLoad L;
  for (const platform::MapSpec &M : Spec->Maps)
    if (M.Type == EBPFGPU_MAP_PATTERNS || M.Type == EBPFGPU_MAP_MODEL) {
      L.Why = "map '" + M.Name + "' is an ebpf-gpu " + platform::mapTypeName(M.Type) +
              " map: the kernel has no such map type or kfunc";
      L.EbpfGpuOnly = true;
      return L;
    }
  FdList Fds;
  std::vector<int> MapFds;
  std::vector<KernelMap> Maps;
  for (const platform::MapSpec &M : Spec->Maps) {
    int InnerFd = -1;
    if (!M.Inner.empty()) {
      InnerFd = createMap(M.Inner[0], -1);
      if (InnerFd < 0) {
        L.Why = "map '" + M.Name + "': the kernel refused its inner map's definition: " +
                std::strerror(errno);
        return L;
      }
    }
    int Fd = createMap(M, InnerFd);
    int Err = errno;
    if (InnerFd >= 0)
      close(InnerFd);
    if (Fd < 0) {
      L.Why = "map '" + M.Name + "' (" + platform::mapTypeName(M.Type) +
              "): the kernel refused to create it: " + std::strerror(Err);
      return L;
    }
    Fds.keep(Fd);
    if (M.Origin == platform::MapOrigin::GlobalData) {
      uint32_t Zero = 0;
      std::vector<uint8_t> Value = M.InitialValue;
      Value.resize(M.ValueSize, 0);
      if (bpf_map_update_elem(Fd, &Zero, Value.data(), 0) != 0 ||
          ((M.Flags & platform::MapFlagReadOnlyProg) && bpf_map_freeze(Fd) != 0))
        return Error(Object + ": kernel back end: map '" + M.Name +
                     "': its initial data: " + std::strerror(errno));
    }
    MapFds.push_back(Fd);
    Maps.push_back({M, M.Name, Fd});
  }
  auto FdOfMap = [&](const std::string &Name) {
    for (size_t I = 0; I < Spec->Maps.size(); ++I)
      if (Spec->Maps[I].Name == Name)
        return MapFds[I];
    return -1;
  };
  // Maps of maps the object fills statically.
  for (size_t I = 0; I < Spec->Maps.size(); ++I)
    for (const auto &[Slot, Inner] : Spec->Maps[I].InitialMaps) {
      int InnerFd = FdOfMap(Inner);
      if (InnerFd < 0 || bpf_map_update_elem(MapFds[I], &Slot, &InnerFd, 0) != 0)
        return Error(Object + ": kernel back end: map '" + Spec->Maps[I].Name + "' slot " +
                     std::to_string(Slot) + ": cannot hold map '" + Inner +
                     "': " + std::strerror(errno));
    }
  // The chosen program, then, where the object has program arrays, every
  // other (tail calls may reach any, and a slot may be given any at run
  // time), as libbpf loads such an object.
  std::vector<const object::ProgramSpec *> ToLoad{Chosen};
  if (std::any_of(Spec->Maps.begin(), Spec->Maps.end(),
                  [](const platform::MapSpec &M) { return M.Type == EBPFGPU_MAP_PROG_ARRAY; }))
    for (const object::ProgramSpec &P : Spec->Programs)
      if (&P != Chosen)
        ToLoad.push_back(&P);
  std::map<std::string, int> ProgFds;
  for (const object::ProgramSpec *P : ToLoad) {
    std::vector<struct bpf_insn> Insns;
    if (std::string Why = encodeProgram(*P, MapFds, Insns); !Why.empty()) {
      L.Why = "program " + P->Name + ": " + Why;
      return L;
    }
    int Fd = bpf_prog_load(BPF_PROG_TYPE_XDP, kernelObjectName(P->Name).c_str(),
                           Spec->License.c_str(), Insns.data(), Insns.size(), nullptr);
    if (Fd < 0) {
      int Err = errno;
      L.Why = Err == EPERM ? "permission denied (needs root or CAP_BPF)" : std::strerror(Err);
      L.Log = refusalLog(P->Name, Spec->License, Insns);
      L.VerifierRefused = !L.Log.empty();
      if (P != Chosen)
        L.Why = "program " + P->Name + " (a program array holds it): " + L.Why;
      return L;
    }
    ProgFds[P->Name] = Fds.keep(Fd);
  }
  for (size_t I = 0; I < Spec->Maps.size(); ++I)
    for (const auto &[Slot, Name] : Spec->Maps[I].InitialPrograms) {
      auto It = ProgFds.find(Name);
      if (It == ProgFds.end())
        continue; // a program the object could not link: the slot stays empty
      if (bpf_map_update_elem(MapFds[I], &Slot, &It->second, 0) != 0)
        return Error(Object + ": kernel back end: program array '" + Spec->Maps[I].Name +
                     "' slot " + std::to_string(Slot) + ": " + std::strerror(errno));
    }
  int ProgFd = ProgFds.at(Chosen->Name);
  L.Program.reset(new KernelProgram(nullptr, ProgFd, std::move(Maps), std::move(ProgFds),
                                    Fds.release(), Chosen->Name));
  return L;
}

} // namespace ebpfgpu::exec
