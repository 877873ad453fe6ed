// SPDX-License-Identifier: Apache-2.0
//
// libebpf-gpu's C API (include/ebpf-gpu/ebpf-gpu.h) over exec::load(), the
// one way a program comes to run (verified first), a BatchExecutor's map
// access and its batch runs. What a C caller passes is checked here, once,
// with a message; nothing throws across the C boundary. An opened program
// holds its object's bytes and its global data in host memory of its own
// until load; the global data a caller holds stays there after load, copied
// into the live map and back around each burst and map call. Built without
// the compiler (EBPF_GPU_WITH_COMPILER=OFF: what a GPU host that has no LLVM
// links), it runs .gpu.o files and refuses eBPF objects with one message.
// The map calls (ebpf_gpu_map__*) are CApiMaps.cpp's; CApiInternal.h holds
// what both halves share.

#include "CApiInternal.h"

#include "ebpf-gpu/Abi/GpuObject.h"
#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Exec/Executors.h"
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
#include "ebpf-gpu/Object/Object.h"
#endif
#include "ebpf-gpu/Runtime/BatchExecutor.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Support/ReadFile.h"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ebpfgpu;
using namespace ebpfgpu::capi;

namespace ebpfgpu::capi {

thread_local std::string LastError;

int failWith(int Errno, std::string Msg) {
  LastError = std::move(Msg);
  errno = Errno;
  return -Errno;
}

} // namespace ebpfgpu::capi

namespace {

#ifndef EBPF_GPU_LOADER_WITH_COMPILER
/// Why an eBPF object is refused by a library without the compiler.
int refuseWithoutCompiler(const std::string &Name) {
  return failWith(EOPNOTSUPP, Name + ": not a .gpu.o, and this libebpf-gpu was built without the "
                                     "compiler: compile with ebpf-gpu-cc first");
}
#endif

/// Loads `P` (opened: its request, with the global data's bytes as
/// initial values) and binds its maps to the live ones by name.
int loadOpened(ebpf_gpu_prog &P) {
  exec::LoadRequest R = P.Request;
  for (auto &M : P.Maps)
    if (M->Data)
      R.InitialValues.emplace_back(M->Info.Name, std::vector<uint8_t>(M->Data, M->Data + M->Size));
  auto L = exec::load(R);
  if (!L)
    return failWith(EINVAL, L.error().message());
  // A .gpu.o holds one program: one that names another is refused, not
  // run in its stead (an eBPF object's was chosen by its name).
  if (!R.Section.empty() && R.Section != L->Section && R.Section != L->Exec->programName())
    return failWith(EINVAL, R.Path + " holds program '" + L->Exec->programName() + "' (section '" +
                                L->Section + "'), not '" + R.Section + "'");
  P.Loaded = std::move(*L);
  P.Workers = R.Host.Cpus;
  P.Name = P.Loaded.Exec->programName();
  for (const runtime::MapInfo &I : P.Loaded.Exec->maps()) {
    auto It = std::find_if(P.Maps.begin(), P.Maps.end(),
                           [&](const auto &M) { return M->Info.Name == I.Name; });
    if (It == P.Maps.end()) {
      P.Maps.push_back(std::make_unique<ebpf_gpu_map>());
      It = std::prev(P.Maps.end());
      (*It)->Prog = &P;
    }
    (*It)->Info = I;
    (*It)->Live = true;
  }
  // Per-CPU maps: how many CPUs their blocks hold.
  for (auto &M : P.Maps)
    if (M->Live && ebpfgpu_map_is_percpu(M->Info.Type))
      accessMap(M.get(), [&](::ebpfgpu_map &H, bool &) {
        M->Cpus = H.nslices;
        return 0;
      });
  // Global data the compiled program does not use has no memory in the
  // back end (the GPU's module keeps the sections it refers to): its bytes
  // are the caller's alone, as they do not matter to the program.
  for (auto &M : P.Maps)
    if (M->Live && M->Info.GlobalData &&
        accessMap(M.get(), [](::ebpfgpu_map &, bool &) { return 0; }, /*Mirror=*/false))
      M->Live = false;
  // A .gpu.o's sections given bytes before load (set_initial_value): the
  // back end made them from the object, so they are written in now.
  for (auto &M : P.Maps)
    if (P.GpuObject && M->Data && M->Live && !M->Info.ReadOnly)
      if (int E = accessMap(
              M.get(),
              [&](::ebpfgpu_map &H, bool &Changed) {
                std::memcpy(dataValue(H), M->Data, M->Size);
                Changed = true;
                return 0;
              },
              /*Mirror=*/false))
        return E;
  LastError.clear();
  for (auto &M : P.Maps)
    if (M->Data && M->Info.ReadOnly)
      if (int E = freezeReadOnly(*M))
        return E;
  P.Request = exec::LoadRequest();
  return 0;
}

} // namespace

