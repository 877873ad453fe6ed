// SPDX-License-Identifier: Apache-2.0
//
// One program over several GPUs (exec/MultiGpu.h) without a GPU: the GPU
// list an operator writes, which entry each worker runs on, the rule per
// map (copied, sliced per GPU, refused and why), and the executor over
// members that keep their maps on the host the way a GPU back end shows
// them: one program's dump, host updates reaching every copy, a per-CPU map
// seen as one map of every entry's slices.

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Exec/MultiGpu.h"

#include "FakeExecutor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>

using namespace ebpfgpu;
using exec::MapPlacement;

namespace {

TEST(MultiGpu, ReadsGpuLists) {
  EXPECT_EQ(*exec::parseGpuList("1"), std::vector<int>({0}));
  EXPECT_EQ(*exec::parseGpuList("2"), std::vector<int>({0, 1}));
  EXPECT_EQ(*exec::parseGpuList("0,0"), std::vector<int>({0, 0}));
  EXPECT_EQ(*exec::parseGpuList("1,0,1"), std::vector<int>({1, 0, 1}));
  EXPECT_EQ(exec::gpuListText({1, 0, 1}), "1,0,1");
  for (const char *Bad : {"", "0", "a", "0,,1", "0,", ",1", "-1", "1,x", "99999"})
    EXPECT_FALSE(exec::parseGpuList(Bad)) << "'" << Bad << "'";
  EXPECT_EQ(exec::parseGpuList("").error().message(),
            "the GPU list is empty (N for GPUs 0 to N-1, or ordinals: 0,1)");
  EXPECT_EQ(exec::parseGpuList("0,x").error().message(),
            "'0,x' is not a GPU list: 'x' is not a device ordinal");
}

TEST(MultiGpu, SpreadsWorkersOverTheList) {
  // Worker i on entry i mod N, the i-th worker of its entry as i / N.
  std::vector<unsigned> Entries, Local;
  for (unsigned W = 0; W < 5; ++W) {
    Entries.push_back(exec::gpuEntryOfWorker(2, W));
    Local.push_back(exec::workerOnGpuEntry(2, W));
  }
  EXPECT_EQ(Entries, std::vector<unsigned>({0, 1, 0, 1, 0}));
  EXPECT_EQ(Local, std::vector<unsigned>({0, 0, 1, 1, 2}));
  EXPECT_EQ(exec::gpuEntryOfWorker(3, 7), 1u);
  EXPECT_EQ(exec::gpuEntryOfWorker(1, 7), 0u);
  EXPECT_EQ(exec::workerOnGpuEntry(1, 7), 7u);
}

platform::MapSpec spec(const std::string &Name, uint32_t Type, bool Keys, bool Values,
                       platform::MapOrigin Origin = platform::MapOrigin::BtfDefined) {
  platform::MapSpec M;
  M.Name = Name;
  M.Type = Type;
  M.KeySize = 4;
  M.ValueSize = 8;
  M.MaxEntries = 4;
  M.Origin = Origin;
  M.ProgramChangesKeys = Keys;
  M.ProgramWritesValues = Values;
  return M;
}

TEST(MultiGpu, PlacesEachMapByWhatItsProgramDoes) {
  struct Case {
    platform::MapSpec M;
    MapPlacement Want;
  } Cases[] = {
      // Nothing a program changes: copied, whatever the type.
      {spec("rules", EBPFGPU_MAP_HASH, false, false), MapPlacement::Replicated},
      {spec("routes", EBPFGPU_MAP_LPM_TRIE, false, false), MapPlacement::Replicated},
      {spec("cfg", EBPFGPU_MAP_ARRAY, false, false), MapPlacement::Replicated},
      {spec("ports", EBPFGPU_MAP_DEVMAP, false, false), MapPlacement::Replicated},
      {spec(".rodata", EBPFGPU_MAP_ARRAY, false, false, platform::MapOrigin::GlobalData),
       MapPlacement::Replicated},
      {spec("seen", EBPFGPU_MAP_PERCPU_HASH, false, false), MapPlacement::Replicated},
      // Per-CPU: a GPU's slices are its own CPUs'.
      {spec("stats", EBPFGPU_MAP_PERCPU_ARRAY, false, true), MapPlacement::PerGpuSlices},
      {spec("stats", EBPFGPU_MAP_PERCPU_ARRAY, true, true), MapPlacement::PerGpuSlices},
      {spec("flows", EBPFGPU_MAP_PERCPU_HASH, false, true), MapPlacement::PerGpuSlices},
      {spec("flows", EBPFGPU_MAP_LRU_PERCPU_HASH, false, true), MapPlacement::PerGpuSlices},
      // Keys every CPU shares, or shared values, that a program changes.
      {spec("flows", EBPFGPU_MAP_PERCPU_HASH, true, true), MapPlacement::Refused},
      {spec("flows", EBPFGPU_MAP_LRU_PERCPU_HASH, true, false), MapPlacement::Refused},
      {spec("conns", EBPFGPU_MAP_HASH, true, false), MapPlacement::Refused},
      {spec("conns", EBPFGPU_MAP_LRU_HASH, false, true), MapPlacement::Refused},
      {spec("counts", EBPFGPU_MAP_ARRAY, false, true), MapPlacement::Refused},
      {spec("blocked", EBPFGPU_MAP_LPM_TRIE, true, false), MapPlacement::Refused},
      {spec("q", EBPFGPU_MAP_QUEUE, true, false), MapPlacement::Refused},
      {spec("events", EBPFGPU_MAP_RINGBUF, true, false), MapPlacement::Refused},
      {spec(".bss", EBPFGPU_MAP_ARRAY, false, true, platform::MapOrigin::GlobalData),
       MapPlacement::Refused},
  };
  for (const Case &C : Cases) {
    exec::MapPlacementRule R = exec::placeMapOnGpus(C.M);
    EXPECT_EQ(int(R.Placement), int(C.Want))
        << C.M.Name << " type " << C.M.Type << " keys " << C.M.ProgramChangesKeys << " values "
        << C.M.ProgramWritesValues;
    EXPECT_EQ(R.Why.empty(), C.Want != MapPlacement::Refused) << R.Why;
  }
  EXPECT_EQ(exec::placeMapOnGpus(spec("conns", EBPFGPU_MAP_HASH, true, true)).Why,
            "map 'conns' (hash): the program changes its keys and writes its values, and every "
            "CPU shares it: copies per GPU would differ, and one copy reached from every GPU "
            "is built for arrays and bloom filters only: a deleted or replaced element is "
            "reclaimed after the batches of one GPU, while another GPU's may still read it");
  EXPECT_EQ(exec::placeMapOnGpus(spec("counts", EBPFGPU_MAP_ARRAY, false, true)).Why,
            "map 'counts' (array): the program writes its values, and every CPU shares it: "
            "copies per GPU would differ, and one copy reached from every GPU needs the "
            "program's atomics at system scope: compile it with ebpf-gpu-cc --system-atomics");
  EXPECT_EQ(exec::placeMapOnGpus(spec(".bss", EBPFGPU_MAP_ARRAY, false, true,
                                      platform::MapOrigin::GlobalData))
                .Why.substr(0, 27),
            "map '.bss' (global data): t");
}

// Compiled with system-scope atomics (ebpf-gpu-cc --system-atomics), the
// arrays and bloom filters a program changes live once, in the first GPU's
// memory; nothing else changes place.
TEST(MultiGpu, SharesArraysAndBloomFiltersWithSystemAtomics) {
  struct Case {
    platform::MapSpec M;
    MapPlacement Want;
  };
  const Case Cases[] = {
      {spec("counts", EBPFGPU_MAP_ARRAY, false, true), MapPlacement::SharedOnFirstGpu},
      {spec("counts", EBPFGPU_MAP_ARRAY, true, true), MapPlacement::SharedOnFirstGpu},
      {spec("seen", EBPFGPU_MAP_BLOOM_FILTER, true, false), MapPlacement::SharedOnFirstGpu},
      {spec("rules", EBPFGPU_MAP_ARRAY, false, false), MapPlacement::Replicated},
      {spec("stats", EBPFGPU_MAP_PERCPU_ARRAY, false, true), MapPlacement::PerGpuSlices},
      {spec("conns", EBPFGPU_MAP_HASH, true, true), MapPlacement::Refused},
      {spec("conns", EBPFGPU_MAP_HASH, false, true), MapPlacement::Refused},
      {spec("conns", EBPFGPU_MAP_LRU_HASH, true, true), MapPlacement::Refused},
      {spec("blocked", EBPFGPU_MAP_LPM_TRIE, false, true), MapPlacement::Refused},
      {spec("q", EBPFGPU_MAP_QUEUE, true, false), MapPlacement::Refused},
      {spec("events", EBPFGPU_MAP_RINGBUF, true, false), MapPlacement::Refused},
      {spec(".bss", EBPFGPU_MAP_ARRAY, false, true, platform::MapOrigin::GlobalData),
       MapPlacement::Refused},
  };
  for (const Case &C : Cases)
    EXPECT_EQ(int(exec::placeMapOnGpus(C.M, true).Placement), int(C.Want))
        << C.M.Name << " type " << C.M.Type;
  EXPECT_NE(exec::placeMapOnGpus(spec(".bss", EBPFGPU_MAP_ARRAY, false, true,
                                      platform::MapOrigin::GlobalData),
                                 true)
                .Why.find("global data is a variable of each GPU's module"),
            std::string::npos);
  std::vector<platform::MapSpec> Maps = {spec("rules", EBPFGPU_MAP_HASH, false, false),
                                         spec("counts", EBPFGPU_MAP_ARRAY, false, true)};
  EXPECT_TRUE(exec::needsSystemAtomics(Maps));
  EXPECT_EQ(exec::sharedMapNames(Maps, true), std::vector<std::string>{"counts"});
  EXPECT_TRUE(exec::sharedMapNames(Maps, false).empty());
  EXPECT_TRUE(exec::checkMapsForGpus(Maps, {0, 1}));
  EXPECT_FALSE(exec::checkMapsForGpus(Maps, {0, 1}, true));
  EXPECT_FALSE(exec::checkMapsForGpus(Maps, {2, 0, 1}, true));
  EXPECT_FALSE(exec::checkMapsForGpus(Maps, {0}, true));
  // One device twice: its two contexts cannot share one copy.
  MaybeError E = exec::checkMapsForGpus(Maps, {0, 1, 0}, true);
  ASSERT_TRUE(E);
  EXPECT_EQ(E->message(), "cannot run on GPUs 0,1,0 (3 contexts): map 'counts' lives once, in "
                          "GPU 0's memory, for every GPU of the list, and GPU 0 is in it twice: "
                          "two contexts of one device do not reach each other's memory (peer "
                          "access is between devices)");
  // A program whose only changed maps are sliced or refused needs nothing.
  EXPECT_FALSE(exec::needsSystemAtomics({spec("stats", EBPFGPU_MAP_PERCPU_ARRAY, false, true),
                                         spec("conns", EBPFGPU_MAP_HASH, true, true)}));
}

TEST(MultiGpu, RefusesAProgramOnlyWhereThereAreSeveralContexts) {
  std::vector<platform::MapSpec> Maps = {spec("rules", EBPFGPU_MAP_HASH, false, false),
                                         spec("conns", EBPFGPU_MAP_LRU_HASH, true, true)};
  EXPECT_FALSE(exec::checkMapsForGpus(Maps, {}));
  EXPECT_FALSE(exec::checkMapsForGpus(Maps, {1}));
  MaybeError E = exec::checkMapsForGpus(Maps, {0, 0});
  ASSERT_TRUE(E);
  EXPECT_EQ(E->message().substr(0, 66),
            "cannot run on GPUs 0,0 (2 contexts): map 'conns' (lru_hash): the p");
  Maps.pop_back();
  EXPECT_FALSE(exec::checkMapsForGpus(Maps, {0, 1}));
}

/// A back end whose maps are host maps of `Slices` CPUs, shown as the GPU's
/// are (GpuProgram::dumpMaps: every map's text in name order).
class HostMapsExecutor : public test::FakeExecutor {
public:
  HostMapsExecutor(const std::vector<platform::MapSpec> &Specs, uint32_t Slices)
      : FakeExecutor("prog", "gpu") {
    for (const platform::MapSpec &S : Specs) {
      Infos.push_back(runtime::liveMap(S));
      Maps.emplace(S.Name, std::make_unique<ebpfgpu::abi::HostMap>(S.Name, S, Slices));
    }
  }
  ebpfgpu::abi::HostMap &map(const std::string &Name) { return *Maps.at(Name); }

