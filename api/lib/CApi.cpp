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

#include "ebpf-gpu/ebpf-gpu.h"

#include "ebpf-gpu/Abi/GpuObject.h"
#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Exec/Executors.h"
#include "ebpf-gpu/Loader/MapEntries.h"
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
#include "ebpf-gpu/Object/Object.h"
#endif
#include "ebpf-gpu/Runtime/BatchExecutor.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Support/ReadFile.h"

#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace ebpfgpu;

struct ebpf_gpu_map {
  ebpf_gpu_prog *Prog = nullptr;
  runtime::MapInfo Info;
  uint32_t Cpus = 1;
  /// The map lives in the loaded program (false before load).
  bool Live = false;
  /// Global data in host memory (ebpf_gpu_map__data): `Size` bytes in
  /// whole pages of their own (so that .rodata's can be made read-only),
  /// from open or the first call to close. `Shared`: handed out, so kept
  /// in step with the live map.
  uint8_t *Data = nullptr;
  size_t Size = 0, Mapped = 0;
  bool Shared = false;
  /// A map of maps: its inner map's shape is known (the object's own
  /// definition, or a template set by ebpf_gpu_map__set_inner_map).
  bool HasInner = false;

  ~ebpf_gpu_map() {
    if (Data)
      munmap(Data, Mapped);
  }
};

struct ebpf_gpu_prog {
  exec::LoadedProgram Loaded; ///< Exec null while opened
  std::string Name;
  std::vector<std::unique_ptr<ebpf_gpu_map>> Maps;
  /// Opened: what load_opened asks exec::load() for (the object's bytes,
  /// the program, the back end); its initial values come from the maps.
  exec::LoadRequest Request;
  /// Opened from a .gpu.o: its global data is compiled into its code, so
  /// there are no bytes of it to hand out before load.
  bool GpuObject = false;
};

