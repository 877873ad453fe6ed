// SPDX-License-Identifier: Apache-2.0
//
// The kernel back end (KernelBackend.h): libbpf loads, BPF_PROG_TEST_RUN
// runs, and the maps are read back into the common text form.

#include "ebpf-gpu/Exec/KernelBackend.h"
#include "Backends.h"
#include "KernelEvents.h"

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Platform/MapAbi.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <unistd.h>

namespace ebpfgpu::exec {

using runtime::PacketBatch;

namespace {

std::string firstLine(const std::string &S) {
  std::string L = S.substr(0, S.find('\n'));
  if (L.rfind("libbpf: ", 0) == 0)
    L = L.substr(8);
  return L;
}

/// libbpf reports through a plain function: its messages of the load under
/// way collect here (the loader loads from one thread).
std::string LibbpfLog;
int collectLibbpfLog(enum libbpf_print_level Level, const char *Fmt, va_list Args) {
  if (Level == LIBBPF_DEBUG)
    return 0;
  // A verifier log comes as one message, often longer than any fixed
  // buffer: its last lines say why the program was refused.
  va_list Copy;
  va_copy(Copy, Args);
  int N = std::vsnprintf(nullptr, 0, Fmt, Copy);
  va_end(Copy);
  if (N <= 0)
    return N;
  size_t At = LibbpfLog.size();
  LibbpfLog.resize(At + size_t(N) + 1);
  std::vsnprintf(LibbpfLog.data() + At, size_t(N) + 1, Fmt, Args);
  LibbpfLog.resize(At + size_t(N));
  return N;
}

/// The kernel back end: load with libbpf, BPF_PROG_TEST_RUN per packet.
/// Kernel per-CPU values come as one copy per possible CPU, each rounded up
/// to 8 bytes; the common text form shows their sum.
bool isPercpuType(uint32_t T) {
  return T == BPF_MAP_TYPE_PERCPU_ARRAY || T == BPF_MAP_TYPE_PERCPU_HASH ||
         T == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

/// A map's value from the kernel, per-CPU copies summed (as MapMemory does).
bool kernelLookup(const KernelMap &M, const void *Key, std::vector<uint8_t> &Value) {
  uint32_t VS = M.ValueSize;
  bool PerCpu = isPercpuType(M.Type);
  uint32_t Stride = (VS + 7u) & ~7u, Cpus = PerCpu ? uint32_t(libbpf_num_possible_cpus()) : 1;
  std::vector<uint8_t> Raw(size_t(PerCpu ? Stride : VS) * Cpus);
  if (bpf_map_lookup_elem(M.Fd, Key, Raw.data()) != 0)
    return false;
  Value = PerCpu ? abi::sumPerCpuValues(Raw.data(), VS, Stride, Cpus) : Raw;
  return true;
}

/// The maps of a libbpf object, named as the other back ends name them
/// (libbpf names global data "<obj>.<section>").
std::vector<KernelMap> objectMaps(struct bpf_object *Obj) {
  std::vector<KernelMap> Out;
  struct bpf_map *M;
  bpf_object__for_each_map(M, Obj) {
    std::string Name = bpf_map__name(M);
    if (bpf_map__is_internal(M))
      Name = Name.substr(Name.find('.'));
    platform::MapShape Shape;
    Shape.Type = uint32_t(bpf_map__type(M));
    Shape.KeySize = bpf_map__key_size(M);
    Shape.ValueSize = bpf_map__value_size(M);
    Shape.MaxEntries = bpf_map__max_entries(M);
    Shape.Flags = bpf_map__map_flags(M);
    Shape.Extra = uint32_t(bpf_map__map_extra(M));
    Out.push_back({Shape, Name, bpf_map__fd(M)});
  }
  return Out;
}

/// The ids of the maps program `ProgFd` uses, with those of every program
/// it can reach through its program arrays and of the maps its maps of maps
/// hold: what the other back ends, which create only the maps a program set
/// refers to, have. libbpf creates every map of the object, global data
/// sections included, whether or not the program loaded uses them.
std::set<uint32_t> reachableMapIds(int ProgFd) {
  std::set<uint32_t> Maps, Progs;
  std::vector<int> Pending{dup(ProgFd)};
  auto Info = [](int Fd, std::vector<uint32_t> &Ids, uint32_t &Id) {
    struct bpf_prog_info PI = {};
    uint32_t Len = sizeof(PI);
    if (bpf_obj_get_info_by_fd(Fd, &PI, &Len) != 0)
      return false;
    Ids.resize(PI.nr_map_ids);
    uint32_t N = PI.nr_map_ids;
    PI = {};
    PI.nr_map_ids = N;
    PI.map_ids = reinterpret_cast<uintptr_t>(Ids.data());
    Len = sizeof(PI);
    if (bpf_obj_get_info_by_fd(Fd, &PI, &Len) != 0)
      return false;
    Id = PI.id;
    return true;
  };
  while (!Pending.empty()) {
    int Fd = Pending.back();
    Pending.pop_back();
    if (Fd < 0)
      continue;
    std::vector<uint32_t> Ids;
    uint32_t Id = 0;
    bool Ok = Info(Fd, Ids, Id);
    close(Fd);
    if (!Ok || !Progs.insert(Id).second)
      continue;
    for (uint32_t MapId : Ids) {
      if (!Maps.insert(MapId).second)
        continue;
      int MapFd = bpf_map_get_fd_by_id(MapId);
      if (MapFd < 0)
        continue;
      struct bpf_map_info MI = {};
      uint32_t Len = sizeof(MI);
      if (bpf_obj_get_info_by_fd(MapFd, &MI, &Len) == 0 && MI.key_size == 4 &&
          (MI.type == BPF_MAP_TYPE_PROG_ARRAY || MI.type == BPF_MAP_TYPE_ARRAY_OF_MAPS ||
           MI.type == BPF_MAP_TYPE_HASH_OF_MAPS)) {
        // Slots hold program ids (program arrays) or map ids (maps of maps).
        uint32_t Key = 0, Next = 0, Held = 0;
        for (void *Prev = nullptr; bpf_map_get_next_key(MapFd, Prev, &Next) == 0;
             Prev = &Key) {
          Key = Next;
          if (bpf_map_lookup_elem(MapFd, &Key, &Held) != 0)
            continue;
          if (MI.type == BPF_MAP_TYPE_PROG_ARRAY)
            Pending.push_back(bpf_prog_get_fd_by_id(Held));
          else
            Maps.insert(Held);
        }
      }
      close(MapFd);
    }
  }
  return Maps;
}

/// The maps and global data of a loaded object, in the common text form;
/// with `Only`, just the maps of those ids.
std::string dumpObjectMaps(const std::vector<KernelMap> &Maps,
                           const std::set<uint32_t> *Only = nullptr) {
  std::vector<std::pair<std::string, std::string>> Parts;
  auto IdOf = [](const KernelMap &M) -> std::optional<uint32_t> {
    struct bpf_map_info Info = {};
    uint32_t Len = sizeof(Info);
    if (M.Fd < 0 || bpf_obj_get_info_by_fd(M.Fd, &Info, &Len) != 0)
      return std::nullopt;
    return Info.id;
  };
  // Maps of maps hold kernel map ids: shown as the names of the maps.
  std::map<uint32_t, std::string> NameOfId;
  for (const KernelMap &M : Maps)
    if (auto Id = IdOf(M))
      NameOfId[*Id] = M.Name;
  for (const KernelMap &M : Maps) {
    if (Only) {
      auto Id = IdOf(M);
      if (!Id || !Only->count(*Id))
        continue;
    }
    uint32_t T = M.Type, KS = M.KeySize, VS = M.ValueSize;
    std::vector<uint8_t> Value;
    // Every key, in the kernel's order.
    auto Keys = [&](auto &&Visit) {
      std::vector<uint8_t> Key(KS), Next(KS);
      for (void *Prev = nullptr; bpf_map_get_next_key(M.Fd, Prev, Next.data()) == 0;
           Prev = Key.data()) {
        Visit(Next);
        Key = Next;
      }
    };
    if (ebpfgpu_map_is_outer(T)) {
      std::vector<std::pair<std::vector<uint8_t>, std::string>> KV;
      auto Add = [&](const std::vector<uint8_t> &Key) {
        uint32_t Id = 0;
        if (bpf_map_lookup_elem(M.Fd, Key.data(), &Id) != 0)
          return;
        auto It = NameOfId.find(Id);
        KV.push_back({Key, It == NameOfId.end() ? "(map id " + std::to_string(Id) + ")"
                                                : It->second});
      };
      if (T == BPF_MAP_TYPE_ARRAY_OF_MAPS) {
        for (uint32_t K = 0; K < M.MaxEntries; ++K)
          Add(std::vector<uint8_t>(reinterpret_cast<uint8_t *>(&K),
                                   reinterpret_cast<uint8_t *>(&K) + 4));
      } else {
        Keys(Add);
      }
      Parts.push_back({M.Name, abi::formatOuterEntries(M.Name, T == BPF_MAP_TYPE_ARRAY_OF_MAPS,
                                                       std::move(KV))});
      continue;
    }
    if (ebpfgpu_map_is_hashed(T)) {
      std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> KV;
      Keys([&](const std::vector<uint8_t> &Key) {
        if (kernelLookup(M, Key.data(), Value))
          KV.push_back({Key, Value});
      });
      Parts.push_back({M.Name, abi::formatHashEntries(M.Name, KV)});
      continue;
    }
    if (T == BPF_MAP_TYPE_QUEUE || T == BPF_MAP_TYPE_STACK) {
      // The kernel lists no values of these: pop them all (a stack's come
      // newest first), then push them back oldest first, which makes the
      // same map again.
      std::vector<std::vector<uint8_t>> Values;
      std::vector<uint8_t> V(VS);
      while (Values.size() <= M.MaxEntries &&
             bpf_map_lookup_and_delete_elem(M.Fd, nullptr, V.data()) == 0)
        Values.push_back(V);
      if (T == BPF_MAP_TYPE_STACK)
        std::reverse(Values.begin(), Values.end());
      for (const std::vector<uint8_t> &Back : Values)
        bpf_map_update_elem(M.Fd, nullptr, Back.data(), 0);
      Parts.push_back({M.Name, abi::formatQueueEntries(M.Name, Values)});
      continue;
    }
    if (T != BPF_MAP_TYPE_ARRAY && T != BPF_MAP_TYPE_PERCPU_ARRAY && T != BPF_MAP_TYPE_DEVMAP &&
        T != BPF_MAP_TYPE_CPUMAP)
      continue; // bloom filters among them: bits, no values to list
    std::vector<uint8_t> Values(size_t(VS) * M.MaxEntries, 0);
    for (uint32_t K = 0; K < M.MaxEntries; ++K)
      if (kernelLookup(M, &K, Value))
        std::memcpy(Values.data() + size_t(K) * VS, Value.data(), VS);
    Parts.push_back({M.Name, abi::formatArrayMap(M.Name, Values.data(), VS, VS, M.MaxEntries)});
  }
  std::sort(Parts.begin(), Parts.end());
  std::string Out;
  for (auto &P : Parts)
    Out += P.second;
  return Out;
}

} // namespace

namespace {

/// --map-size and --inner-map: sizes set on libbpf's maps; for
/// --inner-map, a map of the template's shape made for libbpf to create
/// the outer map with (bpf_map__set_inner_map_fd), as user space does.
/// The descriptors go to `Fds` (closed by the caller after the load).
MaybeError setMapShapes(struct bpf_object *Obj, const KernelLoadOptions &O,
                        std::vector<int> &Fds) {
  for (const auto &[Name, Entries] : O.MapSizes) {
    struct bpf_map *M = bpf_object__find_map_by_name(Obj, Name.c_str());
    if (!M)
      return Error("--map-size " + Name + "=" + std::to_string(Entries) +
                   ": the object has no map named '" + Name + "'");
    if (int Err = bpf_map__set_max_entries(M, Entries))
      return Error("--map-size " + Name + ": " + std::strerror(-Err));
  }
  for (const auto &[Sizes, Option] : {std::pair(&O.KeySizes, "--map-key-size"),
                                      std::pair(&O.ValueSizes, "--map-value-size")})
    for (const auto &[Name, Bytes] : *Sizes) {
      std::string Arg = std::string(Option) + " " + Name + "=" + std::to_string(Bytes);
      struct bpf_map *M = bpf_object__find_map_by_name(Obj, Name.c_str());
      if (!M)
        return Error(Arg + ": the object has no map named '" + Name + "'");
      // libbpf resizes a global data section's mapped bytes and BTF from
      // 1.3 on; an older one would load the kernel's map at one size and
      // keep another.
      if (bpf_map__is_internal(M) &&
          (LIBBPF_MAJOR_VERSION < 1 || (LIBBPF_MAJOR_VERSION == 1 && LIBBPF_MINOR_VERSION < 3)))
        return Error(Arg + ": the kernel back end's libbpf (" + std::to_string(LIBBPF_MAJOR_VERSION) +
                     "." + std::to_string(LIBBPF_MINOR_VERSION) +
                     ") cannot resize global data (libbpf 1.3 can)");
      int Err = Option == std::string("--map-key-size") ? bpf_map__set_key_size(M, Bytes)
                                                       : bpf_map__set_value_size(M, Bytes);
      if (Err)
        return Error(Arg + ": " + std::strerror(-Err));
    }
  for (const auto &[OuterName, TemplateName] : O.InnerMaps) {
    struct bpf_map *Outer = bpf_object__find_map_by_name(Obj, OuterName.c_str());
    struct bpf_map *T = bpf_object__find_map_by_name(Obj, TemplateName.c_str());
    if (!Outer || !T)
      return Error("--inner-map " + OuterName + "=" + TemplateName +
                   ": the object has no map named '" + (Outer ? TemplateName : OuterName) + "'");
    LIBBPF_OPTS(bpf_map_create_opts, Opts, .map_flags = bpf_map__map_flags(T));
    int Fd = bpf_map_create(bpf_map__type(T), (OuterName + "_inner").substr(0, 15).c_str(),
                            bpf_map__key_size(T), bpf_map__value_size(T),
                            bpf_map__max_entries(T), &Opts);
    if (Fd < 0)
      return Error("--inner-map " + OuterName + "=" + TemplateName +
                   ": the kernel refused a map of that shape: " + std::strerror(errno));
    Fds.push_back(Fd);
    if (int Err = bpf_map__set_inner_map_fd(Outer, Fd))
      return Error("--inner-map " + OuterName + "=" + TemplateName + ": " +
                   std::strerror(-Err));
  }
  return std::nullopt;
}

} // namespace

Expected<KernelLoad> KernelProgram::load(const std::string &Object, const std::string &Section,
                                         const KernelLoadOptions &Opts) {
  libbpf_set_print(collectLibbpfLog);
  LibbpfLog.clear();
  struct bpf_object *Obj = bpf_object__open_file(Object.c_str(), nullptr);
  if (!Obj) {
    // An object libbpf 1.x will not open (a legacy `maps` section, static
    // programs, a pinning value of its own): ebpf-gpu's own loader reads it
    // as the other back ends do (KernelOwnLoader.cpp).
    int Err = errno;
    libbpf_set_print(nullptr);
    std::string Why = std::strerror(Err) + (LibbpfLog.empty() ? "" : " (" + firstLine(LibbpfLog) + ")");
    auto Own = loadOwn(Object, Section, Opts);
    if (!Own)
      return Error(Object + ": kernel back end: libbpf cannot open it: " + Why +
                   "; nor can ebpf-gpu's own loader: " + Own.takeError().message());
    return Own;
  }
  // With program arrays, every program loads (tail calls may reach any,
  // and libbpf fills the arrays' static slots); otherwise only the chosen.
  bool TailCalls = false;
  std::string OwnMap; // a map of ebpf-gpu's own type, which no kernel has
  uint32_t OwnType = 0;
  struct bpf_map *Map;
  bpf_object__for_each_map(Map, Obj) {
    TailCalls |= bpf_map__type(Map) == BPF_MAP_TYPE_PROG_ARRAY;
    uint32_t Type = uint32_t(bpf_map__type(Map));
    if (OwnMap.empty() && (Type == EBPFGPU_MAP_PATTERNS || Type == EBPFGPU_MAP_MODEL)) {
      OwnMap = bpf_map__name(Map);
      OwnType = Type;
    }
    // A run starts from the object's own maps, as the host and GPU back
    // ends do: libbpf would otherwise pin LIBBPF_PIN_BY_NAME maps under
    // /sys/fs/bpf, leave them there, and reuse what an earlier run left.
    bpf_map__set_pin_path(Map, nullptr);
  }
  if (!OwnMap.empty()) {
    // libbpf would only say "Invalid argument" when the kernel refuses to
    // create the map: say why here.
    bpf_object__close(Obj);
    libbpf_set_print(nullptr);
    KernelLoad L;
    L.Why = "map '" + OwnMap + "' is an ebpf-gpu " +
            (OwnType == EBPFGPU_MAP_MODEL
                 ? "model map (type 0x45470002, for the kfunc ebpf_gpu_classify)"
                 : "pattern map (type 0x45470001, for the kfunc ebpf_gpu_match)") +
            ": the kernel has no such map type or kfunc";
    L.EbpfGpuOnly = true;
    return L;
  }
  struct bpf_program *Chosen = nullptr, *P;
  int Count = 0;
  bpf_object__for_each_program(P, Obj) {
    ++Count;
    bool Match = Section.empty() ? Count == 1
                                 : (Section == bpf_program__name(P) ||
                                    Section == bpf_program__section_name(P));
    // libbpf knows the type of a program in a section it recognises; one
    // of another type than XDP is not loaded as XDP (tracing programs
    // need their attach targets, and libbpf 1.1 crashes on one made XDP).
    bool OtherType = bpf_program__type(P) != BPF_PROG_TYPE_UNSPEC &&
                     bpf_program__type(P) != BPF_PROG_TYPE_XDP;
    if (Match && !Chosen)
      Chosen = P;
    else if (TailCalls && !OtherType)
      bpf_program__set_type(P, BPF_PROG_TYPE_XDP);
    else
      bpf_program__set_autoload(P, false);
  }
  if (Chosen && bpf_program__type(Chosen) != BPF_PROG_TYPE_UNSPEC &&
      bpf_program__type(Chosen) != BPF_PROG_TYPE_XDP) {
    std::string Msg = Object + ": kernel back end: program '" + bpf_program__name(Chosen) +
                      "' (section '" + bpf_program__section_name(Chosen) + "') is a " +
                      libbpf_bpf_prog_type_str(bpf_program__type(Chosen)) +
                      " program, not XDP";
    bpf_object__close(Obj);
    libbpf_set_print(nullptr);
    return Error(Msg);
  }
  if (!Chosen || (Section.empty() && Count > 1)) {
    bpf_object__close(Obj);
    libbpf_set_print(nullptr);
    return Error(Object + ": kernel back end: " +
                 (Chosen ? "several programs; choose one with --section" : "no such program"));
  }
  std::string Name = bpf_program__name(Chosen);
  bpf_program__set_type(Chosen, BPF_PROG_TYPE_XDP);
  if (Opts.PlainXdpAttach)
    bpf_program__set_expected_attach_type(Chosen, BPF_XDP);
  std::vector<int> ShapeFds;
  if (MaybeError E = setMapShapes(Obj, Opts, ShapeFds)) {
    for (int Fd : ShapeFds)
      close(Fd);
    bpf_object__close(Obj);
    libbpf_set_print(nullptr);
    return Error(Object + ": kernel back end: " + E->message());
  }
  int Err = bpf_object__load(Obj);
  for (int Fd : ShapeFds)
    close(Fd);
  libbpf_set_print(nullptr);
  KernelLoad L;
  if (Err) {
    bpf_object__close(Obj);
    L.Why = Err == -EPERM ? "permission denied (needs root or CAP_BPF)"
                          : std::string(std::strerror(-Err));
    L.Log = std::move(LibbpfLog);
    L.VerifierRefused = L.Log.find("BEGIN PROG LOAD LOG") != std::string::npos;
    LibbpfLog.clear();
    // libbpf's words for an extern the kernel's BTF lacks:
    // "extern (func ksym) 'NAME': not found in kernel or module BTFs".
    if (size_t At = L.Log.find("': not found in kernel or module BTFs"); At != std::string::npos) {
      size_t Start = L.Log.rfind('\'', At - 1);
      size_t Kind = L.Log.rfind("extern (", At);
      if (Start != std::string::npos && Kind != std::string::npos && Kind < Start) {
        bool Func = L.Log.compare(Kind, 13, "extern (func ") == 0;
        L.Missing = true;
        L.Why = std::string("the kernel has no ") + (Func ? "kfunc" : "kernel variable") + " '" +
                L.Log.substr(Start + 1, At - Start - 1) +
                "' (not in its BTF nor a loaded module's)";
      }
    }
    // The kernel's own words (check_kfunc_call) for an unbound program.
    if (L.Log.find("metadata kfuncs require device-bound program") != std::string::npos) {
      L.DeviceBound = true;
      L.Why = "it calls the XDP RX metadata kfuncs (bpf_xdp_metadata_rx_*), which the kernel "
              "offers only to a program bound to a device, and BPF_PROG_TEST_RUN runs no such "
              "program";
    }
    return L;
  }
  std::map<std::string, int> ProgramFds;
  bpf_object__for_each_program(P, Obj) {
    if (bpf_program__fd(P) >= 0)
      ProgramFds[bpf_program__name(P)] = bpf_program__fd(P);
  }
  // Slots the object names that libbpf does not fill: "tail:MAP/SLOT"
  // declaration tags (Cilium's), as the object reader gives them to the
  // other back ends (libbpf fills the static `.values` ones itself).
  if (TailCalls)
    if (auto Spec = object::readObjectFile(Object); Spec)
      for (const object::MapSpec &M : Spec->Maps) {
        struct bpf_map *Array = bpf_object__find_map_by_name(Obj, M.Name.c_str());
        if (M.Type != EBPFGPU_MAP_PROG_ARRAY || !Array)
          continue;
        for (const auto &[Slot, Prog] : M.InitialPrograms) {
          auto It = ProgramFds.find(Prog);
          int Held = 0;
          uint32_t Key = Slot;
          if (It != ProgramFds.end() &&
              bpf_map_lookup_elem(bpf_map__fd(Array), &Key, &Held) != 0 &&
              bpf_map_update_elem(bpf_map__fd(Array), &Key, &It->second, 0) != 0) {
            bpf_object__close(Obj);
            return Error(Object + ": kernel back end: program array '" + M.Name + "' slot " +
                         std::to_string(Slot) + ": the kernel refused " + Prog + ": " +
                         std::strerror(errno));
          }
        }
      }
  L.Program.reset(new KernelProgram(Obj, bpf_program__fd(Chosen), objectMaps(Obj),
                                    std::move(ProgramFds), {}, std::move(Name)));
  return L;
}

bool isDevmapOrCpumapSection(const std::string &Section) {
  for (const char *Prefix : {"xdp/devmap", "xdp.frags/devmap", "xdp/cpumap", "xdp.frags/cpumap"})
    if (Section.rfind(Prefix, 0) == 0)
      return true;
  return false;
}

KernelProgram::~KernelProgram() {
  for (int Fd : OwnFds)
    close(Fd);
  if (Obj)
    bpf_object__close(Obj);
}

MaybeError KernelProgram::setMapEntries(const std::vector<loader::MapEntry> &Entries) {
  auto Find = [&](const std::string &Name) -> const KernelMap * {
    for (const KernelMap &M : Maps)
      if (M.Name == Name)
        return &M;
    return nullptr;
  };
  for (const loader::MapEntry &E : Entries) {
    const KernelMap *M = Find(E.Map);
    if (!M)
      return Error("no map named '" + E.Map + "' in the program");
    uint32_t KS = M->KeySize, VS = M->ValueSize;
    bool Outer = ebpfgpu_map_is_outer(M->Type);
    if (M->Type == BPF_MAP_TYPE_PROG_ARRAY && !E.Inner.empty()) {
      // A program of the object, by name: the kernel takes its descriptor.
      auto It = ProgramFds.find(E.Inner);
      if (It == ProgramFds.end())
        return Error("program array '" + E.Map + "': '" + E.Inner +
                     "' is not a program of the object loaded into the kernel");
      if (E.Key.size() != KS)
        return Error("map '" + E.Map + "': takes " + std::to_string(KS) + "-byte keys");
      if (bpf_map_update_elem(M->Fd, E.Key.data(), &It->second, 0) != 0)
        return Error("map '" + E.Map + "': the kernel refused the update: " +
                     std::strerror(errno));
      continue;
    }
    if (Outer != !E.Inner.empty())
      return Error("map '" + E.Map + "'" +
                   (Outer ? " holds maps: give the inner map's name (@NAME) as the value"
                          : " does not hold maps or programs (@" + E.Inner + " given)"));
    if (Outer) {
      // The kernel takes the inner map's file descriptor.
      const KernelMap *In = Find(E.Inner);
      if (!In)
        return Error("map '" + E.Map + "': no map named '" + E.Inner +
                     "' in the program");
      int Fd = In->Fd;
      if (E.Key.size() != KS)
        return Error("map '" + E.Map + "': takes " + std::to_string(KS) +
                     "-byte keys");
      if (bpf_map_update_elem(M->Fd, E.Key.data(), &Fd, 0) != 0)
        return Error("map '" + E.Map + "': the kernel refused the update: " +
                     std::strerror(errno));
      continue;
    }
    if (E.Key.size() != KS || E.Value.size() != VS)
      return Error("map '" + E.Map + "': takes " + std::to_string(KS) +
                   "-byte keys and " + std::to_string(VS) + "-byte values");
    std::vector<uint8_t> Value = E.Value;
    if (isPercpuType(M->Type))
      Value.resize(size_t((VS + 7u) & ~7u) * libbpf_num_possible_cpus(), 0);
    if (bpf_map_update_elem(M->Fd, E.Key.data(), Value.data(), 0) != 0)
      return Error("map '" + E.Map + "': the kernel refused the update: " +
                   std::strerror(errno));
  }
  return std::nullopt;
}

MaybeError KernelProgram::run(PacketBatch &Batch, std::optional<uint32_t> Ingress,
                              size_t EventBatch, std::string &EventsText, uint64_t &LostEvents) {
  // One CPU for every test run: perf records stay in one CPU's buffer, in
  // order, and BPF_F_CURRENT_CPU names the CPU the host back end's is.
  if (auto Cpu = pinCurrentThread(); !Cpu)
    return Cpu.takeError();
  auto Events = KernelEvents::open(Maps);
  if (!Events)
    return Events.takeError();
  abi::EventLog Log;
  auto TakeEvents = [&]() -> MaybeError {
    abi::EventBatch Run;
    if (MaybeError E = (*Events)->take(Run))
      return E;
    Log.add(Run);
    return std::nullopt;
  };
  int Fd = ProgFd;
  std::vector<uint8_t> Out(Batch.maxLen() + runtime::XdpHeadroom + runtime::XdpTailroom);
  for (size_t I = 0; I < Batch.size(); ++I) {
    LIBBPF_OPTS(bpf_test_run_opts, Run, .data_in = Batch.data(I),
                .data_out = Out.data(), .data_size_in = Batch.length(I),
                .data_size_out = uint32_t(Out.size()), .repeat = 1);
    // The context names the ingress device (the kernel then takes the
    // packet as received there, in the caller's network namespace; none:
    // its loopback device, as without a context), and comes back with where
    // the packet starts: the kernel's output begins at the metadata a
    // program left (bpf_xdp_adjust_meta), which the other back ends keep
    // out of the packet.
    struct xdp_md Ctx = {}, CtxOut = {};
    Ctx.data_end = Batch.length(I);
    Ctx.ingress_ifindex = Ingress.value_or(0);
    Run.ctx_in = &Ctx;
    Run.ctx_size_in = sizeof(Ctx);
    Run.ctx_out = &CtxOut;
    Run.ctx_size_out = sizeof(CtxOut);
    if (int Err = bpf_prog_test_run_opts(Fd, &Run))
      return Error("BPF_PROG_TEST_RUN on packet " + std::to_string(I) + ": " +
                   std::strerror(-Err));
    uint32_t Meta = std::min(CtxOut.data, Run.data_size_out);
    if (!Batch.setResult(I, Out.data() + Meta, Run.data_size_out - Meta, Run.retval)) {
      Overflow = {I, Run.data_size_out};
      return Error("packet " + std::to_string(I) + " grew past its buffer (the kernel made it " +
                   std::to_string(Run.data_size_out) + " bytes long; the other back ends give " +
                   std::to_string(runtime::XdpTailroom) + " bytes of tailroom past the longest "
                   "packet)");
    }
    if (EventBatch && (I + 1) % EventBatch == 0)
      if (MaybeError E = TakeEvents())
        return E;
  }
  if (MaybeError E = TakeEvents())
    return E;
  EventsText = Log.take();
  LostEvents = (*Events)->lost();
  return std::nullopt;
}

std::string KernelProgram::dumpMaps() const {
  std::set<uint32_t> Reachable = reachableMapIds(ProgFd);
  return dumpObjectMaps(Maps, &Reachable);
}

std::string kernelRefusalReason(const std::string &Log) {
  std::vector<std::string> Lines;
  size_t Pos = 0;
  while (Pos < Log.size()) {
    size_t End = Log.find('\n', Pos);
    if (End == std::string::npos)
      End = Log.size();
    std::string L = Log.substr(Pos, End - Pos);
    if (L.find_first_not_of(" \t") != std::string::npos)
      Lines.push_back(std::move(L));
    Pos = End + 1;
  }
  for (size_t I = 0; I < Lines.size(); ++I)
    if (Lines[I].rfind("processed ", 0) == 0 ||
        Lines[I].find("END PROG LOAD LOG") != std::string::npos)
      return I ? Lines[I - 1] : "";
  return "";
}

namespace {

/// The kernel back end as the others are: runtime::BatchExecutor over one
/// loaded program. Batches run one packet after another on one CPU; event
/// records are kept until taken; the tracing and the routes are the
/// kernel's own (trace_pipe, its network namespace).
class KernelExecutor final : public runtime::BatchExecutor {
public:
  KernelExecutor(std::unique_ptr<KernelProgram> Prog, const KernelRunOptions &Opts)
      : Prog(std::move(Prog)), Opts(Opts) {}