  MaybeError run(runtime::PacketBatch &) override { return Error("no packets here"); }
  Expected<std::string> dumpMaps() override {
    std::string Out;
    for (auto &[Name, M] : Maps) // std::map: name order
      Out += M->format();
    return Out;
  }
  MaybeError updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                       const std::vector<uint8_t> &Value) override {
    ++Updates;
    return ebpfgpu::abi::setMapEntry(Map, *Maps.at(Map)->header(), Key, Value);
  }
  std::vector<runtime::MapInfo> maps() const override { return Infos; }
  MaybeError accessMap(const std::string &Name, const runtime::MapOperation &Op) override {
    auto It = Maps.find(Name);
    if (It == Maps.end())
      return Error("no map named '" + Name + "'");
    bool Changed = false;
    return Op(*It->second->header(), Changed);
  }

  unsigned Updates = 0;

private:
  std::vector<runtime::MapInfo> Infos;
  std::map<std::string, std::unique_ptr<ebpfgpu::abi::HostMap>> Maps;
};

std::vector<uint8_t> u32(uint32_t V) {
  std::vector<uint8_t> B(4);
  std::memcpy(B.data(), &V, 4);
  return B;
}
std::vector<uint8_t> u64(uint64_t V) {
  std::vector<uint8_t> B(8);
  std::memcpy(B.data(), &V, 8);
  return B;
}
/// Slice `Slice` of `Key`'s value in per-CPU map `M` (u64 values).
uint64_t slice(ebpfgpu::abi::HostMap &M, uint32_t Key, uint32_t Slice) {
  const uint8_t *V = ebpfgpu::abi::hostMapLookup(*M.header(), u32(Key).data());
  if (!V)
    return ~uint64_t(0);
  uint64_t X;
  std::memcpy(&X, V + size_t(Slice) * M.header()->value_stride, 8);
  return X;
}
void setSlice(ebpfgpu::abi::HostMap &M, uint32_t Key, uint32_t Slice, uint64_t X) {
  auto *V = const_cast<uint8_t *>(ebpfgpu::abi::hostMapLookup(*M.header(), u32(Key).data()));
  ASSERT_NE(V, nullptr);
  std::memcpy(V + size_t(Slice) * M.header()->value_stride, &X, 8);
}

