// SPDX-License-Identifier: Apache-2.0
//
// What the daemon's request handlers share (DaemonState.cpp, DaemonMaps.cpp):
// a request's arguments read with one clear error each.

#ifndef EBPF_GPU_DAEMON_DAEMONARGS_H
#define EBPF_GPU_DAEMON_DAEMONARGS_H

#include "ebpf-gpu/Daemon/Json.h"

#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::tools::daemon {

/// String argument `Key` ("" when absent and not `Required`).
Expected<std::string> stringArg(const json::Value &Args, const char *Key, bool Required = true);
/// Whole-number argument `Key` in [Min, Max] (`Default` when absent).
Expected<uint64_t> numberArg(const json::Value &Args, const char *Key, uint64_t Default,
                             uint64_t Min, uint64_t Max);
/// Hex-bytes argument `Key` of exactly `Size` bytes (a key or value of map `MapName`).
Expected<std::vector<uint8_t>> bytesArg(const json::Value &Args, const char *Key, uint32_t Size,
                                        const std::string &MapName);

} // namespace ebpfgpu::tools::daemon

#endif // EBPF_GPU_DAEMON_DAEMONARGS_H