namespace ebpfgpu::capi {

// (CApiInternal.h) Copies the global data the caller holds into the live maps before a
/// burst (`In`) or back after it.
int syncData(ebpf_gpu_prog &P, bool In) {
  for (auto &M : P.Maps) {
    if (!M->Shared || !M->Live || M->Info.ReadOnly)
      continue;
    ebpf_gpu_map &Map = *M;
    auto Copy = [&](::ebpfgpu_map &H, bool &Changed) {
      if (In)
        std::memcpy(dataValue(H), Map.Data, Map.Size);
      else
        std::memcpy(Map.Data, dataValue(H), Map.Size);
      Changed = In;
      return 0;
    };
    if (int E = accessMap(&Map, Copy, /*Mirror=*/false))
      return E;
  }
  return 0;
}

} // namespace ebpfgpu::capi

namespace {

/// Copies the caller's options (`In->sz` bytes of them; none when `In` is
/// null) into `O`, as libbpf's opts: fields past what the caller's struct
/// has read as zero, and a newer caller's fields this library does not
/// know must be zero. 0 or a negative errno.
template <typename Opts> int copyOpts(const Opts *In, Opts &O, const char *Name) {
  if (!In)
    return 0;
  if (In->sz < sizeof(size_t))
    return failWith(EINVAL, std::string(Name) + ".sz is not set");
  std::memcpy(&O, In, std::min(In->sz, sizeof(O)));
  for (size_t I = sizeof(O); I < In->sz; ++I)
    if (reinterpret_cast<const uint8_t *>(In)[I])
      return failWith(EINVAL, std::string(Name) + " has fields this library does not know set "
                                                  "(a newer header?)");
  return 0;
}

/// Checks the options as ebpf_gpu_prog__load takes them and fills `R`
/// with them; 0 or a negative errno.
int readOpts(const ebpf_gpu_load_opts *opts, exec::LoadRequest &R) {
  ebpf_gpu_load_opts O{};
  if (int E = copyOpts(opts, O, "ebpf_gpu_load_opts"))
    return E;
  R.Section = O.program ? O.program : "";
  switch (O.backend) {
  case EBPF_GPU_BACKEND_DEFAULT:
    break;
  case EBPF_GPU_BACKEND_HOST:
    R.Kind = exec::Backend::Host;
    break;
  case EBPF_GPU_BACKEND_GPU:
    R.Kind = exec::Backend::Gpu;
    break;
  default:
    return failWith(EINVAL, "unknown back end " + std::to_string(int(O.backend)));
  }
  exec::GpuExecOptions &G = R.Gpu;
  G.LaunchSize = O.gpu_launch_size;
  if (O.gpu_mode != EBPF_GPU_MODE_LAUNCH && O.gpu_mode != EBPF_GPU_MODE_PERSISTENT)
    return failWith(EINVAL, "unknown gpu_mode " + std::to_string(int(O.gpu_mode)));
  G.Mode = O.gpu_mode == EBPF_GPU_MODE_PERSISTENT ? loader::GpuMode::Persistent
                                                   : loader::GpuMode::Launch;
  if (O.gpu_data != EBPF_GPU_DATA_COPY && O.gpu_data != EBPF_GPU_DATA_MAPPED)
    return failWith(EINVAL, "unknown gpu_data " + std::to_string(int(O.gpu_data)));
  G.Path = O.gpu_data == EBPF_GPU_DATA_MAPPED ? loader::GpuDataPath::Mapped
                                              : loader::GpuDataPath::Copy;
  switch (O.gpu_stage) {
  case EBPF_GPU_STAGE_AUTO:
    G.Stage = exec::GpuExecOptions::Staging::Auto;
    break;
  case EBPF_GPU_STAGE_ON:
    G.Stage = exec::GpuExecOptions::Staging::On;
    break;
  case EBPF_GPU_STAGE_OFF:
    G.Stage = exec::GpuExecOptions::Staging::Off;
    break;
  default:
    return failWith(EINVAL, "unknown gpu_stage " + std::to_string(int(O.gpu_stage)));
  }
  G.Blocks = O.gpu_blocks;
  if (O.gpu_watchdog_ms)
    G.WatchdogMs = O.gpu_watchdog_ms;
  R.AllowUnverified = O.allow_unverified;
  // Workers: a per-CPU slice each on the host, which reclaims what
  // deletions freed when no worker is inside a burst; on the GPU lanes of
  // their own with bursts in flight at once (launch mode, as the daemon's).
  const uint32_t Workers = O.workers ? O.workers : 1;
  if (Workers > 4096)
    return failWith(EINVAL, "workers: " + std::to_string(Workers) + " is more than 4096");
  R.Host.Cpus = Workers;
  if (Workers > 1) {
    R.Host.Reclaim = exec::HostReclaim::EachBatch;
    G.AsyncLanes = G.LaunchSize == 0;
    G.PersistentLanes = false;
  }
  return 0;
}

/// Adds map `S` to the opened `P`, as the back ends will describe it;
/// global data gets host memory with `Init` in it when `Init` is given (an
/// eBPF object's bytes; a .gpu.o has them compiled in). 0 or a negative
/// errno.
int addMap(ebpf_gpu_prog &P, const platform::MapSpec &S, const std::vector<uint8_t> *Init) {
  auto M = std::make_unique<ebpf_gpu_map>();
  M->Prog = &P;
  M->Info = runtime::liveMap(S);
  if (M->Info.GlobalData && Init && !allocData(*M, *Init))
    return failWith(ENOMEM, "map '" + S.Name + "': out of memory");
  P.Maps.push_back(std::move(M));
  return 0;
}

/// Reads the .gpu.o `Image` (named `Name`) into `P`: its program and its
/// maps as the compiler wrote them. 0 or a negative errno.
int openGpuObject(ebpf_gpu_prog &P, const std::vector<uint8_t> &Image, const std::string &Name,
                  const std::string &Section) {
  Expected<abi::GpuObjectSpec> Spec = abi::readGpuObjectMemory(Image.data(), Image.size(), Name);
  if (!Spec)
    return failWith(EINVAL, Spec.error().message());
  if (!Section.empty() && Section != Spec->Section && Section != Spec->Program)
    return failWith(EINVAL, Name + " holds program '" + Spec->Program + "' (section '" +
                                Spec->Section + "'), not '" + Section + "'");
  P.Name = Spec->Program;
  P.GpuObject = true;
  for (const platform::MapSpec &S : Spec->Maps)
    if (int E = addMap(P, S, nullptr))
      return E;
  return 0;
}

/// Reads the eBPF object `Image` (named `Name`) into `P`: its maps as the
/// object declares them, global data with its initial bytes. 0 or a
/// negative errno.
int openEbpfObject(ebpf_gpu_prog &P, const std::vector<uint8_t> &Image, const std::string &Name,
                   const std::string &Section) {
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
  // Maps of maps may get their inner map's shape after open
  // (ebpf_gpu_map__set_inner_map), as libbpf's do.
  object::ReadOptions Read;
  Read.RequireInnerMaps = false;
  Expected<object::ObjectSpec> Obj =
      object::readObjectMemory(Image.data(), Image.size(), Name, Read);
  if (!Obj)
    return failWith(EINVAL, Obj.error().message());
  const object::ProgramSpec *Chosen = Obj->findProgram(Section);
  if (!Chosen && Section.empty() && Obj->Programs.size() == 1)
    Chosen = &Obj->Programs[0];
  P.Name = Chosen ? Chosen->Name : Section;
  for (const object::MapSpec &S : Obj->Maps) {
    if (int E = addMap(P, S, &S.InitialValue))
      return E;
    P.Maps.back()->HasInner = !S.Inner.empty();
  }
  return 0;
#else
  return refuseWithoutCompiler(Name);
#endif
}

/// Reads `Image` (named `Name`), a .gpu.o or an eBPF object, into an
/// opened program. Null with errno set when it is refused.
ebpf_gpu_prog *openImage(std::shared_ptr<const std::vector<uint8_t>> Image, const std::string &Name,
                         const ebpf_gpu_load_opts *opts) {
  exec::LoadRequest R;
  if (int E = readOpts(opts, R)) {
    errno = -E;
    return nullptr;
  }
  std::unique_ptr<ebpf_gpu_prog> P(new (std::nothrow) ebpf_gpu_prog);
  if (!P)
    return failNull<ebpf_gpu_prog>(ENOMEM, "out of memory");
  if (int E = abi::isGpuObjectMemory(Image->data(), Image->size())
                  ? openGpuObject(*P, *Image, Name, R.Section)
                  : openEbpfObject(*P, *Image, Name, R.Section)) {
    errno = -E;
    return nullptr;
  }
  R.Path = Name;
  R.Image = std::move(Image);
  P->Request = std::move(R);
  return P.release();
}

} // namespace

