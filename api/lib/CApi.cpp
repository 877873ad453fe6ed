// SPDX-License-Identifier: Apache-2.0
//
// libebpf-gpu's C API (include/ebpf-gpu/ebpf-gpu.h) over exec::load(), the
// one way a program comes to run (verified first), a BatchExecutor's map
// access and its batch runs. What a C caller passes is checked here, once,
// with a message; nothing throws across the C boundary.

#include "ebpf-gpu/ebpf-gpu.h"

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Exec/Executors.h"
#include "ebpf-gpu/Runtime/BatchExecutor.h"
#include "ebpf-gpu/Runtime/Packets.h"

#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ebpfgpu;

struct ebpf_gpu_map {
  ebpf_gpu_prog *Prog = nullptr;
  runtime::MapInfo Info;
  uint32_t Cpus = 1;
};

struct ebpf_gpu_prog {
  exec::LoadedProgram Loaded;
  std::string Name;
  std::vector<std::unique_ptr<ebpf_gpu_map>> Maps;
};

namespace {

thread_local std::string LastError;

/// Records `Msg` for ebpf_gpu_last_error() and returns -Errno.
int failWith(int Errno, std::string Msg) {
  LastError = std::move(Msg);
  return -Errno;
}

template <typename T> T *failNull(int Errno, std::string Msg) {
  failWith(Errno, std::move(Msg));
  errno = Errno;
  return nullptr;
}

/// Runs `Op` on the map's block in host memory (BatchExecutor::accessMap:
/// the map itself on the host, a copy of the device block written back
/// when `Op` sets Changed on the GPU); `Op` returns 0 or a negative errno.
int accessMap(const ebpf_gpu_map *M, const std::function<int(::ebpfgpu_map &, bool &)> &Op) {
  int Rc = 0;
  MaybeError E = M->Prog->Loaded.Exec->accessMap(
      M->Info.Name, [&](::ebpfgpu_map &H, bool &Changed) -> MaybeError {
        Rc = Op(H, Changed);
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
  if (!Key || KeySz != M->Info.KeySize)
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

} // namespace

extern "C" {

const char *ebpf_gpu_last_error(void) { return LastError.c_str(); }

struct ebpf_gpu_prog *ebpf_gpu_prog__load(const char *path, const struct ebpf_gpu_load_opts *opts) {
  LastError.clear();
  if (!path)
    return failNull<ebpf_gpu_prog>(EINVAL, "no path (NULL)");
  if (opts && opts->sz < sizeof(size_t))
    return failNull<ebpf_gpu_prog>(EINVAL, "ebpf_gpu_load_opts.sz is not set");
  // Fields past what the caller's struct has read as zero (libbpf's opts).
  ebpf_gpu_load_opts O{};
  if (opts)
    std::memcpy(&O, opts, std::min(opts->sz, sizeof(O)));
  if (opts && opts->sz > sizeof(O))
    for (size_t I = sizeof(O); I < opts->sz; ++I)
      if (reinterpret_cast<const uint8_t *>(opts)[I])
        return failNull<ebpf_gpu_prog>(EINVAL, "ebpf_gpu_load_opts has fields this library "
                                               "does not know set (a newer header?)");
  exec::LoadRequest R;
  R.Path = path;
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
    return failNull<ebpf_gpu_prog>(EINVAL, "unknown back end " + std::to_string(int(O.backend)));
  }
  if (access(path, R_OK) != 0)
    return failNull<ebpf_gpu_prog>(errno == ENOENT ? ENOENT : EINVAL,
                                   std::string(path) + ": " + std::strerror(errno));
  auto L = exec::load(R);
  if (!L)
    return failNull<ebpf_gpu_prog>(EINVAL, L.error().message());
  std::unique_ptr<ebpf_gpu_prog> P(new (std::nothrow) ebpf_gpu_prog);
  if (!P)
    return failNull<ebpf_gpu_prog>(ENOMEM, "out of memory");
  P->Loaded = std::move(*L);
  P->Name = P->Loaded.Exec->programName();
  for (const runtime::MapInfo &I : P->Loaded.Exec->maps()) {
    auto M = std::make_unique<ebpf_gpu_map>();
    M->Prog = P.get();
    M->Info = I;
    P->Maps.push_back(std::move(M));
  }
  // Per-CPU maps: how many CPUs their blocks hold.
  for (auto &M : P->Maps)
    if (ebpfgpu_map_is_percpu(M->Info.Type))
      accessMap(M.get(), [&](::ebpfgpu_map &H, bool &) {
        M->Cpus = H.nslices;
        return 0;
      });
  return P.release();
}

void ebpf_gpu_prog__close(struct ebpf_gpu_prog *prog) { delete prog; }

const char *ebpf_gpu_prog__name(const struct ebpf_gpu_prog *prog) {
  return prog ? prog->Name.c_str() : nullptr;
}

const char *ebpf_gpu_prog__backend(const struct ebpf_gpu_prog *prog) {
  return prog ? exec::backendName(prog->Loaded.Kind) : nullptr;
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

int ebpf_gpu_map__lookup_elem(const struct ebpf_gpu_map *map, const void *key, size_t key_sz,
                              void *value, size_t value_sz, uint64_t flags) {
  if (int E = checkSizes(map, key, key_sz, value_sz, true))
    return E;
  if (!value || flags)
    return failWith(EINVAL, "map '" + map->Info.Name + "': lookup needs a value buffer and flags 0");
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

int ebpf_gpu_map__delete_elem(struct ebpf_gpu_map *map, const void *key, size_t key_sz,
                              uint64_t flags) {
  if (int E = checkSizes(map, key, key_sz, 0, false))
    return E;
  if (flags)
    return failWith(EINVAL, "map '" + map->Info.Name + "': delete takes flags 0");
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
  if (!prog || (!pkts && count))
    return failWith(EINVAL, "no program or no packets (NULL)");
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
  for (uint32_t I = 0; I < count; ++I)
    Batch.add(pkts[I].data, pkts[I].len);
  if (MaybeError E = prog->Loaded.Exec->run(Batch))
    return failWith(EIO, "program '" + prog->Name + "': " + E->message());
  for (uint32_t I = 0; I < count; ++I)
    if (Batch.length(I) > pkts[I].cap)
      return failWith(ENOSPC, "packet " + std::to_string(I) + " grew to " +
                                  std::to_string(Batch.length(I)) + " bytes, past its cap of " +
                                  std::to_string(pkts[I].cap));
  for (uint32_t I = 0; I < count; ++I) {
    std::memmove(pkts[I].data, Batch.data(I), Batch.length(I));
    pkts[I].len = Batch.length(I);
    pkts[I].verdict = uint32_t(Batch.verdict(I));
    pkts[I].redirect = uint32_t(Batch.redirectTarget(I));
  }
  LastError.clear();
  return int(count);
}

} // extern "C"
