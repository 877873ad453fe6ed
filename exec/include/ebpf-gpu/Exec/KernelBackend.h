// SPDX-License-Identifier: Apache-2.0
//
// The kernel back end of ebpf-gpu-loader: one program of an eBPF object
// loaded into the Linux kernel with libbpf (its verifier decides), map
// entries set, packets run one by one with BPF_PROG_TEST_RUN on one CPU,
// event records collected, maps dumped in the text form the host and GPU
// back ends write. exec::load() makes a runtime::BatchExecutor of it (`run
// --backend kernel`); `compare`, which checks many programs in one process
// and needs the kernel's refusal as data, takes KernelProgram itself.
// Errors are returned, never printed.

#ifndef EBPF_GPU_EXEC_KERNELBACKEND_H
#define EBPF_GPU_EXEC_KERNELBACKEND_H

#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Platform/MapShape.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct bpf_object;
struct bpf_program;

namespace ebpfgpu::exec {

class KernelProgram;

/// What loading a program into the kernel gave: the program, or the
/// kernel's refusal (the load's error and libbpf's messages, the verifier's
/// log among them when the verifier decided).
struct KernelLoad {
  std::unique_ptr<KernelProgram> Program;
  std::string Why;     ///< refused: the load's error (strerror)
  std::string Log;     ///< refused: libbpf's messages
  bool VerifierRefused = false; ///< refused with a verifier log
  /// Refused before the kernel saw it: the object uses what only ebpf-gpu
  /// has (its own map types, for its kfuncs: docs/KFUNCS.md); Why says
  /// what, in one line.
  bool EbpfGpuOnly = false;
  /// Refused because it calls the XDP RX metadata kfuncs, which the kernel
  /// offers only to a program bound to a device, and BPF_PROG_TEST_RUN
  /// runs no such program (-EINVAL): the kernel cannot be asked what they
  /// return. Why says so, in one line.
  bool DeviceBound = false;
  /// Refused before the verifier ran: the kernel lacks a kfunc or kernel
  /// variable the object names (libbpf: "not found in kernel or module
  /// BTFs", e.g. a module's kfunc with the module not loaded). Why names it.
  bool Missing = false;
};

/// What user space sets on an object before load: max_entries of maps the
/// object leaves to it (--map-size), key and value sizes (--map-key-size,
/// --map-value-size), and the inner map template of maps of maps defined
/// without one (--inner-map OUTER=TEMPLATE).
struct KernelLoadOptions {
  std::vector<std::pair<std::string, uint32_t>> MapSizes, KeySizes, ValueSizes;
  std::vector<std::pair<std::string, std::string>> InnerMaps;
  /// Load the chosen program with the plain XDP attach type where libbpf
  /// gives it the devmap or cpumap one (sections `xdp/devmap`,
  /// `xdp/cpumap`, their `.frags` forms): BPF_PROG_TEST_RUN runs no
  /// devmap or cpumap program (-EINVAL), a plain XDP one it does. A
  /// program that reads `egress_ifindex` is then refused.
  bool PlainXdpAttach = false;
};

/// Whether libbpf gives a program of this section the devmap or cpumap
/// XDP attach type (KernelLoadOptions::PlainXdpAttach).
bool isDevmapOrCpumapSection(const std::string &Section);

/// A map the kernel holds for a loaded program (its shape as the object's
/// MapSpec and the other back ends' MapInfo carry it): what the dump, the
/// event readers and map updates need of it.
struct KernelMap : platform::MapShape {
  std::string Name; ///< as the other back ends name it (`.rodata` for global data)
  int Fd = -1;
};

class KernelProgram {
public:
  /// Opens `Object` and loads the program `Section` names (its function or
  /// section name; empty: the object's only program). Objects with program
  /// arrays load every program (tail calls may reach any); others only the
  /// chosen one. An Error when the object cannot be opened or has no such
  /// program; a KernelLoad without a program when the kernel refused it.
  /// Objects libbpf cannot open (legacy `maps` sections, Cilium's static
  /// tail programs) are loaded by ebpf-gpu's own loader: the object reader's
  /// maps created, its programs' map references patched, through the
  /// kernel's system calls (loadOwn).
  static Expected<KernelLoad> load(const std::string &Object, const std::string &Section,
                                   const KernelLoadOptions &Opts = {});
  /// The own loader alone (KernelOwnLoader.cpp): every map of the object,
  /// the chosen program and those its program arrays hold statically.
  static Expected<KernelLoad> loadOwn(const std::string &Object, const std::string &Section,
                                      const KernelLoadOptions &Opts = {});
  ~KernelProgram();
  KernelProgram(const KernelProgram &) = delete;
  KernelProgram &operator=(const KernelProgram &) = delete;

  const std::string &name() const { return Name; }
  /// Sets map entries (per-CPU maps: the value on CPU 0); an error names
  /// the map.
  MaybeError setMapEntries(const std::vector<loader::MapEntry> &Entries);
  /// Runs every packet of `Batch` through BPF_PROG_TEST_RUN on one CPU and
  /// stores the results in it. `Ingress`: the ifindex the context names
  /// (none: no context, the loopback device). Event maps are read every
  /// `EventBatch` packets (0: at the end); their records go to `Events`.
  MaybeError run(runtime::PacketBatch &Batch, std::optional<uint32_t> Ingress, size_t EventBatch,
                 std::string &Events, uint64_t &LostEvents);
  /// After a run that stopped because the kernel grew a packet past the
  /// batch's buffer for it (more than the tailroom ebpf-gpu gives): the
  /// packet and the length the kernel gave it.
  std::optional<std::pair<size_t, uint32_t>> overflow() const { return Overflow; }
  /// The maps and global data the program can reach (its own, those of the
  /// programs in its program arrays, the maps its maps of maps hold), in the
  /// common text form: the maps the other back ends create for it.
  std::string dumpMaps() const;

  /// Which loader loaded it: "libbpf" or "own".
  const char *loaderName() const { return Obj ? "libbpf" : "own"; }

private:
  KernelProgram(struct bpf_object *Obj, int ProgFd, std::vector<KernelMap> Maps,
                std::map<std::string, int> ProgramFds, std::vector<int> OwnFds, std::string Name)
      : Obj(Obj), ProgFd(ProgFd), Maps(std::move(Maps)), ProgramFds(std::move(ProgramFds)),
        OwnFds(std::move(OwnFds)), Name(std::move(Name)) {}
  struct bpf_object *Obj; ///< libbpf's object; null when the own loader loaded it
  int ProgFd;
  std::vector<KernelMap> Maps;
  /// The object's loaded programs by name: what a program array's slot
  /// can be given at run time.
  std::map<std::string, int> ProgramFds;
  std::vector<int> OwnFds; ///< the own loader's maps and programs, closed with it
  std::string Name;
  std::optional<std::pair<size_t, uint32_t>> Overflow;
};

/// The line of a kernel verifier log that says why it refused: the one
/// before the "processed N insns" summary (or the log's end).
std::string kernelRefusalReason(const std::string &Log);

} // namespace ebpfgpu::exec

#endif // EBPF_GPU_EXEC_KERNELBACKEND_H