struct TwoGpus {
  std::vector<platform::MapSpec> Specs = {
      spec("rules", EBPFGPU_MAP_HASH, false, false),
      spec("stats", EBPFGPU_MAP_PERCPU_ARRAY, false, true),
      spec("flows", EBPFGPU_MAP_PERCPU_HASH, false, true)};
  HostMapsExecutor *A, *B;
  std::unique_ptr<runtime::BatchExecutor> Multi;
  TwoGpus() {
    // Contexts of different sizes: 2 CPUs on the first, 3 on the second.
    auto First = std::make_unique<HostMapsExecutor>(Specs, 2);
    auto Second = std::make_unique<HostMapsExecutor>(Specs, 3);
    A = First.get();
    B = Second.get();
    std::vector<std::unique_ptr<runtime::BatchExecutor>> Members;
    Members.push_back(std::move(First));
    Members.push_back(std::move(Second));
    Multi = exec::makeMultiGpuExecutor(std::move(Members), {0, 0}, Specs);
  }
};

TEST(MultiGpu, MembersAreListedAndOtherExecutorsHaveNone) {
  TwoGpus G;
  EXPECT_EQ(exec::multiGpuMembers(*G.Multi),
            std::vector<runtime::BatchExecutor *>({G.A, G.B}));
  EXPECT_TRUE(exec::multiGpuMembers(*G.A).empty());
  EXPECT_EQ(G.Multi->maps().size(), 3u);
}

