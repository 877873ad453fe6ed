// SPDX-License-Identifier: Apache-2.0
//
// The common text forms of map contents: a value as the dumps print it,
// and the event records (ring buffers, perf event arrays) runs hand the
// host, kept as text lines per map until they are taken (EventLog).

#include "ebpf-gpu/Abi/MapMemory.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace ebpfgpu::abi {

void EventLog::add(EventBatch &Run) {
  char Buf[4];
  for (auto &[Name, Records] : Run.Maps) {
    std::stable_sort(Records.begin(), Records.end(),
                     [](const EventRecord &A, const EventRecord &B) { return A.Packet < B.Packet; });
    std::string &Out = Text[Name];
    for (const EventRecord &R : Records) {
      size_t Line = Name.size() + 2 + 2 * R.Bytes.size();
      if (Bytes + Line > MaxBytes) {
        ++NotKept;
        continue;
      }
      Bytes += Line;
      Out += Name + " ";
      for (uint8_t B : R.Bytes) {
        std::snprintf(Buf, sizeof(Buf), "%02x", B);
        Out += Buf;
      }
      Out += "\n";
    }
  }
  for (auto &[Name, N] : Run.Dropped)
    Dropped[Name] += N;
}

std::string EventLog::take() {
  std::string Out;
  for (auto &[Name, T] : Text)
    Out += T;
  Text.clear();
  Bytes = 0;
  return Out;
}

std::vector<std::string> EventLog::warnings() const {
  std::vector<std::string> Out;
  for (auto &[Map, N] : Dropped)
    Out.push_back("map " + Map + ": " + std::to_string(N) +
                  " event records refused: no room left in the run (a larger map or smaller "
                  "batches keep them)");
  if (NotKept)
    Out.push_back(std::to_string(NotKept) + " event records not kept: more than " +
                  std::to_string(MaxBytes >> 20) + " MiB of them waited to be taken");
  return Out;
}


std::string formatValue(const uint8_t *V, uint32_t Size) {
  char Buf[32];
  if (Size == 8) {
    uint64_t X;
    std::memcpy(&X, V, 8);
    std::snprintf(Buf, sizeof(Buf), "%llu", static_cast<unsigned long long>(X));
    return Buf;
  }
  std::string Out;
  for (uint32_t B = 0; B < Size; ++B) {
    std::snprintf(Buf, sizeof(Buf), "%02x", V[B]);
    Out += Buf;
  }
  return Out;
}

} // namespace ebpfgpu::abi
