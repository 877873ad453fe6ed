// SPDX-License-Identifier: Apache-2.0
//
// The C API's maps (include/ebpf-gpu/ebpf-gpu.h, ebpf_gpu_map__*): their
// shapes and flags set between open and load, global data's initial value
// and its bytes in host memory, and the element calls and whole contents of
// a live map, all through the loaded BatchExecutor's accessMap. What a C
// caller passes is checked here, once, with a message.

#include "CApiInternal.h"

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Abi/Model.h"
#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Support/ReadFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace ebpfgpu;
using namespace ebpfgpu::capi;

namespace ebpfgpu::capi {

uint8_t *dataValue(::ebpfgpu_map &H) {
  const uint32_t Zero = 0;
  return const_cast<uint8_t *>(abi::hostMapLookup(H, reinterpret_cast<const uint8_t *>(&Zero)));
}

int accessMap(const ebpf_gpu_map *M, const std::function<int(::ebpfgpu_map &, bool &)> &Op,
              bool Mirror) {
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

int freezeReadOnly(ebpf_gpu_map &M) {
  if (int E = !M.Live ? 0 : accessMap(&M, [&](::ebpfgpu_map &H, bool &) {
        std::memcpy(M.Data, dataValue(H), M.Size);
        return 0;
      }))
    return E;
  mprotect(M.Data, M.Mapped, PROT_READ);
  return 0;
}

} // namespace ebpfgpu::capi

namespace {

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

/// Whether `M`'s shape (or its flags, `What` "map_flags") may still be
/// set to `N` (`What`, for messages): opened, from an eBPF object, not
/// global data (but for its value size, libbpf's resizable sections), N
/// above 0. 0 or a negative errno: -EBUSY once loaded (libbpf's),
/// -EOPNOTSUPP for a .gpu.o (its code has the shapes compiled in), -EINVAL
/// otherwise.
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
  if (M->Info.GlobalData && std::string(What) != "the inner map" &&
      std::string(What) != "the value size")
    return failWith(EINVAL, Ctx + (Flags ? "global data has its section's flags"
                                         : "global data is sized by its section"));
  if (N == 0)
    return failWith(EINVAL, Ctx + "must be above 0");
  return 0;
}

/// Gives global data `M` host memory of `Size` bytes of its own (a new
/// address, as libbpf's mmap of a resized section), its bytes kept up to
/// the smaller size, the rest zero. 0 or -ENOMEM.
int resizeData(ebpf_gpu_map &M, uint32_t Size) {
  uint8_t *Old = M.Data;
  size_t OldSize = M.Size, OldMapped = M.Mapped;
  M.Data = nullptr;
  M.Info.ValueSize = Size;
  if (!allocData(M, Old ? std::vector<uint8_t>(Old, Old + std::min<size_t>(OldSize, Size))
                        : std::vector<uint8_t>())) {
    M.Data = Old;
    M.Size = OldSize;
    M.Mapped = OldMapped;
    M.Info.ValueSize = uint32_t(OldSize);
    return failWith(ENOMEM, "map '" + M.Info.Name + "': the value size: out of memory for " +
                                std::to_string(Size) + " bytes");
  }
  if (Old)
    munmap(Old, OldMapped);
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

} // namespace

extern "C" {

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
  // Global data: the section resized (ObjectReader's resizeDataSection
  // does the rest at load: the verifier, the compiler and the BTF see it).
  if (map->Info.GlobalData && size != map->Info.ValueSize)
    if (int E = resizeData(*map, size))
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
  // (BPF_F_RDONLY_PROG and BPF_F_WRONLY_PROG are the verifier's to keep.)
  constexpr uint32_t Rdonly = 1u << 3, Wronly = 1u << 4;
  if (flags & (Rdonly | Wronly))
    return failWith(EOPNOTSUPP, Ctx + "BPF_F_RDONLY/BPF_F_WRONLY: the map calls do not refuse "
                                      "the caller's writes or reads");
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

namespace {
/// The kernel's BPF_F_LOCK: a lookup or update of a map whose values hold
/// a bpf_spin_lock, done under that lock.
constexpr uint64_t BpfFLock = 4;

/// -EINVAL where BPF_F_LOCK is asked of a map without a lock, as the kernel's.
int checkLockFlag(const ebpf_gpu_map *map, const ::ebpfgpu_map &H, uint64_t flags) {
  if ((flags & BpfFLock) && !H.spin_lock)
    return failWith(EINVAL, "map '" + map->Info.Name +
                                "': BPF_F_LOCK, but its values hold no bpf_spin_lock");
  return 0;
}
} // namespace

int ebpf_gpu_map__lookup_elem(const struct ebpf_gpu_map *map, const void *key, size_t key_sz,
                              void *value, size_t value_sz, uint64_t flags) {
  if (int E = checkSizes(map, key, key_sz, value_sz, true))
    return E;
  if (!value || (flags & ~BpfFLock))
    return failWith(EINVAL, "map '" + map->Info.Name +
                                "': lookup needs a value buffer and flags 0 or BPF_F_LOCK");
  if (map->Info.Type == EBPFGPU_MAP_BLOOM_FILTER)
    return failWith(EOPNOTSUPP, "map '" + map->Info.Name +
                                    "': a bloom filter holds no values to look up");
  return accessMap(map, [&](::ebpfgpu_map &H, bool &) {
    if (int E = checkLockFlag(map, H, flags))
      return E;
    const uint8_t *V = abi::hostMapLookup(H, static_cast<const uint8_t *>(key));
    if (!V)
      return failWith(ENOENT, "map '" + map->Info.Name + "': no such key");
    for (uint32_t C = 0; C < map->Cpus; ++C)
      std::memcpy(static_cast<uint8_t *>(value) + size_t(C) * H.value_size,
                  V + size_t(C) * H.value_stride, H.value_size);
    // The lock word reads as 0, as the kernel's copy out zeroes it (no
    // program holds a lock between bursts).
    if (H.spin_lock)
      std::memset(static_cast<uint8_t *>(value) + H.spin_lock - 1, 0, 4);
    return 0;
  });
}

int ebpf_gpu_map__update_elem(struct ebpf_gpu_map *map, const void *key, size_t key_sz,
                              const void *value, size_t value_sz, uint64_t flags) {
  if (int E = checkSizes(map, key, key_sz, value_sz, true))
    return E;
  if (!value || (flags & ~BpfFLock) > 2)
    return failWith(EINVAL, "map '" + map->Info.Name +
                                "': update needs a value and flags BPF_ANY, BPF_NOEXIST or "
                                "BPF_EXIST (with BPF_F_LOCK or not)");
  if (map->Info.ReadOnly)
    return failWith(EPERM, "map '" + map->Info.Name +
                               "' is read-only (.rodata is folded into the compiled program)");
  // A slot holds a map by the program's own numbering: set by name.
  if (ebpfgpu_map_is_outer(map->Info.Type))
    return failWith(EINVAL, "map '" + map->Info.Name +
                                "' holds maps: set a slot by its map's name (ebpf_gpu_map__set_slot)");
  return accessMap(map, [&](::ebpfgpu_map &H, bool &Changed) {
    const auto *K = static_cast<const uint8_t *>(key);
    const auto *V = static_cast<const uint8_t *>(value);
    if (int E = checkLockFlag(map, H, flags))
      return E;
    // The lock word is left as the map has it either way; with BPF_F_LOCK
    // a hash's key that is there is written in place (hostMapUpdate).
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

int ebpf_gpu_map__set_slot(struct ebpf_gpu_map *map, const void *key, size_t key_sz,
                           const char *name) {
  if (int E = checkSizes(map, key, key_sz, 0, false))
    return E;
  if (!name)
    return failWith(EINVAL, "map '" + map->Info.Name + "': set_slot needs a name (NULL)");
  if (!ebpfgpu_map_is_outer(map->Info.Type) && map->Info.Type != EBPFGPU_MAP_PROG_ARRAY)
    return failWith(EINVAL, "map '" + map->Info.Name + "' (" +
                                platform::mapTypeName(map->Info.Type) +
                                ") is not a map of maps or a program array: its slots hold values");
  const auto *K = static_cast<const uint8_t *>(key);
  if (MaybeError E = map->Prog->Loaded.Exec->setInnerMap(map->Info.Name,
                                                         std::vector<uint8_t>(K, K + key_sz), name))
    return failWith(EINVAL, E->message());
  LastError.clear();
  return 0;
}

int ebpf_gpu_map__load_contents(struct ebpf_gpu_map *map, const void *text, size_t size,
                                const char *name) {
  if (!map || (!text && size))
    return failWith(EINVAL, "load_contents needs a map and its text");
  if (!ebpfgpu_map_is_blob(map->Info.Type)) {
    // Which kind the text is, as its first line says.
    bool Model = abi::looksLikeModelText(
        std::string(static_cast<const char *>(text), static_cast<const char *>(text) + size));
    return failWith(EINVAL, "map '" + map->Info.Name + "' (" +
                                platform::mapTypeName(map->Info.Type) + ") is not a " +
                                (Model ? "model map: only a model map takes a model file"
                                       : "pattern map: only a pattern map takes a pattern file") +
                                " (its entries are set one by one)");
  }
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

} // extern "C"
