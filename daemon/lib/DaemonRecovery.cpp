// SPDX-License-Identifier: Apache-2.0
//
// The daemon's recovery of a program whose back end failed (DaemonFaults.h
// contains the fault; this swaps a new back end in): the fault recorded,
// the other programs' persistent kernels stopped around the teardown, the
// old back end torn down and a new one loaded with the old maps' contents,
// retried later when that fails.

#include "ebpf-gpu/Daemon/DaemonState.h"
#include "DaemonText.h"

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Loader/MapEntries.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace ebpfgpu::tools {

using json::Value;

int DaemonState::recoverFaults() {
  auto Now = std::chrono::steady_clock::now();
  int Wait = -1;
  for (auto &[Id, P] : Programs) {
    if (!P.Exec->faulted())
      continue;
    if (Now < P.RetryAt) {
      int Ms = int(std::chrono::duration_cast<std::chrono::milliseconds>(P.RetryAt - Now).count());
      Wait = Wait < 0 ? Ms + 1 : std::min(Wait, Ms + 1);
      continue;
    }
    recover(P);
    if (P.Exec->faulted())
      Wait = Wait < 0 ? 1000 : std::min(Wait, 1000);
  }
  return Wait;
}

void DaemonState::recover(Program &P) {
  using Clock = std::chrono::steady_clock;
  auto Start = Clock::now();
  // A fault that hit while an earlier recovery had no back end to put in
  // keeps its record; a new fault gets a new one.
  bool Retry = P.LastFault && !P.LastFault->Recovered;
  if (!Retry) {
    FaultRecord R;
    R.At = int64_t(std::time(nullptr));
    R.Error = P.Exec->faultError();
    P.LastFault = R;
    std::fprintf(stderr,
                 "ebpf-gpu-loader: daemon: program %u (%s): the %s back end failed: %s; its "
                 "batches count as exec_failed until it is re-created\n",
                 P.Id, P.Name.c_str(), exec::backendName(P.Backend), R.Error.c_str());
  }
  FaultRecord &R = *P.LastFault;

  // What the old back end's maps hold, as far as it still answers (a GPU
  // whose kernel hangs answers through the copy stream; one with a sticky
  // driver error does not). Event streams and .rodata are not state to
  // carry: the first is lost, the second comes with the code.
  using Entries = std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>>;
  std::vector<std::pair<runtime::MapInfo, Entries>> Saved;
  // The other programs' persistent kernels stop from before the old back
  // end's lanes close (freeing may wait for an idle device) until the new
  // one is made (so may making a context).
  std::vector<std::shared_ptr<void>> Quiet;
  bool Quieted = false;
  std::shared_ptr<runtime::BatchExecutor> Old = P.Exec->takeOut([&](runtime::BatchExecutor &Back) {
    R.MapsRestored.clear();
    R.MapsLost.clear();
    for (const runtime::MapInfo &I : P.Exec->maps()) {
      if (I.ReadOnly)
        continue;
      if (ebpfgpu_map_is_event(I.Type)) {
        R.MapsLost.push_back({I.Name, "event records not yet read are lost"});
        continue;
      }
      if (I.Type == EBPFGPU_MAP_BLOOM_FILTER) { // bits, no entries to carry
        R.MapsLost.push_back({I.Name, "a bloom filter's bits are not carried: it starts empty"});
        continue;
      }
      Entries E;
      MaybeError Err = Back.accessMap(I.Name, [&](ebpfgpu_map &H, bool &) -> MaybeError {
        abi::forEachMapEntry(H, [&](const uint8_t *K, const uint8_t *V) {
          E.push_back(
              {std::vector<uint8_t>(K, K + H.key_size), std::vector<uint8_t>(V, V + H.value_size)});
        });
        return std::nullopt;
      });
      if (Err)
        R.MapsLost.push_back({I.Name, "cannot read the failed back end: " + Err->message()});
      else
        Saved.push_back({I, std::move(E)});
    }
    Quiet = quiesceOthers(&P);
    Quieted = true;
  });
  if (!Quieted)
    Quiet = quiesceOthers(&P);
  if (Old) {
    // Nothing is inside the old back end and nothing can enter it: it can
    // go (the GPU's context with it, which stops a kernel that hangs).
    R.Teardown = P.Discard ? P.Discard(std::move(Old)) : "freed";
    Old.reset();
    std::fprintf(stderr, "ebpf-gpu-loader: daemon: program %u (%s): old %s back end: %s (%.1f ms)\n",
                 P.Id, P.Name.c_str(), exec::backendName(P.Backend), R.Teardown.c_str(),
                 std::chrono::duration<double, std::milli>(Clock::now() - Start).count());
  }

  auto New = P.Remake ? P.Remake()
                      : Expected<std::unique_ptr<runtime::BatchExecutor>>(
                            Error("this back end cannot be re-created"));
  if (!New) {
    R.RecoveryError = New.error().message();
    // Saved map contents are kept only in this attempt: a later one starts
    // from empty maps, and says so.
    for (auto &[I, E] : Saved)
      R.MapsLost.push_back({I.Name, "the back end could not be re-created at once"});
    Saved.clear();
    P.RetryAt = Clock::now() + std::chrono::seconds(1);
    std::fprintf(stderr,
                 "ebpf-gpu-loader: daemon: program %u (%s): cannot re-create the %s back end: %s; "
                 "trying again in 1 s\n",
                 P.Id, P.Name.c_str(), exec::backendName(P.Backend), R.RecoveryError.c_str());
    return;
  }
  std::shared_ptr<runtime::BatchExecutor> Fresh = std::move(*New);
  for (auto &[I, E] : Saved) {
    std::string Why;
    MaybeError Err = Fresh->accessMap(I.Name, [&](ebpfgpu_map &H, bool &Changed) -> MaybeError {
      for (const auto &[K, V] : E) {
        int64_t Rc = abi::hostMapUpdate(H, K.data(), V.data(), 0);
        if (Rc != 0)
          return Error("key " + hexList(K.data(), K.size()).write() + ": " + errnoText(Rc));
        Changed = true;
      }
      return std::nullopt;
    });
    if (Err)
      R.MapsLost.push_back({I.Name, "cannot fill the new back end's map: " + Err->message()});
    else
      R.MapsRestored.push_back(ebpfgpu_map_is_percpu(I.Type) ? I.Name + " (summed on CPU 0)"
                                                             : I.Name);
  }
  P.Exec->install(std::move(Fresh));
  ++P.Recoveries;
  R.Recovered = true;
  R.RecoveryError.clear();
  R.RecoveryMs = std::chrono::duration<double, std::milli>(Clock::now() - Start).count();
  std::string Restored, Lost;
  for (const std::string &M : R.MapsRestored)
    Restored += (Restored.empty() ? "" : ", ") + M;
  for (const auto &[M, Why] : R.MapsLost)
    Lost += (Lost.empty() ? "" : "; ") + M + " (" + Why + ")";
  std::fprintf(stderr,
               "ebpf-gpu-loader: daemon: program %u (%s): %s back end re-created in %.1f ms "
               "(%s); the old one: %s; maps restored: %s; not restored: %s\n",
               P.Id, P.Name.c_str(), exec::backendName(P.Backend), R.RecoveryMs, P.Describe.c_str(),
               R.Teardown.empty() ? "gone earlier" : R.Teardown.c_str(),
               Restored.empty() ? "none" : Restored.c_str(), Lost.empty() ? "none" : Lost.c_str());
}

// ---- stats -----------------------------------------------------------------

} // namespace ebpfgpu::tools