// Pinning, unpinning or freeing host memory mapped into every context
// waits for every kernel of the process's contexts: each entry's loops on
// the device (BatchExecutor::stopDeviceLoops) end before any entry pins,
// unpins, quiesces, frees a lane or goes.
struct LoopRecorder final : test::FakeExecutor {
  std::vector<std::string> *Log;
  std::string Name;
  LoopRecorder(std::vector<std::string> *Log, std::string Name)
      : Log(Log), Name(std::move(Name)) {}
  ~LoopRecorder() override { Log->push_back("gone " + Name); }
  void stopDeviceLoops() override { Log->push_back("stop " + Name); }
  MaybeError usePacketMemory(void *, size_t) override {
    Log->push_back("pin " + Name);
    return std::nullopt;
  }
  void forgetPacketMemory() override { Log->push_back("unpin " + Name); }
  std::shared_ptr<void> quiesce() override {
    Log->push_back("quiesce " + Name);
    return nullptr;
  }
  Expected<std::unique_ptr<runtime::BatchLane>> openLane(unsigned, unsigned Worker) override {
    struct Lane final : runtime::BatchLane {
      std::vector<std::string> *Log;
      std::string Name;
      ~Lane() override { Log->push_back("free " + Name); }
      unsigned depth() const override { return 1; }
      MaybeError submit(unsigned, runtime::PacketBatch &) override { return std::nullopt; }
      Expected<bool> poll(unsigned, bool) override { return true; }
    };
    auto L = std::make_unique<Lane>();
    L->Log = Log;
    L->Name = Name + " worker " + std::to_string(Worker);
    return std::unique_ptr<runtime::BatchLane>(std::move(L));
  }
};