namespace {

thread_local std::string LastError;

/// Records `Msg` for ebpf_gpu_last_error(), sets errno (as libbpf's calls
/// do) and returns -Errno.
int failWith(int Errno, std::string Msg) {
  LastError = std::move(Msg);
  errno = Errno;
  return -Errno;
}

template <typename T> T *failNull(int Errno, std::string Msg) {
  failWith(Errno, std::move(Msg));
  errno = Errno;
  return nullptr;
}

#ifndef EBPF_GPU_LOADER_WITH_COMPILER
/// Why an eBPF object is refused by a library without the compiler.
int refuseWithoutCompiler(const std::string &Name) {
  return failWith(EOPNOTSUPP, Name + ": not a .gpu.o, and this libebpf-gpu was built without the "
                                     "compiler: compile with ebpf-gpu-cc first");
}
#endif

/// Global data's one value in the map's block `H`.
uint8_t *dataValue(::ebpfgpu_map &H) {
  const uint32_t Zero = 0;
  return const_cast<uint8_t *>(abi::hostMapLookup(H, reinterpret_cast<const uint8_t *>(&Zero)));
}

/// Runs `Op` on the map's block in host memory (BatchExecutor::accessMap:
/// the map itself on the host, a copy of the device block written back
/// when `Op` sets Changed on the GPU); `Op` returns 0 or a negative errno.
/// Global data the caller holds (Shared) is copied in first and back
/// after (unless `Mirror` is false): what the caller wrote is what `Op`
/// and the program see.
int accessMap(const ebpf_gpu_map *M, const std::function<int(::ebpfgpu_map &, bool &)> &Op,
              bool Mirror = true) {
  if (!M->Live)
    return failWith(EINVAL, "map '" + M->Info.Name + "': " +
                                (M->Prog->Loaded.Exec ? "not used by program '" + M->Prog->Name + "'"
                                                      : "the program is opened, not loaded "
                                                        "(ebpf_gpu_prog__load_opened)"));
  int Rc = 0;
  bool Sync = Mirror && M->Shared && !M->Info.ReadOnly;
  MaybeError E = M->Prog->Loaded.Exec->accessMap(
      M->Info.Name, [&](::ebpfgpu_map &H, bool &Changed) -> MaybeError {
        uint8_t *V = Sync ? dataValue(H) : nullptr;
        if (V) {
          std::memcpy(V, M->Data, M->Size);
          Changed = true;
        }
        Rc = Op(H, Changed);
        if (V)
          std::memcpy(M->Data, V, M->Size);
        return std::nullopt;
      });
  if (E)
    return failWith(EIO, "map '" + M->Info.Name + "': " + E->message());
  return Rc;
}

int checkSizes(const ebpf_gpu_map *M, const void *Key, size_t KeySz, size_t ValueSz,
               bool WithValue) {
  if (!M)
    return failWith(EINVAL, "no map (NULL)");
  if (!M->Prog->Loaded.Exec)
    return failWith(EINVAL, "map '" + M->Info.Name + "': the program is opened, not loaded "
                                                     "(ebpf_gpu_prog__load_opened)");
  // Maps without keys take none (NULL, 0), as libbpf passes them.
  if ((!Key && M->Info.KeySize) || KeySz != M->Info.KeySize)
    return failWith(EINVAL, "map '" + M->Info.Name + "': the key has " +
                                std::to_string(M->Info.KeySize) + " bytes, not " +
                                std::to_string(Key ? KeySz : 0));
  size_t Want = size_t(M->Info.ValueSize) * M->Cpus;
  if (WithValue && ValueSz != Want)
    return failWith(EINVAL, "map '" + M->Info.Name + "': a value has " + std::to_string(Want) +
                                " bytes" + (M->Cpus > 1 ? " (per-CPU: value size times CPUs)" : "") +
                                ", not " + std::to_string(ValueSz));
  return 0;
}

int errnoResult(const ebpf_gpu_map *M, const char *What, int64_t Rc) {
  if (Rc == 0)
    return 0;
  return failWith(int(-Rc), "map '" + M->Info.Name + "': " + What + ": " + std::strerror(int(-Rc)));
}

/// Host memory of its own for `M`'s global data (whole pages), `Init`
/// copied in; false when out of memory.
bool allocData(ebpf_gpu_map &M, const std::vector<uint8_t> &Init) {
  size_t Page = size_t(sysconf(_SC_PAGESIZE));
  M.Size = M.Info.ValueSize;
  M.Mapped = std::max<size_t>(Page, (M.Size + Page - 1) / Page * Page);
  void *P = mmap(nullptr, M.Mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (P == MAP_FAILED)
    return false;
  M.Data = static_cast<uint8_t *>(P);
  std::memcpy(M.Data, Init.data(), std::min(Init.size(), M.Size));
  return true;
}

/// After load: .rodata's bytes as the program has them, then read-only
/// (the kernel freezes it; a write through a skeleton faults, as libbpf's).
int freezeReadOnly(ebpf_gpu_map &M) {
  if (int E = !M.Live ? 0 : accessMap(&M, [&](::ebpfgpu_map &H, bool &) {
        std::memcpy(M.Data, dataValue(H), M.Size);
        return 0;
      }))
    return E;
  mprotect(M.Data, M.Mapped, PROT_READ);
  return 0;
}

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

/// Copies the global data the caller holds into the live maps before a
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
  return 0;
}

/// Whether `M`'s shape (or its flags, `What` "map_flags") may still be
/// set to `N` (`What`, for messages): opened, from an eBPF object, not
/// global data, N above 0. 0 or a negative errno: -EBUSY once loaded
/// (libbpf's), -EOPNOTSUPP for a .gpu.o (its code has the shapes compiled
/// in), -EINVAL otherwise.
int checkResizable(const ebpf_gpu_map *M, const char *What, uint32_t N) {
  if (!M)
    return failWith(EINVAL, "no map (NULL)");
  std::string Ctx = "map '" + M->Info.Name + "': " + What + ": ";
  if (M->Prog->Loaded.Exec)
    return failWith(EBUSY, Ctx + "the program is loaded: set it between ebpf_gpu_prog__open and "
                                 "ebpf_gpu_prog__load_opened");
  const bool Flags = std::string(What) == "map_flags";
  if (M->Prog->GpuObject)
    return failWith(EOPNOTSUPP, Ctx + (Flags ? "a .gpu.o has its maps' flags compiled into its "
                                               "code: declare them in the eBPF object"
                                             : "a .gpu.o has its maps' shapes compiled into its "
                                               "code: set it with ebpf-gpu-cc (--map-size, "
                                               "--map-key-size, --map-value-size, --inner-map)"));
  // (A global data map as the outer one of set_inner_map is refused
  // there, as no map of maps.)
  if (M->Info.GlobalData && std::string(What) != "the inner map")
    return failWith(std::string(What) == "the value size" ? EOPNOTSUPP : EINVAL,
                    Ctx + (Flags ? "global data has its section's flags"
                                 : "global data is sized by its section"));
  if (N == 0)
    return failWith(EINVAL, Ctx + "must be above 0");
  return 0;
}

/// Sets (NAME, N) in `Opts`, replacing an earlier setting of NAME.
void setOption(std::vector<std::pair<std::string, uint32_t>> &Opts, const std::string &Name,
               uint32_t N) {
  for (auto &[K, V] : Opts)
    if (K == Name) {
      V = N;
      return;
    }
  Opts.emplace_back(Name, N);
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

void ebpf_gpu_prog__close(struct ebpf_gpu_prog *prog) { delete prog; }

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

const char *ebpf_gpu_map__name(const struct ebpf_gpu_map *map) {
  return map ? map->Info.Name.c_str() : nullptr;
}
uint32_t ebpf_gpu_map__type(const struct ebpf_gpu_map *map) { return map ? map->Info.Type : 0; }
uint32_t ebpf_gpu_map__key_size(const struct ebpf_gpu_map *map) {
  return map ? map->Info.KeySize : 0;
}
uint32_t ebpf_gpu_map__value_size(const struct ebpf_gpu_map *map) {
  return map ? map->Info.ValueSize : 0;
}
uint32_t ebpf_gpu_map__max_entries(const struct ebpf_gpu_map *map) {
  return map ? map->Info.MaxEntries : 0;
}
uint32_t ebpf_gpu_map__cpus(const struct ebpf_gpu_map *map) { return map ? map->Cpus : 0; }

int ebpf_gpu_map__set_max_entries(struct ebpf_gpu_map *map, uint32_t max_entries) {
  if (int E = checkResizable(map, "max_entries", max_entries))
    return E;
  map->Info.MaxEntries = max_entries;
  setOption(map->Prog->Request.MapSizes, map->Info.Name, max_entries);
  return 0;
}

int ebpf_gpu_map__set_key_size(struct ebpf_gpu_map *map, uint32_t size) {
  if (int E = checkResizable(map, "the key size", size))
    return E;
  map->Info.KeySize = size;
  setOption(map->Prog->Request.KeySizes, map->Info.Name, size);
  return 0;
}

int ebpf_gpu_map__set_value_size(struct ebpf_gpu_map *map, uint32_t size) {
  if (int E = checkResizable(map, "the value size", size))
    return E;
  map->Info.ValueSize = size;
  setOption(map->Prog->Request.ValueSizes, map->Info.Name, size);
  return 0;
}

uint32_t ebpf_gpu_map__map_flags(const struct ebpf_gpu_map *map) { return map ? map->Info.Flags : 0; }

int ebpf_gpu_map__set_map_flags(struct ebpf_gpu_map *map, uint32_t flags) {
  // (0 is a value here: checked as a count of 1.)
  if (int E = checkResizable(map, "map_flags", 1))
    return E;
  std::string Ctx = "map '" + map->Info.Name + "': map_flags " + std::to_string(flags) + ": ";
  // The kernel's BPF_F_* map flags, up to BPF_F_NO_USER_CONV (1 << 18).
  if (flags >> 19)
    return failWith(EINVAL, Ctx + "bits no BPF_F_* map flag has");
  // What the flag asks is not done here: a map whose flags promise it
  // would behave otherwise than on the kernel.
  constexpr uint32_t Rdonly = 1u << 3, Wronly = 1u << 4, WronlyProg = 1u << 8;
  if (flags & (Rdonly | Wronly | WronlyProg))
    return failWith(EOPNOTSUPP,
                    Ctx + ((flags & WronlyProg) ? "BPF_F_WRONLY_PROG: the verifier does not refuse "
                                                  "the program's reads of such a map"
                                                : "BPF_F_RDONLY/BPF_F_WRONLY: the map calls do not "
                                                  "refuse the caller's writes or reads"));
  map->Info.Flags = flags;
  setOption(map->Prog->Request.MapFlags, map->Info.Name, flags);
  return 0;
}

int ebpf_gpu_map__set_inner_map(struct ebpf_gpu_map *map, const struct ebpf_gpu_map *inner) {
  if (int E = checkResizable(map, "the inner map", 1))
    return E;
  if (!ebpfgpu_map_is_outer(map->Info.Type))
    return failWith(EINVAL, "map '" + map->Info.Name + "' is a " +
                                platform::mapTypeName(map->Info.Type) + ", not a map of maps");
  if (!inner || inner->Prog != map->Prog)
    return failWith(EINVAL, "map '" + map->Info.Name + "': the inner map must be a map of the "
                                                       "same program");
  if (inner->Info.GlobalData || ebpfgpu_map_is_outer(inner->Info.Type) ||
      inner->Info.Type == EBPFGPU_MAP_PROG_ARRAY)
    return failWith(EINVAL, "map '" + map->Info.Name + "': " +
                                (inner->Info.GlobalData
                                     ? "global data"
                                     : "a " + platform::mapTypeName(inner->Info.Type)) +
                                " ('" + inner->Info.Name + "') cannot be an inner map");
  auto &T = map->Prog->Request.InnerMaps;
  auto It = std::find_if(T.begin(), T.end(),
                         [&](const auto &P) { return P.first == map->Info.Name; });
  if (It == T.end() && map->HasInner)
    return failWith(EINVAL, "map '" + map->Info.Name + "' has an inner map definition of its "
                                                       "own (__array(values, ...))");
  if (It != T.end())
    It->second = inner->Info.Name;
  else
    T.emplace_back(map->Info.Name, inner->Info.Name);
  map->HasInner = true;
  return 0;
}

int ebpf_gpu_map__set_initial_value(struct ebpf_gpu_map *map, const void *data, size_t size) {
  if (!map || !data)
    return failWith(EINVAL, "no map or no data (NULL)");
  std::string Ctx = "map '" + map->Info.Name + "': the initial value: ";
  if (map->Prog->Loaded.Exec)
    return failWith(EBUSY, Ctx + "the program is loaded: set it between ebpf_gpu_prog__open and "
                                 "ebpf_gpu_prog__load_opened");
  if (!map->Info.GlobalData)
    return failWith(EINVAL, Ctx + "not global data (.bss, .data, .rodata): a map's entries are "
                                  "written after load (ebpf_gpu_map__update_elem)");
  // ebpf-gpu-cc folded a .gpu.o's .rodata into its code; its other
  // sections are maps the code reads, so their bytes can still be given.
  if (map->Prog->GpuObject && map->Info.ReadOnly)
    return failWith(EOPNOTSUPP, Ctx + "a .gpu.o has its .rodata's constants compiled into its "
                                      "code: set them before ebpf-gpu-cc compiles it (from the "
                                      "eBPF object, with ebpf_gpu_prog__open)");
  if (size != map->Info.ValueSize)
    return failWith(EINVAL, Ctx + std::to_string(size) + " bytes for a section of " +
                                std::to_string(map->Info.ValueSize));
  // An eBPF object's section has its bytes from open; a .gpu.o's gets them
  // here, written into the live map by the load.
  if (!map->Data && !allocData(*map, {}))
    return failWith(ENOMEM, Ctx + "out of memory");
  std::memcpy(map->Data, data, size);
  return 0;
}

void *ebpf_gpu_map__data(struct ebpf_gpu_map *map, size_t *size) {
  if (!map || !map->Info.GlobalData)
    return failNull<void>(EINVAL, "map '" + std::string(map ? map->Info.Name : "(NULL)") +
                                      "' is not global data (.bss, .data, .rodata)");
  if (!map->Data && !map->Prog->Loaded.Exec && map->Prog->GpuObject)
    return failNull<void>(EOPNOTSUPP, "map '" + map->Info.Name +
                                          "': a .gpu.o has its global data compiled in: its bytes "
                                          "are there once loaded (ebpf_gpu_prog__load_opened)");
  if (!map->Data && !map->Live)
    return failNull<void>(EINVAL, "map '" + map->Info.Name + "': not used by program '" +
                                      map->Prog->Name + "'");
  if (!map->Data) {
    // A program loaded in one step: its section as the program has it now.
    if (!allocData(*map, {}))
      return failNull<void>(ENOMEM, "map '" + map->Info.Name + "': out of memory");
    int E = map->Info.ReadOnly ? freezeReadOnly(*map)
                               : accessMap(map, [&](::ebpfgpu_map &H, bool &) {
                                   std::memcpy(map->Data, dataValue(H), map->Size);
                                   return 0;
                                 });
    if (E) {
      munmap(map->Data, map->Mapped);
      map->Data = nullptr;
      errno = -E;
      return nullptr;
    }
  } else if (!map->Shared && map->Live && !map->Info.ReadOnly) {
    // Handed out for the first time after load: what the program has made
    // of the bytes given at open (bursts copy only memory handed out).
    if (int E = accessMap(
            map,
            [&](::ebpfgpu_map &H, bool &) {
              std::memcpy(map->Data, dataValue(H), map->Size);
              return 0;
            },
            /*Mirror=*/false)) {
      errno = -E;
      return nullptr;
    }
  }
  map->Shared = true;
  if (size)
    *size = map->Size;
  return map->Data;
}

int ebpf_gpu_map__lookup_elem(const struct ebpf_gpu_map *map, const void *key, size_t key_sz,
                              void *value, size_t value_sz, uint64_t flags) {
  if (int E = checkSizes(map, key, key_sz, value_sz, true))
    return E;
  if (!value || flags)
    return failWith(EINVAL, "map '" + map->Info.Name + "': lookup needs a value buffer and flags 0");
  if (map->Info.Type == EBPFGPU_MAP_BLOOM_FILTER)
    return failWith(EOPNOTSUPP, "map '" + map->Info.Name +
                                    "': a bloom filter holds no values to look up");
  return accessMap(map, [&](::ebpfgpu_map &H, bool &) {
    const uint8_t *V = abi::hostMapLookup(H, static_cast<const uint8_t *>(key));
    if (!V)
      return failWith(ENOENT, "map '" + map->Info.Name + "': no such key");
    for (uint32_t C = 0; C < map->Cpus; ++C)
      std::memcpy(static_cast<uint8_t *>(value) + size_t(C) * H.value_size,
                  V + size_t(C) * H.value_stride, H.value_size);
    return 0;
  });
}

int ebpf_gpu_map__update_elem(struct ebpf_gpu_map *map, const void *key, size_t key_sz,
                              const void *value, size_t value_sz, uint64_t flags) {
  if (int E = checkSizes(map, key, key_sz, value_sz, true))
    return E;
  if (!value || flags > 2)
    return failWith(EINVAL, "map '" + map->Info.Name +
                                "': update needs a value and flags BPF_ANY, BPF_NOEXIST or BPF_EXIST");
  if (map->Info.ReadOnly)
    return failWith(EPERM, "map '" + map->Info.Name +
                               "' is read-only (.rodata is folded into the compiled program)");
  return accessMap(map, [&](::ebpfgpu_map &H, bool &Changed) {
    const auto *K = static_cast<const uint8_t *>(key);
    const auto *V = static_cast<const uint8_t *>(value);
    if (int E = errnoResult(map, "update", abi::hostMapUpdate(H, K, V, flags)))
      return E;
    Changed = true;
    // Per-CPU: the other CPUs' values (hostMapUpdate wrote CPU 0's).
    if (map->Cpus > 1) {
      auto *At = const_cast<uint8_t *>(abi::hostMapLookup(H, K));
      for (uint32_t C = 1; At && C < map->Cpus; ++C)
        std::memcpy(At + size_t(C) * H.value_stride, V + size_t(C) * H.value_size, H.value_size);
    }
    return 0;
  });
}

int ebpf_gpu_map__load_contents(struct ebpf_gpu_map *map, const void *text, size_t size,
                                const char *name) {
  if (!map || (!text && size))
    return failWith(EINVAL, "load_contents needs a map and its text");
  if (!ebpfgpu_map_is_blob(map->Info.Type))
    return failWith(EINVAL, "map '" + map->Info.Name + "' (" +
                                platform::mapTypeName(map->Info.Type) +
                                ") is not a pattern or model map: its entries are set one by one");
  const std::string Name = name ? name : "text";
  auto Contents = loader::compileMapContents(
      std::string(static_cast<const char *>(text), static_cast<const char *>(text) + size), Name);
  if (!Contents)
    return failWith(EINVAL, "map '" + map->Info.Name + "': " + Contents.error().message());
  return accessMap(map, [&](::ebpfgpu_map &H, bool &Changed) {
    // setMapEntry checks kind, layout and room before writing a byte.
    if (MaybeError E = abi::setMapEntry(map->Info.Name, H, {}, *Contents))
      return failWith(Contents->size() > H.max_entries ? E2BIG : EINVAL, E->message());
    Changed = true;
    return 0;
  });
}

int ebpf_gpu_map__load_contents_file(struct ebpf_gpu_map *map, const char *path) {
  if (!map || !path)
    return failWith(EINVAL, "load_contents_file needs a map and a path");
  errno = 0;
  auto Text = readFileBytes(path);
  if (!Text) // errno: open's or read's (0 for a directory or special file)
    return failWith(errno ? errno : EINVAL, "map '" + map->Info.Name + "': " + Text.error().message());
  return ebpf_gpu_map__load_contents(map, Text->data(), Text->size(), path);
}

int ebpf_gpu_map__delete_elem(struct ebpf_gpu_map *map, const void *key, size_t key_sz,
                              uint64_t flags) {
  if (int E = checkSizes(map, key, key_sz, 0, false))
    return E;
  if (flags)
    return failWith(EINVAL, "map '" + map->Info.Name + "': delete takes flags 0");
  if (ebpfgpu_map_is_keyless(map->Info.Type)) // the kernel's answers
    return failWith(map->Info.Type == EBPFGPU_MAP_BLOOM_FILTER ? EOPNOTSUPP : EINVAL,
                    "map '" + map->Info.Name + "': no keys to delete");
  if (!ebpfgpu_map_is_hashed(map->Info.Type))
    return failWith(EINVAL, "map '" + map->Info.Name + "': arrays have no keys to delete");
  return accessMap(map, [&](::ebpfgpu_map &H, bool &Changed) {
    if (int E = errnoResult(map, "delete",
                            abi::hostMapDelete(H, static_cast<const uint8_t *>(key))))
      return E;
    Changed = true;
    return 0;
  });
}

int ebpf_gpu_map__get_next_key(const struct ebpf_gpu_map *map, const void *cur_key,
                               void *next_key, size_t key_sz) {
  if (int E = checkSizes(map, next_key, key_sz, 0, false))
    return E;
  if (ebpfgpu_map_is_keyless(map->Info.Type)) // the kernel's answers
    return failWith(map->Info.Type == EBPFGPU_MAP_BLOOM_FILTER ? EOPNOTSUPP : EINVAL,
                    "map '" + map->Info.Name + "': no keys to walk");
  const size_t N = key_sz;
  return accessMap(map, [&](::ebpfgpu_map &H, bool &) {
    // The key after cur_key in forEachMapEntry's order; the first when
    // cur_key is null or no longer there (as the kernel's hash maps).
    bool Seen = !cur_key, Found = false, CurThere = false;
    std::vector<uint8_t> First;
    abi::forEachMapEntry(H, [&](const uint8_t *K, const uint8_t *) {
      if (Found)
        return;
      if (First.empty())
        First.assign(K, K + N);
      if (Seen) {
        std::memcpy(next_key, K, N);
        Found = true;
      } else if (std::memcmp(K, cur_key, N) == 0) {
        Seen = CurThere = true;
      }
    });
    if (!Found && cur_key && !CurThere && !First.empty() && ebpfgpu_map_is_hashed(H.type)) {
      std::memcpy(next_key, First.data(), N);
      Found = true;
    }
    if (!Found)
      return failWith(ENOENT, "map '" + map->Info.Name + "': no next key");
    return 0;
  });
}

int ebpf_gpu_prog__run_burst(struct ebpf_gpu_prog *prog, struct ebpf_gpu_packet *pkts,
                             uint32_t count) {
  return ebpf_gpu_prog__run_burst_opts(prog, pkts, count, nullptr);
}

int ebpf_gpu_prog__run_burst_opts(struct ebpf_gpu_prog *prog, struct ebpf_gpu_packet *pkts,
                                  uint32_t count, const struct ebpf_gpu_run_opts *opts) {
  ebpf_gpu_run_opts O{};
  if (int E = copyOpts(opts, O, "ebpf_gpu_run_opts"))
    return E;
  if (!prog || (!pkts && count))
    return failWith(EINVAL, "no program or no packets (NULL)");
  if (!prog->Loaded.Exec)
    return failWith(EINVAL, "program '" + prog->Name + "' is opened, not loaded "
                                                       "(ebpf_gpu_prog__load_opened)");
  constexpr uint32_t MaxFrame = 9216;
  uint32_t MaxLen = 64;
  for (uint32_t I = 0; I < count; ++I) {
    if (!pkts[I].data || pkts[I].len > MaxFrame || pkts[I].len > pkts[I].cap)
      return failWith(EINVAL, "packet " + std::to_string(I) + ": no data, or longer than " +
                                  (pkts[I].len > MaxFrame ? "9216 bytes" : "its cap"));
    MaxLen = std::max(MaxLen, pkts[I].len);
  }
  runtime::PacketBatch Batch(MaxLen);
  Batch.reserve(count);
  Batch.setIngress(O.ingress_ifindex, O.rx_queue_index);
  for (uint32_t I = 0; I < count; ++I)
    Batch.add(pkts[I].data, pkts[I].len);
  if (int E = syncData(*prog, true))
    return E;
  MaybeError RunErr = prog->Loaded.Exec->run(Batch);
  // What the program wrote before it failed is the map's now too.
  if (int E = syncData(*prog, false))
    return E;
  if (RunErr)
    return failWith(EIO, "program '" + prog->Name + "': " + RunErr->message());
  // Each packet ran at XdpHeadroom in the batch's buffer: where it starts
  // now, against where it started, says how far `data` moves.
  for (uint32_t I = 0; I < count; ++I) {
    int64_t Moved = int64_t(Batch.offset(I)) - runtime::XdpHeadroom;
    if (Moved < -int64_t(pkts[I].headroom) || Moved + Batch.length(I) > pkts[I].cap)
      return failWith(ENOSPC, "packet " + std::to_string(I) + " left its room: it starts " +
                                  std::to_string(Moved) + " bytes from where it did, " +
                                  std::to_string(Batch.length(I)) + " bytes long (headroom " +
                                  std::to_string(pkts[I].headroom) + ", cap " +
                                  std::to_string(pkts[I].cap));
  }
  for (uint32_t I = 0; I < count; ++I) {
    // The headroom comes back too: adjust_meta's metadata is in it.
    uint32_t Room = std::min(pkts[I].headroom, runtime::XdpHeadroom);
    int64_t Moved = int64_t(Batch.offset(I)) - runtime::XdpHeadroom;
    std::memmove(pkts[I].data - Room, Batch.buffer(I) + runtime::XdpHeadroom - Room,
                 size_t(Room + Moved + Batch.length(I)));
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

} // extern "C"
