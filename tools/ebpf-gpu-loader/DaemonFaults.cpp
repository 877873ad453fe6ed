// SPDX-License-Identifier: Apache-2.0
//
// The guard around a daemon program's back end: counting and containing
// back-end failures, and the test-only fault injection.

#include "DaemonFaults.h"

#include <algorithm>
#include <cstdlib>

namespace ebpfgpu::tools {

Expected<FaultInjection> FaultInjection::parse(const std::string &Text) {
  FaultInjection F;
  size_t At = 0;
  while (At <= Text.size()) {
    size_t End = Text.find(',', At);
    std::string Part = Text.substr(At, End == std::string::npos ? std::string::npos : End - At);
    char *Stop = nullptr;
    unsigned long long N =
        Part.empty() || Part[0] == '-' ? 0 : std::strtoull(Part.c_str(), &Stop, 10);
    if (!N || !Stop || *Stop)
      return Error("batch numbers to fail must be whole numbers from 1, "
                   "separated by commas, not '" +
                   Text + "'");
    F.FailBatches.push_back(N);
    if (End == std::string::npos)
      break;
    At = End + 1;
  }
  std::sort(F.FailBatches.begin(), F.FailBatches.end());
  return F;
}

bool FaultInjection::fails(uint64_t Batch) const {
  return std::binary_search(FailBatches.begin(), FailBatches.end(), Batch);
}

GuardedExecutor::GuardedExecutor(std::shared_ptr<runtime::BatchExecutor> In, FaultInjection Inject,
                                 std::function<void()> OnFault)
    : Inner(std::move(In)), MapList(Inner->maps()), Name(Inner->programName()),
      Backend(Inner->backendName()), ReadOnlyPackets(Inner->readsOnlyPackets()),
      Inject(std::move(Inject)), OnFault(std::move(OnFault)) {}

MaybeError GuardedExecutor::refuse(size_t Packets) {
  FailedBatches.fetch_add(1, std::memory_order_relaxed);
  FailedPackets.fetch_add(Packets, std::memory_order_relaxed);
  return ebpfgpu::Error("the back end failed and is being re-created; batch not run");
}

MaybeError GuardedExecutor::run(runtime::PacketBatch &Batch) {
  // A failed back end is not called again: its batches fail here, and the
  // control thread's takeOut() cannot be starved by workers holding the
  // lock in turn.
  if (Faulted.load(std::memory_order_acquire))
    return refuse(Batch.size());
  std::shared_lock L(Lock, std::try_to_lock);
  if (!L.owns_lock() || !Inner)
    return refuse(Batch.size());
  uint64_t N = Batches.fetch_add(1, std::memory_order_relaxed) + 1;
  MaybeError E = !Inject.empty() && Inject.fails(N)
                     ? MaybeError(ebpfgpu::Error("injected fault at batch " + std::to_string(N) +
                                                 " (test only: EBPF_GPU_LOADER_TEST_FAIL_BATCHES)"))
                     : Inner->run(Batch);
  if (!E)
    return E;
  FailedBatches.fetch_add(1, std::memory_order_relaxed);
  FailedPackets.fetch_add(Batch.size(), std::memory_order_relaxed);
  if (!Faulted.exchange(true, std::memory_order_acq_rel)) {
    {
      std::lock_guard G(ErrorLock);
      ErrorText = E->message();
    }
    Faults.fetch_add(1, std::memory_order_relaxed);
    if (OnFault)
      OnFault();
  }
  return E;
}

std::shared_ptr<void> GuardedExecutor::quiesce() {
  std::shared_lock L(Lock);
  return Inner ? Inner->quiesce() : nullptr;
}

std::string GuardedExecutor::faultError() const {
  std::lock_guard G(ErrorLock);
  return ErrorText;
}

std::shared_ptr<runtime::BatchExecutor> GuardedExecutor::takeOut() {
  Faulted.store(true, std::memory_order_release); // new batches stay out
  std::unique_lock L(Lock);
  return std::move(Inner);
}

void GuardedExecutor::install(std::shared_ptr<runtime::BatchExecutor> In) {
  std::unique_lock L(Lock);
  Inner = std::move(In);
  Faulted.store(false, std::memory_order_release);
}

namespace {
const char *const NoBackend = "the back end failed and is being re-created";
}

#define EBPFGPU_FORWARD(CALL)                                                                      \
  std::shared_lock L(Lock);                                                                        \
  if (!Inner)                                                                                      \
    return ebpfgpu::Error(NoBackend);                                                              \
  return Inner->CALL

Expected<std::string> GuardedExecutor::dumpMaps() { EBPFGPU_FORWARD(dumpMaps()); }
MaybeError GuardedExecutor::updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                                      const std::vector<uint8_t> &Value) {
  EBPFGPU_FORWARD(updateMap(Map, Key, Value));
}
MaybeError GuardedExecutor::setFib(const std::vector<uint8_t> &Block) {
  EBPFGPU_FORWARD(setFib(Block));
}
MaybeError GuardedExecutor::setInnerMap(const std::string &Outer, const std::vector<uint8_t> &Key,
                                        const std::string &In) {
  EBPFGPU_FORWARD(setInnerMap(Outer, Key, In));
}
MaybeError GuardedExecutor::checkMaps() { EBPFGPU_FORWARD(checkMaps()); }
Expected<std::string> GuardedExecutor::takeTrace() { EBPFGPU_FORWARD(takeTrace()); }
Expected<std::string> GuardedExecutor::takeEvents() { EBPFGPU_FORWARD(takeEvents()); }
Expected<std::vector<std::string>> GuardedExecutor::warnings() { EBPFGPU_FORWARD(warnings()); }
MaybeError GuardedExecutor::accessMap(const std::string &Name, const runtime::MapOperation &Op) {
  EBPFGPU_FORWARD(accessMap(Name, Op));
}

#undef EBPFGPU_FORWARD

} // namespace ebpfgpu::tools