namespace {

// The host back end reads and writes the caller's packets as its own
// runtime::InPlacePacket: the same fields at the same places.
static_assert(sizeof(ebpf_gpu_packet) == sizeof(runtime::InPlacePacket) &&
              offsetof(ebpf_gpu_packet, data) == offsetof(runtime::InPlacePacket, Data) &&
              offsetof(ebpf_gpu_packet, len) == offsetof(runtime::InPlacePacket, Len) &&
              offsetof(ebpf_gpu_packet, cap) == offsetof(runtime::InPlacePacket, Cap) &&
              offsetof(ebpf_gpu_packet, verdict) == offsetof(runtime::InPlacePacket, Verdict) &&
              offsetof(ebpf_gpu_packet, redirect) == offsetof(runtime::InPlacePacket, Redirect) &&
              offsetof(ebpf_gpu_packet, headroom) == offsetof(runtime::InPlacePacket, Headroom));

/// A burst whose every packet has a batch copy's room around it, on a back
/// end that runs such bursts where they lie (the host's): no batch, nothing
/// copied, each packet's outcome written into its own record.
int runInPlaceBurst(ebpf_gpu_prog &P, ebpf_gpu_packet *pkts, uint32_t count,
                    const ebpf_gpu_run_opts &O, ebpf_gpu_lane *Lane, uint32_t Stride) {
  runtime::InPlaceBurst B;
  B.Packets = reinterpret_cast<runtime::InPlacePacket *>(pkts);
  B.Count = count;
  B.Stride = Stride;
  B.IngressIfindex = O.ingress_ifindex;
  B.RxQueueIndex = O.rx_queue_index;
  B.Prefetch = O.prefetch;
  if (!Lane)
    if (int E = syncData(P, true))
      return E;
  MaybeError RunErr = P.Loaded.Exec->runInPlace(B, Lane ? Lane->Worker : 0);
  // What the program wrote before it failed is the map's now too.
  if (!Lane)
    if (int E = syncData(P, false))
      return E;
  if (RunErr)
    return failWith(EIO, "program '" + P.Name + "': " + RunErr->message());
  P.HostInPlace += count;
  LastError.clear();
  return int(count);
}

/// A burst through the program (`Lane` null: as worker 0, the global data
/// the caller holds kept in step) or through `Lane`: the packets copied
/// into a batch, each with its own headroom (runtime::dataOffsetFor), run,
/// and their outcome copied back within each packet's room. On the host
/// back end, when every packet has the tailroom a copy would give it (from
/// `data` to the end of the batch's stride), the packets run where they
/// are instead, each in a buffer of exactly a copy's bounds: the program
/// sees the same packet, and nothing is copied either way.
int runBurst(ebpf_gpu_prog *prog, ebpf_gpu_packet *pkts, uint32_t count,
             const ebpf_gpu_run_opts *opts, ebpf_gpu_lane *Lane) {
  ebpf_gpu_run_opts O{};
  if (int E = copyOpts(opts, O, "ebpf_gpu_run_opts"))
    return E;
  if (!prog || (!pkts && count))
    return failWith(EINVAL, "no program or no packets (NULL)");
  if (!prog->Loaded.Exec)
    return failWith(EINVAL, "program '" + prog->Name + "' is opened, not loaded "
                                                       "(ebpf_gpu_prog__load_opened)");
  constexpr uint32_t MaxFrame = 9216;
  // One look at each packet: checked, and what decides the batch's stride
  // and whether it runs in place.
  uint32_t MaxLen = 64;
  for (uint32_t I = 0; I < count; ++I) {
    const ebpf_gpu_packet &P = pkts[I];
    if (!P.data || P.len > MaxFrame || P.len > P.cap)
      return failWith(EINVAL, "packet " + std::to_string(I) + ": no data, or longer than " +
                                  (P.len > MaxFrame ? "9216 bytes" : "its cap"));
    MaxLen = std::max(MaxLen, P.len);
  }
  const uint32_t Stride = uint32_t(runtime::PacketBatch::strideFor(MaxLen)),
                 Room = Stride - runtime::XdpHeadroom;
  // The host back end runs every burst straight from the caller's array.
  if (prog->Loaded.Exec->runsInPlaceBursts())
    return runInPlaceBurst(*prog, pkts, count, O, Lane, Stride);
  runtime::PacketBatch &Batch = Lane ? Lane->Batch : prog->Batch;
  Batch.reset(MaxLen);
  Batch.setIngress(O.ingress_ifindex, O.rx_queue_index);
  // GPU with packet memory given: the back end runs in place what lies in
  // it and copies the rest to and from the packets' own buffers, so either
  // way the outcome is in them (a packet's metadata only where it ran in
  // place).
  const bool InPlace = prog->PacketMemory;
  Batch.reserve(count, /*Copies=*/!InPlace);
  for (uint32_t I = 0; I < count; ++I) {
    const uint32_t At = runtime::dataOffsetFor(pkts[I].headroom);
    if (InPlace)
      Batch.addExternal(pkts[I].data - At, At + std::min(pkts[I].cap, Room), At, pkts[I].len);
    else
      Batch.addAt(pkts[I].data, pkts[I].len, At, pkts[I].cap);
  }
  MaybeError RunErr;
  if (Lane) {
    RunErr = Lane->Lane->submit(0, Batch);
    if (!RunErr)
      if (Expected<bool> Done = Lane->Lane->poll(0, /*Wait=*/true); !Done)
        RunErr = Done.takeError();
    Lane->Lane->finish(0);
  } else {
    if (int E = syncData(*prog, true))
      return E;
    RunErr = prog->Loaded.Exec->run(Batch);
    // What the program wrote before it failed is the map's now too.
    if (int E = syncData(*prog, false))
      return E;
  }
  if (RunErr) {
    std::string Msg = "program '" + prog->Name + "': " + RunErr->message();
#ifdef EBPF_GPU_HAVE_CUDA
    // A hung kernel is ended now rather than at the process's exit, and
    // the caller told how.
    if (prog->Loaded.Kind == exec::Backend::Gpu)
      if (std::string Halt = exec::haltGpuExecutor(*prog->Loaded.Exec); !Halt.empty())
        Msg += " (" + Halt + ")";
#endif
    return failWith(EIO, Msg);
  }
  // Each packet started at dataOffsetFor(its headroom) in the batch's
  // buffer: where it starts now, against that, says how far `data` moves.
  // No packet can have left its own room: its buffer in the batch was that
  // room (PacketBatch::addAt), and the back ends keep a packet in its buffer.
  for (uint32_t I = 0; I < count; ++I) {
    // The headroom the program could reach comes back too: adjust_meta's
    // metadata is in it (not the xdp_frame's bytes below, which it cannot).
    const uint32_t At = runtime::dataOffsetFor(pkts[I].headroom),
                   Head = At - EBPFGPU_XDP_FRAME_SIZE;
    int64_t Moved = int64_t(Batch.offset(I)) - At;
    if (!InPlace)
      std::memmove(pkts[I].data - Head, Batch.buffer(I) + At - Head,
                   size_t(Head + Moved + Batch.length(I)));
    pkts[I].data += Moved;
    pkts[I].headroom = uint32_t(int64_t(pkts[I].headroom) + Moved);
    pkts[I].cap = uint32_t(int64_t(pkts[I].cap) - Moved);
    pkts[I].len = Batch.length(I);
    pkts[I].verdict = uint32_t(Batch.verdict(I));
    pkts[I].redirect = uint32_t(Batch.redirectTarget(I));
  }
  LastError.clear();
  return int(count);
}


} // namespace