TEST(MultiGpu, EveryGpusLoopsEndBeforeAnyGpuPinsOrFrees) {
  using Lines = std::vector<std::string>;
  Lines Log;
  std::vector<std::unique_ptr<runtime::BatchExecutor>> Members;
  Members.push_back(std::make_unique<LoopRecorder>(&Log, "gpu0"));
  Members.push_back(std::make_unique<LoopRecorder>(&Log, "gpu1"));
  auto Multi = exec::makeMultiGpuExecutor(std::move(Members), {0, 1}, {});
  char Pool[64];
  ASSERT_FALSE(Multi->usePacketMemory(Pool, sizeof(Pool)));
  EXPECT_EQ(Log, Lines({"stop gpu0", "stop gpu1", "pin gpu0", "pin gpu1"}));
  Log.clear();
  auto L0 = Multi->openLane(1, 0), L1 = Multi->openLane(1, 1), L2 = Multi->openLane(1, 2);
  ASSERT_TRUE(L0 && L1 && L2);
  EXPECT_EQ((*L1)->depth(), 1u);
  EXPECT_TRUE(Log.empty());
  L1->reset();
  EXPECT_EQ(Log, Lines({"stop gpu0", "stop gpu1", "free gpu1 worker 0"}));
  Log.clear();
  L2->reset();
  EXPECT_EQ(Log, Lines({"stop gpu0", "stop gpu1", "free gpu0 worker 1"}));
  Log.clear();
  L0->reset();
  Log.clear();
  (void)Multi->quiesce();
  EXPECT_EQ(Log, Lines({"stop gpu0", "stop gpu1", "quiesce gpu0", "quiesce gpu1"}));
  Log.clear();
  Multi->forgetPacketMemory();
  EXPECT_EQ(Log, Lines({"stop gpu0", "stop gpu1", "unpin gpu0", "unpin gpu1"}));
  Log.clear();
  // The first entry, whose maps the others may share, goes last.
  Multi.reset();
  EXPECT_EQ(Log, Lines({"stop gpu0", "stop gpu1", "gone gpu1", "gone gpu0"}));
}