  MaybeError run(PacketBatch &Batch) override {
    std::string Text;
    uint64_t Lost = 0;
    if (MaybeError E = Prog->run(Batch, Opts.Ingress, Opts.EventBatch, Text, Lost))
      return E;
    Events += Text;
    LostEvents += Lost;
    return std::nullopt;
  }
  Expected<std::string> dumpMaps() override { return Prog->dumpMaps(); }
  MaybeError updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                       const std::vector<uint8_t> &Value) override {
    return Prog->setMapEntries({loader::MapEntry{Map, Key, Value, "", ""}});
  }
  MaybeError setInnerMap(const std::string &Outer, const std::vector<uint8_t> &Key,
                         const std::string &Inner) override {
    return Prog->setMapEntries({loader::MapEntry{Outer, Key, {}, Inner, ""}});
  }
  MaybeError setFib(const std::vector<uint8_t> &) override {
    return Error("the kernel back end looks routes up in its own network namespace");
  }
  // The kernel keeps its maps' structure itself.
  MaybeError checkMaps() override { return std::nullopt; }
  // bpf_trace_printk writes to the kernel's trace pipe, not to us.
  Expected<std::string> takeTrace() override { return std::string(); }
  Expected<std::string> takeEvents() override { return std::exchange(Events, std::string()); }
  Expected<std::vector<std::string>> warnings() override {
    std::vector<std::string> W;
    if (LostEvents)
      W.push_back("the kernel lost " + std::to_string(LostEvents) +
                  " perf event records (its buffers were full)");
    LostEvents = 0;
    return W;
  }
  std::vector<runtime::MapInfo> maps() const override { return {}; }
  MaybeError accessMap(const std::string &Name, const runtime::MapOperation &) override {
    return Error("map " + Name + ": the kernel back end's maps are read with dumpMaps only");
  }
  const std::string &programName() const override { return Prog->name(); }
  const char *backendName() const override { return "kernel"; }

private:
  std::unique_ptr<KernelProgram> Prog;
  KernelRunOptions Opts;
  std::string Events;
  uint64_t LostEvents = 0;
};

} // namespace

Expected<std::unique_ptr<runtime::BatchExecutor>> makeKernelExecutor(const LoadRequest &R) {
  KernelLoadOptions KO;
  KO.MapSizes = R.MapSizes;
  KO.KeySizes = R.KeySizes;
  KO.ValueSizes = R.ValueSizes;
  KO.InnerMaps = R.InnerMaps;
  auto Loaded = KernelProgram::load(R.Path, R.Section, KO);
  if (!Loaded)
    return Loaded.takeError();
  if (!Loaded->Program && Loaded->DeviceBound)
    return Error(R.Path + ": kernel back end: the kernel cannot test-run it: " + Loaded->Why);
  if (!Loaded->Program)
    return Error(R.Path + ": kernel back end: the kernel refused the program: " + Loaded->Why +
                 (Loaded->Log.empty() ? "" : "\n" + Loaded->Log));
  return std::unique_ptr<runtime::BatchExecutor>(
      new KernelExecutor(std::move(Loaded->Program), R.Kernel));
}

} // namespace ebpfgpu::exec
