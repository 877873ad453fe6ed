// SPDX-License-Identifier: Apache-2.0
//
// runtime::liveMap() (BatchExecutor.h): a loaded program's map spec made
// into the map the operator sees. The host and GPU back ends, the daemon
// (through them) and the C API all take their map list from here, so that
// what global data looks like, what is read-only and which BTF types print
// a map are decided once.

#include "ebpf-gpu/Runtime/BatchExecutor.h"

namespace ebpfgpu::runtime {

MapInfo liveMap(const platform::MapSpec &Spec) {
  MapInfo I;
  static_cast<platform::MapShape &>(I) = Spec;
  I.Name = Spec.Name;
  I.GlobalData = Spec.Origin == platform::MapOrigin::GlobalData;
  if (I.GlobalData) {
    // One entry holding the section, whatever the spec's shape says (a
    // .gpu.o of format 1 wrote a data section's own numbers).
    I.Type = EBPFGPU_MAP_ARRAY;
    I.KeySize = 4;
    I.MaxEntries = 1;
    I.Extra = 0;
  }
  // Only global data is read-only to the operator: a map the program may
  // not write (BPF_F_RDONLY_PROG) is still user space's to fill, as in
  // the kernel.
  I.ReadOnly = I.GlobalData && (Spec.Flags & platform::MapFlagReadOnlyProg);
  I.BtfKeyTypeId = Spec.BtfKeyTypeId;
  I.BtfValueTypeId = Spec.BtfValueTypeId;
  return I;
}

} // namespace ebpfgpu::runtime