TEST(MultiGpu, HostUpdatesReachEveryCopy) {
  TwoGpus G;
  ASSERT_FALSE(G.Multi->updateMap("rules", u32(7), u64(99)));
  EXPECT_EQ(G.A->Updates, 1u);
  EXPECT_EQ(G.B->Updates, 1u);
  // The daemon's way: an operation that changed the first copy is done on
  // the others; one that only read is done once.
  unsigned Calls = 0;
  ASSERT_FALSE(G.Multi->accessMap("rules", [&](ebpfgpu_map &H, bool &Changed) -> MaybeError {
    ++Calls;
    Changed = true;
    if (ebpfgpu::abi::hostMapDelete(H, u32(7).data()))
      return Error("delete");
    return std::nullopt;
  }));
  EXPECT_EQ(Calls, 2u);
  EXPECT_EQ(ebpfgpu::abi::hostMapLookup(*G.A->map("rules").header(), u32(7).data()), nullptr);
  EXPECT_EQ(ebpfgpu::abi::hostMapLookup(*G.B->map("rules").header(), u32(7).data()), nullptr);
  Calls = 0;
  ASSERT_FALSE(G.Multi->accessMap("rules", [&](ebpfgpu_map &, bool &) -> MaybeError {
    ++Calls;
    return std::nullopt;
  }));
  EXPECT_EQ(Calls, 1u);
  // A copied map is dumped once.
  ASSERT_FALSE(G.Multi->updateMap("rules", u32(1), u64(5)));
  auto Dump = G.Multi->dumpMaps();
  ASSERT_TRUE(Dump);
  EXPECT_EQ(*Dump, *G.A->dumpMaps());
}

// A map shared by the GPUs (one copy, the first entry's, which the others'
// modules reach): host updates, reads and operations go to the first entry
// only; a replicated map's still reach every copy.
TEST(MultiGpu, SharedMapsAreTheFirstEntrysOnly) {
  std::vector<platform::MapSpec> Specs = {spec("rules", EBPFGPU_MAP_HASH, false, false),
                                          spec("counts", EBPFGPU_MAP_ARRAY, false, true)};
  auto First = std::make_unique<HostMapsExecutor>(Specs, 2);
  auto Second = std::make_unique<HostMapsExecutor>(Specs, 2);
  HostMapsExecutor *A = First.get(), *B = Second.get();
  std::vector<std::unique_ptr<runtime::BatchExecutor>> Members;
  Members.push_back(std::move(First));
  Members.push_back(std::move(Second));
  auto Multi = exec::makeMultiGpuExecutor(std::move(Members), {0, 1}, Specs, true);
  ASSERT_FALSE(Multi->updateMap("counts", u32(0), u64(5)));
  EXPECT_EQ(A->Updates, 1u);
  EXPECT_EQ(B->Updates, 0u);
  unsigned Calls = 0;
  ASSERT_FALSE(Multi->accessMap("counts", [&](ebpfgpu_map &, bool &Changed) -> MaybeError {
    ++Calls;
    Changed = true;
    return std::nullopt;
  }));
  EXPECT_EQ(Calls, 1u);
  ASSERT_FALSE(Multi->updateMap("rules", u32(1), u64(2)));
  EXPECT_EQ(A->Updates, 2u);
  EXPECT_EQ(B->Updates, 1u);
  // Without system-scope atomics the array is no shared map: the executor
  // of a program refused before it is made has no rule for it but a copy's.
  auto C = std::make_unique<HostMapsExecutor>(Specs, 2);
  auto D = std::make_unique<HostMapsExecutor>(Specs, 2);
  HostMapsExecutor *CP = C.get(), *DP = D.get();
  std::vector<std::unique_ptr<runtime::BatchExecutor>> Plain;
  Plain.push_back(std::move(C));
  Plain.push_back(std::move(D));
  auto Copies = exec::makeMultiGpuExecutor(std::move(Plain), {0, 1}, Specs);
  ASSERT_FALSE(Copies->updateMap("counts", u32(0), u64(5)));
  EXPECT_EQ(CP->Updates, 1u);
  EXPECT_EQ(DP->Updates, 1u);
}

