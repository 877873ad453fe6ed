// SPDX-License-Identifier: Apache-2.0
//
// One program over several GPUs (or several contexts of one GPU): the list
// of GPUs an operator gives, which GPU each data plane worker runs on, and
// what becomes of each map of the program, the kernel's semantics kept or
// the program refused. The executor that spreads a program over them is a
// runtime::BatchExecutor like any back end, so the data plane, the
// counters and the map operations see one program (docs/RUNTIME.md,
// "Several GPUs"; docs/MAPS.md, "Several GPUs").

#ifndef EBPF_GPU_EXEC_MULTIGPU_H
#define EBPF_GPU_EXEC_MULTIGPU_H

#include "ebpf-gpu/Platform/MapSpec.h"
#include "ebpf-gpu/Runtime/BatchExecutor.h"
#include "ebpf-gpu/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace ebpfgpu::exec {

/// A GPU list as an operator writes it: `N` (GPUs 0 to N-1) or device
/// ordinals separated by commas, repeats allowed (`0,0`: two contexts of
/// GPU 0, which is how one GPU stands in for two). An error says what is
/// wrong: empty, a count of 0, a word that is not a number. Ordinals are
/// checked against the machine when the GPUs are opened.
Expected<std::vector<int>> parseGpuList(const std::string &Text);

/// The list as parseGpuList reads it back: ordinals separated by commas.
std::string gpuListText(const std::vector<int> &Gpus);

/// The entry of a list of `Entries` GPUs that data plane worker `Worker`
/// runs on (worker i on entry i mod the list's length), and its index
/// among that entry's workers (what the entry's back end calls the worker).
inline unsigned gpuEntryOfWorker(size_t Entries, unsigned Worker) {
  return unsigned(Worker % Entries);
}
inline unsigned workerOnGpuEntry(size_t Entries, unsigned Worker) {
  return unsigned(Worker / Entries);
}

/// What becomes of a map when its program runs on several GPUs.
enum class MapPlacement {
  /// No program changes it: one copy per GPU, every update from the host
  /// applied to every copy before the next batch.
  Replicated,
  /// A per-CPU map whose keys no program adds or deletes: one copy per GPU
  /// whose slices are that GPU's CPUs; the host sees one per-CPU map whose
  /// CPUs are the first GPU's, then the second's, and so on.
  PerGpuSlices,
  /// An array or a bloom filter the programs change (values in place, no
  /// elements to reclaim): one copy, in the first GPU's memory, that every
  /// other GPU's module reaches at the same address over peer access; the
  /// program's atomics at system scope (ebpf-gpu-cc --system-atomics).
  SharedOnFirstGpu,
  /// A map the programs change that every CPU shares and that cannot live
  /// once for all of them (why: MapPlacementRule::Why).
  Refused,
};

/// Where map `M` goes over several GPUs, and for Refused why, in words
/// that name the map and what its program does to it. `SystemAtomics`:
/// the program's atomics are at system scope (GpuObjectSpec::
/// SystemScopeAtomics), which a map shared by several GPUs needs.
struct MapPlacementRule {
  MapPlacement Placement = MapPlacement::Refused;
  std::string Why;
};
MapPlacementRule placeMapOnGpus(const platform::MapSpec &M, bool SystemAtomics = false);

/// True when a map of `Maps` is refused only because the program's atomics
/// are at .gpu scope: compiled again with system-scope atomics, it could
/// live once for several GPUs.
bool needsSystemAtomics(const std::vector<platform::MapSpec> &Maps);

/// Nothing when a program with `Maps` can run on the GPUs `Gpus` lists
/// (always, for one entry); else the refusal of its first map that cannot
/// be spread over them. A map to share needs two distinct GPUs or more and
/// no GPU twice (two contexts of one device do not reach each other's
/// memory: peer access is between devices); whether the GPUs reach one
/// another with native atomics is asked of the driver when they open.
MaybeError checkMapsForGpus(const std::vector<platform::MapSpec> &Maps,
                            const std::vector<int> &Gpus, bool SystemAtomics = false);

/// The maps of `Maps` placed SharedOnFirstGpu.
std::vector<std::string> sharedMapNames(const std::vector<platform::MapSpec> &Maps,
                                        bool SystemAtomics);

/// One program over `Members`, a back end each (of one program, loaded
/// from one `.gpu.o`, each in a context of its own; `Gpus` the ordinal of
/// each, for messages), whose maps `Maps` have passed checkMapsForGpus:
/// worker i's lanes are entry i mod N's; run() is the first entry's; map
/// operations see one program (Replicated maps: the first copy read,
/// every copy written; PerGpuSlices: one per-CPU map of every entry's
/// slices; SharedOnFirstGpu: the first entry's, the one copy). Takes
/// ownership of the members, at least two, and destroys them last to
/// first (the first holds the shared maps the others reach).
std::unique_ptr<runtime::BatchExecutor>
makeMultiGpuExecutor(std::vector<std::unique_ptr<runtime::BatchExecutor>> Members,
                     std::vector<int> Gpus, const std::vector<platform::MapSpec> &Maps,
                     bool SystemAtomics = false);

/// The members of an executor from makeMultiGpuExecutor, in list order;
/// empty for any other executor.
std::vector<runtime::BatchExecutor *> multiGpuMembers(runtime::BatchExecutor &Exec);

} // namespace ebpfgpu::exec

#endif // EBPF_GPU_EXEC_MULTIGPU_H
