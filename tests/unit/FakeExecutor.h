// SPDX-License-Identifier: Apache-2.0
//
// A back end for unit tests that need a runtime::BatchExecutor but no
// program: every call succeeds and does nothing (no maps, empty dumps and
// logs, batches left as they came). A test derives from it and overrides
// what it observes or plays (runs that fail, maps in host memory, lanes).

#ifndef EBPF_GPU_TESTS_UNIT_FAKEEXECUTOR_H
#define EBPF_GPU_TESTS_UNIT_FAKEEXECUTOR_H

#include "ebpf-gpu/Runtime/BatchExecutor.h"

#include <string>
#include <utility>
#include <vector>

namespace ebpfgpu::test {

class FakeExecutor : public runtime::BatchExecutor {
public:
  /// `Program` and `Backend` are what programName() and backendName() say.
  explicit FakeExecutor(std::string Program = "toy", const char *Backend = "toy")
      : Program(std::move(Program)), Backend(Backend) {}

  MaybeError run(runtime::PacketBatch &) override { return std::nullopt; }
  Expected<std::string> dumpMaps() override { return std::string(); }
  MaybeError updateMap(const std::string &, const std::vector<uint8_t> &,
                       const std::vector<uint8_t> &) override {
    return std::nullopt;
  }
  MaybeError setFib(const std::vector<uint8_t> &) override { return std::nullopt; }
  MaybeError setInnerMap(const std::string &, const std::vector<uint8_t> &,
                         const std::string &) override {
    return std::nullopt;
  }
  MaybeError checkMaps() override { return std::nullopt; }
  Expected<std::string> takeTrace() override { return std::string(); }
  Expected<std::string> takeEvents() override { return std::string(); }
  Expected<std::vector<std::string>> warnings() override { return std::vector<std::string>(); }
  std::vector<runtime::MapInfo> maps() const override { return {}; }
  MaybeError accessMap(const std::string &, const runtime::MapOperation &) override {
    return std::nullopt;
  }
  const std::string &programName() const override { return Program; }
  const char *backendName() const override { return Backend; }

private:
  std::string Program;
  const char *Backend;
};

} // namespace ebpfgpu::test

#endif // EBPF_GPU_TESTS_UNIT_FAKEEXECUTOR_H