TEST(MultiGpu, PerCpuMapsAreOneMapOfEveryGpusSlices) {
  TwoGpus G;
  // What the programs did: CPUs 0-1 on the first GPU, 0-2 on the second.
  setSlice(G.A->map("stats"), 1, 0, 1);
  setSlice(G.A->map("stats"), 1, 1, 2);
  setSlice(G.B->map("stats"), 1, 2, 40);
  setSlice(G.B->map("stats"), 3, 0, 7);
  auto Dump = G.Multi->dumpMaps();
  ASSERT_TRUE(Dump);
  // The sums over both GPUs, in the dump's order and format.
  EXPECT_NE(Dump->find("stats[1] = "), std::string::npos) << *Dump;
  ebpfgpu::abi::HostMap Want("stats", G.Specs[1], 5);
  setSlice(Want, 1, 0, 43);
  setSlice(Want, 3, 0, 7);
  EXPECT_NE(Dump->find(Want.format()), std::string::npos) << *Dump << Want.format();
  // The view: five CPUs, the first GPU's then the second's.
  std::vector<uint64_t> Seen;
  ASSERT_FALSE(G.Multi->accessMap("stats", [&](ebpfgpu_map &H, bool &) -> MaybeError {
    EXPECT_EQ(H.nslices, 5u);
    const uint8_t *V = ebpfgpu::abi::hostMapLookup(H, u32(1).data());
    for (uint32_t S = 0; S < H.nslices; ++S) {
      uint64_t X;
      std::memcpy(&X, V + size_t(S) * H.value_stride, 8);
      Seen.push_back(X);
    }
    return std::nullopt;
  }));
  EXPECT_EQ(Seen, std::vector<uint64_t>({1, 2, 0, 0, 40}));
  // A host update sets CPU 0's copy (the first GPU's first slice), as on
  // one GPU; every other slice keeps what it had.
  ASSERT_FALSE(G.Multi->updateMap("stats", u32(1), u64(9)));
  EXPECT_EQ(slice(G.A->map("stats"), 1, 0), 9u);
  EXPECT_EQ(slice(G.A->map("stats"), 1, 1), 2u);
  EXPECT_EQ(slice(G.B->map("stats"), 1, 0), 0u);
  EXPECT_EQ(slice(G.B->map("stats"), 1, 2), 40u);
  // A view's slice written lands in its GPU's own slice.
  ASSERT_FALSE(G.Multi->accessMap("stats", [&](ebpfgpu_map &H, bool &Changed) -> MaybeError {
    auto *V = const_cast<uint8_t *>(ebpfgpu::abi::hostMapLookup(H, u32(2).data()));
    uint64_t X = 5;
    std::memcpy(V + 3 * size_t(H.value_stride), &X, 8); // CPU 3: the second GPU's CPU 1
    Changed = true;
    return std::nullopt;
  }));
  EXPECT_EQ(slice(G.B->map("stats"), 2, 1), 5u);
  EXPECT_EQ(slice(G.A->map("stats"), 2, 0), 0u);
}

TEST(MultiGpu, PerCpuHashKeysStayTheSameOnEveryGpu) {
  TwoGpus G;
  ASSERT_FALSE(G.Multi->updateMap("flows", u32(4), u64(3)));
  EXPECT_EQ(slice(G.A->map("flows"), 4, 0), 3u);
  EXPECT_EQ(slice(G.B->map("flows"), 4, 0), 0u); // there, but zeros
  setSlice(G.B->map("flows"), 4, 1, 10);
  auto Dump = G.Multi->dumpMaps();
  ASSERT_TRUE(Dump);
  EXPECT_NE(Dump->find("flows{04000000} = "), std::string::npos) << *Dump;
  ebpfgpu::abi::HostMap Want("flows", G.Specs[2], 5);
  ASSERT_EQ(ebpfgpu::abi::hostMapUpdate(*Want.header(), u32(4).data(), u64(13).data(), 0), 0);
  EXPECT_NE(Dump->find(Want.format()), std::string::npos) << *Dump << Want.format();
  // A delete from the host leaves no GPU with the key.
  ASSERT_FALSE(G.Multi->accessMap("flows", [&](ebpfgpu_map &H, bool &Changed) -> MaybeError {
    Changed = ebpfgpu::abi::hostMapDelete(H, u32(4).data()) == 0;
    return std::nullopt;
  }));
  EXPECT_EQ(slice(G.A->map("flows"), 4, 0), ~uint64_t(0));
  EXPECT_EQ(slice(G.B->map("flows"), 4, 0), ~uint64_t(0));
}

} // namespace