extern "C" {

const char *ebpf_gpu_last_error(void) { return LastError.c_str(); }

struct ebpf_gpu_prog *ebpf_gpu_prog__load(const char *path, const struct ebpf_gpu_load_opts *opts) {
  LastError.clear();
  if (!path)
    return failNull<ebpf_gpu_prog>(EINVAL, "no path (NULL)");
  exec::LoadRequest R;
  if (int E = readOpts(opts, R)) {
    errno = -E;
    return nullptr;
  }
  R.Path = path;
  if (access(path, R_OK) != 0)
    return failNull<ebpf_gpu_prog>(errno == ENOENT ? ENOENT : EINVAL,
                                   std::string(path) + ": " + std::strerror(errno));
#ifndef EBPF_GPU_LOADER_WITH_COMPILER
  if (!abi::isGpuObjectFile(path)) {
    errno = -refuseWithoutCompiler(path);
    return nullptr;
  }
#endif
  std::unique_ptr<ebpf_gpu_prog> P(new (std::nothrow) ebpf_gpu_prog);
  if (!P)
    return failNull<ebpf_gpu_prog>(ENOMEM, "out of memory");
  P->Request = std::move(R);
  if (int E = loadOpened(*P)) {
    errno = -E;
    return nullptr;
  }
  return P.release();
}

struct ebpf_gpu_prog *ebpf_gpu_prog__open(const char *path, const struct ebpf_gpu_load_opts *opts) {
  LastError.clear();
  if (!path)
    return failNull<ebpf_gpu_prog>(EINVAL, "no path (NULL)");
  if (access(path, R_OK) != 0)
    return failNull<ebpf_gpu_prog>(errno == ENOENT ? ENOENT : EINVAL,
                                   std::string(path) + ": " + std::strerror(errno));
  Expected<std::vector<uint8_t>> Bytes = readFileBytes(path);
  if (!Bytes)
    return failNull<ebpf_gpu_prog>(EINVAL, Bytes.error().message());
  return openImage(std::make_shared<const std::vector<uint8_t>>(std::move(*Bytes)), path, opts);
}

struct ebpf_gpu_prog *ebpf_gpu_prog__open_mem(const void *data, size_t size, const char *name,
                                              const struct ebpf_gpu_load_opts *opts) {
  LastError.clear();
  if (!data || !size)
    return failNull<ebpf_gpu_prog>(EINVAL, "no object (NULL or 0 bytes)");
  const auto *B = static_cast<const uint8_t *>(data);
  return openImage(std::make_shared<const std::vector<uint8_t>>(B, B + size),
                   name ? name : "(memory)", opts);
}

int ebpf_gpu_prog__load_opened(struct ebpf_gpu_prog *prog) {
  LastError.clear();
  if (!prog)
    return failWith(EINVAL, "no program (NULL)");
  if (prog->Loaded.Exec || !prog->Request.Image)
    return failWith(EINVAL, "program '" + prog->Name + "' is " +
                                (prog->Loaded.Exec ? "already loaded" : "not opened"));
  for (const auto &M : prog->Maps)
    if (ebpfgpu_map_is_outer(M->Info.Type) && !M->HasInner && !prog->GpuObject)
      return failWith(EINVAL, "map '" + M->Info.Name + "': map of maps without an inner map "
                                                       "definition: give one with "
                                                       "ebpf_gpu_map__set_inner_map");
  return loadOpened(*prog);
}

void ebpf_gpu_prog__close(struct ebpf_gpu_prog *prog) {
  // The caller's packet memory unlocked before the executor goes (on the
  // primary context, pages stay registered past it otherwise).
  ebpf_gpu_prog__forget_packet_memory(prog);
  delete prog;
}

const char *ebpf_gpu_prog__name(const struct ebpf_gpu_prog *prog) {
  return prog ? prog->Name.c_str() : nullptr;
}

const char *ebpf_gpu_prog__backend(const struct ebpf_gpu_prog *prog) {
  return prog && prog->Loaded.Exec ? exec::backendName(prog->Loaded.Kind) : nullptr;
}

size_t ebpf_gpu_prog__map_count(const struct ebpf_gpu_prog *prog) {
  return prog ? prog->Maps.size() : 0;
}

struct ebpf_gpu_map *ebpf_gpu_prog__map(struct ebpf_gpu_prog *prog, size_t index) {
  if (!prog || index >= prog->Maps.size())
    return failNull<ebpf_gpu_map>(EINVAL, "no map " + std::to_string(index));
  return prog->Maps[index].get();
}

struct ebpf_gpu_map *ebpf_gpu_prog__find_map_by_name(struct ebpf_gpu_prog *prog,
                                                     const char *name) {
  if (prog && name)
    for (auto &M : prog->Maps)
      if (M->Info.Name == name)
        return M.get();
  return failNull<ebpf_gpu_map>(ENOENT, std::string("no map named '") + (name ? name : "") + "'");
}

int ebpf_gpu_prog__run_burst(struct ebpf_gpu_prog *prog, struct ebpf_gpu_packet *pkts,
                             uint32_t count) {
  return ebpf_gpu_prog__run_burst_opts(prog, pkts, count, nullptr);
}

int ebpf_gpu_prog__run_burst_opts(struct ebpf_gpu_prog *prog, struct ebpf_gpu_packet *pkts,
                                  uint32_t count, const struct ebpf_gpu_run_opts *opts) {
  return runBurst(prog, pkts, count, opts, nullptr);
}

struct ebpf_gpu_lane *ebpf_gpu_prog__lane(struct ebpf_gpu_prog *prog, uint32_t worker) {
  if (!prog || !prog->Loaded.Exec)
    return failNull<ebpf_gpu_lane>(EINVAL, "lane: no program, or one opened and not loaded");
  if (worker >= prog->Workers)
    return failNull<ebpf_gpu_lane>(EINVAL, "program '" + prog->Name + "' has " +
                                               std::to_string(prog->Workers) +
                                               " worker(s) (load_opts.workers), not " +
                                               std::to_string(worker + 1));
  std::lock_guard Lock(prog->LanesLock);
  for (auto &L : prog->Lanes)
    if (L->Worker == worker)
      return L.get();
  auto Lane = prog->Loaded.Exec->openLane(1, worker);
  if (!Lane)
    return failNull<ebpf_gpu_lane>(EINVAL, "program '" + prog->Name + "': " +
                                               Lane.error().message());
  auto L = std::make_unique<ebpf_gpu_lane>();
  L->Prog = prog;
  L->Worker = worker;
  L->Lane = std::move(*Lane);
  prog->Lanes.push_back(std::move(L));
  LastError.clear();
  return prog->Lanes.back().get();
}

int ebpf_gpu_prog__use_packet_memory(struct ebpf_gpu_prog *prog, void *addr, size_t size) {
  if (!prog || !prog->Loaded.Exec)
    return failWith(EINVAL, "packet memory: no program, or one opened and not loaded");
  if (!addr || !size)
    return failWith(EINVAL, "packet memory: no range (a null address or 0 bytes)");
  if (prog->Loaded.Kind != exec::Backend::Gpu) {
    LastError.clear();
    return 0;
  }
  if (prog->Request.Gpu.Path != loader::GpuDataPath::Mapped)
    return failWith(EOPNOTSUPP, "program '" + prog->Name +
                                    "' copies its bursts into GPU memory (gpu_data "
                                    "EBPF_GPU_DATA_COPY): load it with EBPF_GPU_DATA_MAPPED "
                                    "to run packets in place");
  if (MaybeError E = prog->Loaded.Exec->usePacketMemory(addr, size))
    return failWith(EIO, "program '" + prog->Name + "': packet memory: " + E->message());
  prog->PacketMemory = true;
  LastError.clear();
  return 0;
}

void ebpf_gpu_prog__forget_packet_memory(struct ebpf_gpu_prog *prog) {
  if (!prog || !prog->Loaded.Exec || !prog->PacketMemory)
    return;
  prog->Loaded.Exec->forgetPacketMemory();
  prog->PacketMemory = false;
}

uint64_t ebpf_gpu_prog__packets_in_place(const struct ebpf_gpu_prog *prog) {
  if (!prog)
    return 0;
  return prog->HostInPlace + (prog->Loaded.Exec ? prog->Loaded.Exec->packetsRunInPlace() : 0);
}

int ebpf_gpu_lane__run_burst(struct ebpf_gpu_lane *lane, struct ebpf_gpu_packet *pkts,
                             uint32_t count, const struct ebpf_gpu_run_opts *opts) {
  if (!lane)
    return failWith(EINVAL, "no lane (NULL)");
  return runBurst(lane->Prog, pkts, count, opts, lane);
}

} // extern "C"
