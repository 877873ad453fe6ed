// SPDX-License-Identifier: Apache-2.0
//
// The daemon's request arguments (DaemonArgs.h).

#include "DaemonArgs.h"

#include "ebpf-gpu/Loader/MapEntries.h"

namespace ebpfgpu::tools::daemon {

using json::Value;

Expected<std::string> stringArg(const Value &Args, const char *Key, bool Required) {
  const Value *V = Args.get(Key);
  if (!V || V->isNull()) {
    if (Required)
      return Error(std::string("missing argument '") + Key + "'");
    return std::string();
  }
  if (!V->isString())
    return Error(std::string("argument '") + Key + "' must be a string");
  return V->text();
}

Expected<uint64_t> numberArg(const Value &Args, const char *Key, uint64_t Default, uint64_t Min,
                             uint64_t Max) {
  const Value *V = Args.get(Key);
  if (!V || V->isNull())
    return Default;
  std::optional<uint64_t> N = V->u64();
  if (!N || *N < Min || *N > Max)
    return Error(std::string("argument '") + Key + "' must be a whole number from " +
                 std::to_string(Min) + " to " + std::to_string(Max));
  return *N;
}

Expected<std::vector<uint8_t>> bytesArg(const Value &Args, const char *Key, uint32_t Size,
                                        const std::string &MapName) {
  // No bytes to give (a queue's, stack's or bloom filter's key): may be left out.
  auto S = stringArg(Args, Key, Size != 0);
  if (!S)
    return S.takeError();
  auto B = loader::parseHexBytes(*S);
  if (!B)
    return Error(std::string("argument '") + Key + "' must be hex bytes, not '" + *S + "'");
  if (B->size() != Size)
    return Error("map '" + MapName + "': takes " + std::to_string(Size) + "-byte " + Key +
                 "s, not " + std::to_string(B->size()));
  return std::move(*B);
}

} // namespace ebpfgpu::tools::daemon
