// SPDX-License-Identifier: Apache-2.0
//
// One program over several GPUs (Exec/MultiGpu.h): the GPU list, the rule
// per map, and the executor that spreads workers over the GPUs' back ends
// while the host sees one program. Nothing here calls CUDA: the members
// are back ends like any other, loaded by Load.cpp.

#include "ebpf-gpu/Exec/MultiGpu.h"

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Platform/MapAbi.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace ebpfgpu::exec {

using runtime::BatchExecutor;
using runtime::BatchLane;
using runtime::PacketBatch;

Expected<std::vector<int>> parseGpuList(const std::string &Text) {
  auto Number = [](const std::string &W, int &Out) {
    if (W.empty() || W.size() > 4 || W.find_first_not_of("0123456789") != std::string::npos)
      return false;
    Out = std::stoi(W);
    return true;
  };
  if (Text.empty())
    return Error("the GPU list is empty (N for GPUs 0 to N-1, or ordinals: 0,1)");
  std::vector<int> Gpus;
  if (Text.find(',') == std::string::npos) {
    int Count = 0;
    if (!Number(Text, Count) || Count == 0)
      return Error("'" + Text + "' is not a GPU list (N for GPUs 0 to N-1, N from 1; or " +
                   "ordinals separated by commas: 0,1 or 0,0)");
    for (int I = 0; I < Count; ++I)
      Gpus.push_back(I);
    return Gpus;
  }
  size_t Start = 0;
  for (;;) {
    size_t Comma = Text.find(',', Start);
    std::string W = Text.substr(Start, Comma == std::string::npos ? Comma : Comma - Start);
    int Ordinal = 0;
    if (!Number(W, Ordinal))
      return Error("'" + Text + "' is not a GPU list: '" + W + "' is not a device ordinal");
    Gpus.push_back(Ordinal);
    if (Comma == std::string::npos)
      return Gpus;
    Start = Comma + 1;
  }
}

std::string gpuListText(const std::vector<int> &Gpus) {
  std::string Out;
  for (int G : Gpus)
    Out += (Out.empty() ? "" : ",") + std::to_string(G);
  return Out;
}

MapPlacementRule placeMapOnGpus(const platform::MapSpec &M, bool SystemAtomics) {
  const bool Changed = M.ProgramChangesKeys || M.ProgramWritesValues;
  if (!Changed)
    return {MapPlacement::Replicated, ""};
  const std::string What =
      M.ProgramChangesKeys && M.ProgramWritesValues ? "changes its keys and writes its values"
      : M.ProgramChangesKeys                        ? "changes its keys or contents"
                                                    : "writes its values";
  const bool Data = M.Origin == platform::MapOrigin::GlobalData;
  const std::string Name = "map '" + M.Name + "' (" +
                           (Data ? std::string("global data") : platform::mapTypeName(M.Type)) +
                           ")";
  if (M.Type == EBPFGPU_MAP_PERCPU_ARRAY && !Data)
    return {MapPlacement::PerGpuSlices, ""};
  if (ebpfgpu_map_is_percpu(M.Type)) {
    if (!M.ProgramChangesKeys)
      return {MapPlacement::PerGpuSlices, ""};
    return {MapPlacement::Refused,
            Name + ": the program adds or deletes its keys, which every CPU shares: a copy per "
                   "GPU would let the GPUs' key sets differ"};
  }
  if (ebpfgpu_map_is_event(M.Type))
    return {MapPlacement::Refused,
            Name + ": the program writes records into it, and one stream of records from "
                   "several GPUs is not built yet"};
  const std::string Shares =
      Name + ": the program " + What + ", and every CPU shares it: copies per GPU would differ";
  if (Data)
    return {MapPlacement::Refused,
            Shares + ", and global data is a variable of each GPU's module, which no other "
                     "GPU's module reaches"};
  if (ebpfgpu_map_is_hashed(M.Type))
    return {MapPlacement::Refused,
            Shares + ", and one copy reached from every GPU is built for arrays and bloom "
                     "filters only: a deleted or replaced element is reclaimed after the "
                     "batches of one GPU, while another GPU's may still read it"};
  if (M.Type != EBPFGPU_MAP_ARRAY && M.Type != EBPFGPU_MAP_BLOOM_FILTER)
    return {MapPlacement::Refused,
            Shares + ", and one copy reached from every GPU is built for arrays and bloom "
                     "filters only"};
  if (!SystemAtomics)
    return {MapPlacement::Refused,
            Shares + ", and one copy reached from every GPU needs the program's atomics at "
                     "system scope: compile it with ebpf-gpu-cc --system-atomics"};
  return {MapPlacement::SharedOnFirstGpu, ""};
}

bool needsSystemAtomics(const std::vector<platform::MapSpec> &Maps) {
  return std::any_of(Maps.begin(), Maps.end(), [](const platform::MapSpec &M) {
    return placeMapOnGpus(M, false).Placement == MapPlacement::Refused &&
           placeMapOnGpus(M, true).Placement == MapPlacement::SharedOnFirstGpu;
  });
}

std::vector<std::string> sharedMapNames(const std::vector<platform::MapSpec> &Maps,
                                        bool SystemAtomics) {
  std::vector<std::string> Out;
  for (const platform::MapSpec &M : Maps)
    if (placeMapOnGpus(M, SystemAtomics).Placement == MapPlacement::SharedOnFirstGpu)
      Out.push_back(M.Name);
  return Out;
}

MaybeError checkMapsForGpus(const std::vector<platform::MapSpec> &Maps,
                            const std::vector<int> &Gpus, bool SystemAtomics) {
  if (Gpus.size() < 2)
    return std::nullopt;
  const std::string Head = "cannot run on GPUs " + gpuListText(Gpus) + " (" +
                           std::to_string(Gpus.size()) + " contexts): ";
  for (const platform::MapSpec &M : Maps) {
    MapPlacementRule R = placeMapOnGpus(M, SystemAtomics);
    if (R.Placement == MapPlacement::Refused)
      return Error(Head + R.Why);
  }
  std::vector<std::string> Shared = sharedMapNames(Maps, SystemAtomics);
  std::set<int> Seen;
  for (int G : Gpus)
    if (!Seen.insert(G).second && !Shared.empty())
      return Error(Head + "map '" + Shared[0] + "' lives once, in GPU " +
                   std::to_string(Gpus[0]) + "'s memory, for every GPU of the list, and GPU " +
                   std::to_string(G) +
                   " is in it twice: two contexts of one device do not reach each other's "
                   "memory (peer access is between devices)");
  return std::nullopt;
}

namespace {

/// A map operation's host view as bytes: a key and the slices of its value.
struct SliceEntry {
  std::vector<uint8_t> Key;
  std::vector<uint8_t> Slices; ///< nslices * value_stride bytes
};

/// Every key of per-CPU map `H` with its value's slices (arrays: every
/// index; hashes: the linked elements).
std::vector<SliceEntry> sliceEntries(ebpfgpu_map &H) {
  std::vector<std::vector<uint8_t>> Keys;
  abi::forEachMapEntry(H, [&](const uint8_t *K, const uint8_t *) {
    Keys.emplace_back(K, K + H.key_size);
  });
  std::vector<SliceEntry> Out;
  const size_t Bytes = size_t(H.nslices) * H.value_stride;
  for (std::vector<uint8_t> &K : Keys)
    if (const uint8_t *V = abi::hostMapLookup(H, K.data())) // slice 0, the others after it
      Out.push_back({std::move(K), std::vector<uint8_t>(V, V + Bytes)});
  return Out;
}

/// A worker's lane on one entry, which, before it goes, ends every
/// entry's loops on the device (BatchExecutor::stopDeviceLoops): freeing
/// its pinned memory waits for every kernel of the process's contexts, and
/// the other entries' kernels would run on (measured on two H200s).
class GroupLane final : public BatchLane {
public:
  GroupLane(std::vector<BatchExecutor *> Group, std::unique_ptr<BatchLane> Lane)
      : Group(std::move(Group)), Lane(std::move(Lane)) {}
  ~GroupLane() override {
    for (BatchExecutor *E : Group)
      E->stopDeviceLoops();
  }
  unsigned depth() const override { return Lane->depth(); }
  MaybeError submit(unsigned Slot, PacketBatch &Batch) override { return Lane->submit(Slot, Batch); }
  Expected<bool> poll(unsigned Slot, bool Wait) override { return Lane->poll(Slot, Wait); }
  ebpfgpu_packet_desc *stage(unsigned Slot, uint32_t Capacity) override {
    return Lane->stage(Slot, Capacity);
  }
  MaybeError submitStaged(unsigned Slot, uint32_t Count) override {
    return Lane->submitStaged(Slot, Count);
  }
  const ebpfgpu_verdict *verdicts(unsigned Slot) const override { return Lane->verdicts(Slot); }
  bool readsPacketBytes() const override { return Lane->readsPacketBytes(); }
  void finish(unsigned Slot) override { Lane->finish(Slot); }

private:
  std::vector<BatchExecutor *> Group;
  std::unique_ptr<BatchLane> Lane;
};

class MultiGpuExecutor final : public BatchExecutor {
public:
  MultiGpuExecutor(std::vector<std::unique_ptr<BatchExecutor>> Members, std::vector<int> Gpus,
                   const std::vector<platform::MapSpec> &Maps, bool SystemAtomics)
      : Members(std::move(Members)), Gpus(std::move(Gpus)) {
    for (const platform::MapSpec &M : Maps) {
      MapPlacement P = placeMapOnGpus(M, SystemAtomics).Placement;
      if (P == MapPlacement::PerGpuSlices)
        PerCpu.insert(M.Name);
      else if (P == MapPlacement::SharedOnFirstGpu)
        Shared.insert(M.Name);
    }
  }
  // The first entry's maps shared by the others go with it: it goes last.
  // Every entry's kernels end before any entry frees its memory.
  ~MultiGpuExecutor() override {
    stopDeviceLoops();
    while (!Members.empty())
      Members.pop_back();
  }

  std::vector<BatchExecutor *> members() const {
    std::vector<BatchExecutor *> Out;
    for (const auto &M : Members)
      Out.push_back(M.get());
    return Out;
  }

  // The first entry runs one-shot batches: its CPUs are the map view's
  // first ones, as run() is CPU 0 on every back end.
  MaybeError run(PacketBatch &Batch) override { return Members[0]->run(Batch); }

  Expected<std::unique_ptr<BatchLane>> openLane(unsigned Depth, unsigned Worker) override {
    unsigned Entry = gpuEntryOfWorker(Members.size(), Worker);
    auto Lane = Members[Entry]->openLane(Depth, workerOnGpuEntry(Members.size(), Worker));
    if (!Lane)
      return Lane.takeError().withContext("GPU " + std::to_string(Gpus[Entry]) + " (entry " +
                                          std::to_string(Entry) + " of " + gpuListText(Gpus) +
                                          ")");
    return std::unique_ptr<BatchLane>(new GroupLane(members(), std::move(*Lane)));
  }
  void stopDeviceLoops() override {
    for (auto &M : Members)
      M->stopDeviceLoops();
  }

  Expected<std::string> dumpMaps() override {
    auto First = Members[0]->dumpMaps();
    if (!First)
      return First.takeError();
    // The first entry's text, map by map (each line starts with its map's
    // name and one of [ { < :), the per-CPU maps' parts made again from
    // every entry's slices; in name order, as every back end prints them.
    std::map<std::string, std::string> Parts;
    std::vector<std::string> Names;
    for (const runtime::MapInfo &I : Members[0]->maps()) {
      Parts[I.Name];
      Names.push_back(I.Name);
    }
    std::string *Last = nullptr;
    for (size_t At = 0; At < First->size();) {
      size_t End = First->find('\n', At);
      End = End == std::string::npos ? First->size() : End + 1;
      std::string Line = First->substr(At, End - At);
      At = End;
      const std::string *Owner = nullptr;
      for (const std::string &N : Names)
        if (Line.size() > N.size() && Line.compare(0, N.size(), N) == 0 &&
            std::strchr("[{<:", Line[N.size()]) && (!Owner || N.size() > Owner->size()))
          Owner = &N;
      if (Owner)
        Last = &Parts[*Owner];
      if (!Last)
        return Error("internal error: a map dump line of no map: " + Line);
      *Last += Line;
    }
    for (const std::string &N : PerCpu) {
      std::unique_ptr<abi::HostMap> View;
      std::vector<uint32_t> Slices;
      if (MaybeError E = combined(N, View, Slices))
        return std::move(*E);
      Parts[N] = View->format();
    }
    std::string Out;
    for (auto &[Name, Text] : Parts)
      Out += Text;
    return Out;
  }

  MaybeError updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                       const std::vector<uint8_t> &Value) override {
    if (PerCpu.count(Map))
      return accessMap(Map, [&](ebpfgpu_map &H, bool &Changed) -> MaybeError {
        Changed = true;
        return abi::setMapEntry(Map, H, Key, Value);
      });
    if (Shared.count(Map)) // one copy: the first entry's
      return Members[0]->updateMap(Map, Key, Value);
    return forEach([&](BatchExecutor &E) { return E.updateMap(Map, Key, Value); });
  }
  MaybeError setFib(const std::vector<uint8_t> &Block) override {
    return forEach([&](BatchExecutor &E) { return E.setFib(Block); });
  }
  MaybeError setInnerMap(const std::string &Outer, const std::vector<uint8_t> &Key,
                         const std::string &Inner) override {
    return forEach([&](BatchExecutor &E) { return E.setInnerMap(Outer, Key, Inner); });
  }
  MaybeError checkMaps() override {
    return forEach([&](BatchExecutor &E) { return E.checkMaps(); });
  }
  Expected<std::string> takeTrace() override { return concat(&BatchExecutor::takeTrace); }
  Expected<std::string> takeEvents() override { return concat(&BatchExecutor::takeEvents); }
  Expected<std::vector<std::string>> warnings() override {
    std::vector<std::string> Out;
    for (size_t I = 0; I < Members.size(); ++I) {
      auto W = Members[I]->warnings();
      if (!W)
        return W.takeError().withContext(entryName(I));
      for (std::string &S : *W)
        Out.push_back(entryName(I) + ": " + S);
    }
    return Out;
  }
  std::vector<runtime::MapInfo> maps() const override { return Members[0]->maps(); }

  MaybeError accessMap(const std::string &Name, const runtime::MapOperation &Op) override {
    if (PerCpu.count(Name))
      return accessPerCpu(Name, Op);
    if (Shared.count(Name)) // one copy: the first entry's
      return Members[0]->accessMap(Name, Op);
    // Replicated: no program changes the map, so every copy holds what the
    // first holds. An operation that changed the first is done again on
    // each other (an update, a delete: the same on the same bytes).
    bool Wrote = false;
    if (MaybeError E = Members[0]->accessMap(Name, [&](ebpfgpu_map &H, bool &Changed) {
          MaybeError R = Op(H, Changed);
          Wrote = Changed;
          return R;
        }))
      return E;
    if (!Wrote)
      return std::nullopt;
    for (size_t I = 1; I < Members.size(); ++I)
      if (MaybeError E = Members[I]->accessMap(Name, Op))
        return std::move(*E).withContext(entryName(I) + ": copy of map '" + Name + "'");
    return std::nullopt;
  }

  // Pinning and unpinning wait for every kernel of the contexts: all end
  // first (each entry's start again at its next batch).
  MaybeError usePacketMemory(void *Addr, size_t Bytes) override {
    stopDeviceLoops();
    return forEach([&](BatchExecutor &E) { return E.usePacketMemory(Addr, Bytes); });
  }
  void forgetPacketMemory() override {
    stopDeviceLoops();
    for (auto &M : Members)
      M->forgetPacketMemory();
  }
  uint64_t packetsRunInPlace() const override {
    uint64_t N = 0;
    for (const auto &M : Members)
      N += M->packetsRunInPlace();
    return N;
  }
  std::shared_ptr<void> quiesce() override {
    stopDeviceLoops();
    auto Tokens = std::make_shared<std::vector<std::shared_ptr<void>>>();
    for (auto &M : Members)
      Tokens->push_back(M->quiesce());
    return Tokens;
  }
  bool readsOnlyPackets() const override { return Members[0]->readsOnlyPackets(); }
  bool readsRxMetadata() const override { return Members[0]->readsRxMetadata(); }
  const std::string &programName() const override { return Members[0]->programName(); }
  const char *backendName() const override { return Members[0]->backendName(); }

private:
  std::vector<std::unique_ptr<BatchExecutor>> Members;
  std::vector<int> Gpus;
  std::set<std::string> PerCpu; ///< maps placed PerGpuSlices
  std::set<std::string> Shared; ///< maps placed SharedOnFirstGpu

  std::string entryName(size_t I) const {
    return "GPU " + std::to_string(Gpus[I]) + " (entry " + std::to_string(I) + ")";
  }
  template <typename F> MaybeError forEach(F Fn) {
    for (size_t I = 0; I < Members.size(); ++I)
      if (MaybeError E = Fn(*Members[I]))
        return I ? std::move(*E).withContext(entryName(I)) : E;
    return std::nullopt;
  }
  Expected<std::string> concat(Expected<std::string> (BatchExecutor::*Take)()) {
    std::string Out;
    for (size_t I = 0; I < Members.size(); ++I) {
      auto T = ((*Members[I]).*Take)();
      if (!T)
        return T.takeError().withContext(entryName(I));
      Out += *T;
    }
    return Out;
  }

  /// Per-CPU map `Name` as one map of every entry's slices in list order
  /// (`Slices`: each entry's count): its keys those of any entry.
  MaybeError combined(const std::string &Name, std::unique_ptr<abi::HostMap> &View,
                      std::vector<uint32_t> &Slices) {
    std::vector<runtime::MapInfo> Infos = Members[0]->maps();
    auto Info = std::find_if(Infos.begin(), Infos.end(),
                             [&](const runtime::MapInfo &I) { return I.Name == Name; });
    if (Info == Infos.end())
      return Error("no map named '" + Name + "' in the program");
    std::vector<std::vector<SliceEntry>> Entries(Members.size());
    Slices.assign(Members.size(), 0);
    for (size_t I = 0; I < Members.size(); ++I)
      if (MaybeError E = Members[I]->accessMap(Name, [&](ebpfgpu_map &H, bool &) -> MaybeError {
            Slices[I] = H.nslices;
            Entries[I] = sliceEntries(H);
            return std::nullopt;
          }))
        return std::move(*E).withContext(entryName(I));
    uint32_t Total = 0;
    for (uint32_t S : Slices)
      Total += S;
    View = std::make_unique<abi::HostMap>(Name, *Info, Total);
    ebpfgpu_map &C = *View->header();
    const std::vector<uint8_t> Zero(C.value_size, 0);
    uint32_t Base = 0;
    for (size_t I = 0; I < Members.size(); ++I) {
      for (const SliceEntry &E : Entries[I]) {
        // A key new to the view comes in with zeros in every slice.
        if (!abi::hostMapLookup(C, E.Key.data()))
          if (int64_t Rc = abi::hostMapUpdate(C, E.Key.data(), Zero.data(), 0))
            return Error("map '" + Name + "': the view of every GPU's slices is full (" +
                         std::to_string(Rc) + ")");
        auto *V = const_cast<uint8_t *>(abi::hostMapLookup(C, E.Key.data()));
        std::memcpy(V + size_t(Base) * C.value_stride, E.Slices.data(), E.Slices.size());
      }
      Base += Slices[I];
    }
    return std::nullopt;
  }

  /// Runs `Op` on the view of every entry's slices; where it changed it,
  /// each entry gets its own slices back, and the view's keys (a key the
  /// host added or deleted is added, with zeros, or deleted everywhere).
  MaybeError accessPerCpu(const std::string &Name, const runtime::MapOperation &Op) {
    std::unique_ptr<abi::HostMap> View;
    std::vector<uint32_t> Slices;
    if (MaybeError E = combined(Name, View, Slices))
      return E;
    ebpfgpu_map &C = *View->header();
    bool Changed = false;
    if (MaybeError E = Op(C, Changed))
      return E;
    if (!Changed)
      return std::nullopt;
    std::vector<SliceEntry> All = sliceEntries(C);
    uint32_t Base = 0;
    for (size_t I = 0; I < Members.size(); ++I) {
      MaybeError E = Members[I]->accessMap(Name, [&](ebpfgpu_map &H, bool &Wrote) -> MaybeError {
        Wrote = true;
        if (ebpfgpu_map_is_hashed(H.type))
          for (const SliceEntry &Had : sliceEntries(H))
            if (!abi::hostMapLookup(C, Had.Key.data()))
              abi::hostMapDelete(H, Had.Key.data());
        const std::vector<uint8_t> Zero(H.value_size, 0);
        for (const SliceEntry &E : All) {
          if (!abi::hostMapLookup(H, E.Key.data()))
            if (int64_t Rc = abi::hostMapUpdate(H, E.Key.data(), Zero.data(), 0))
              return Error("map '" + Name + "': update: " + std::to_string(Rc));
          auto *V = const_cast<uint8_t *>(abi::hostMapLookup(H, E.Key.data()));
          std::memcpy(V, E.Slices.data() + size_t(Base) * C.value_stride,
                      size_t(Slices[I]) * H.value_stride);
        }
        return std::nullopt;
      });
      if (E)
        return std::move(*E).withContext(entryName(I));
      Base += Slices[I];
    }
    return std::nullopt;
  }
};

} // namespace

std::unique_ptr<BatchExecutor>
makeMultiGpuExecutor(std::vector<std::unique_ptr<BatchExecutor>> Members, std::vector<int> Gpus,
                     const std::vector<platform::MapSpec> &Maps, bool SystemAtomics) {
  return std::make_unique<MultiGpuExecutor>(std::move(Members), std::move(Gpus), Maps,
                                            SystemAtomics);
}

std::vector<BatchExecutor *> multiGpuMembers(BatchExecutor &Exec) {
  if (auto *M = dynamic_cast<MultiGpuExecutor *>(&Exec))
    return M->members();
  return {};
}

} // namespace ebpfgpu::exec
