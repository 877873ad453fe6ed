// SPDX-License-Identifier: Apache-2.0
//
// Private to the DPDK runtime: port device strings taken apart, and the EAL
// brought up from them with the arguments a machine with or without NICs
// and hugepages needs. DPDK's log is captured in memory while the EAL and
// the ports come up, so that a failure is one message naming DPDK's reason
// instead of a screen of EAL lines.

#ifndef EBPF_GPU_RUNTIME_LIB_DPDKEAL_H
#define EBPF_GPU_RUNTIME_LIB_DPDKEAL_H

#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace ebpfgpu::runtime::dpdk {

/// One --port or --exception argument.
struct DeviceSpec {
  std::string Given; ///< as the user wrote it (for messages)
  std::string Eal;   ///< as the EAL gets it (tx_pcap renamed to its temporary)
  std::string Name;  ///< the ethdev name: the vdev name or the PCI address
  bool Pci = false;
  /// `gen`: the in-process traffic source's port (DpdkGenerator.h), made
  /// after the EAL is up rather than probed by it.
  bool Generator = false;
  /// net_pcap output files: final name and the temporary written meanwhile.
  std::vector<std::pair<std::string, std::string>> Outputs;
};

/// Takes a device string apart. Fails on an empty name or a PCI address
/// with arguments this runtime does not pass on.
Expected<DeviceSpec> parseDevice(const std::string &Spec);

/// The EAL of this process, up. Destruction cleans it up.
class Eal {
public:
  /// Brings the EAL up with `Devices` probed, `Lcores` lcores (the main one
  /// and the workers) and `MemoryMb` of memory when there are no hugepages,
  /// then `Extra` (the user's arguments, last so they win).
  static Expected<std::unique_ptr<Eal>> init(const std::vector<DeviceSpec> &Devices,
                                             unsigned Lcores, unsigned MemoryMb,
                                             const std::vector<std::string> &Extra);
  ~Eal();
  Eal(const Eal &) = delete;
  Eal &operator=(const Eal &) = delete;

  /// What DPDK logged since the last call, one line joined by "; ".
  std::string takeLog();
  /// Set-up is over: DPDK's log goes to stderr from now on (errors only,
  /// unless the user's EAL arguments asked for more).
  void logToStderr();
  /// DPDK's log is captured again (for takeLog), e.g. while a port is
  /// hot-plugged; logToStderr() ends it. Neither is thread-safe: one
  /// control thread calls them.
  void captureLog();

private:
  Eal() = default;
  std::FILE *LogStream = nullptr;
  char *LogBuffer = nullptr;
  size_t LogSize = 0, LogTaken = 0;
  bool Up = false;
};

} // namespace ebpfgpu::runtime::dpdk

#endif // EBPF_GPU_RUNTIME_LIB_DPDKEAL_H
