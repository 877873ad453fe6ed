// SPDX-License-Identifier: Apache-2.0
//
// Where an output file is written before it takes its name. The tools write
// outputs under a temporary name and rename them into place, so a failure
// leaves no partial file; but a rename over an existing device or FIFO
// (`-o /dev/null`, `--out /dev/stdout`) replaces it with a regular file, and
// as root it did replace the machine's /dev/null. Such paths are written in
// place. Header-only, as ReadFile.h: the loader, runtime, compiler and tools
// share it without a library between them.

#ifndef EBPF_GPU_SUPPORT_OUTPUTPATH_H
#define EBPF_GPU_SUPPORT_OUTPUTPATH_H

#include <string>

#include <sys/stat.h>

namespace ebpfgpu {

/// `Path` names an existing file that is neither a regular file nor a
/// directory (a character device, a FIFO, a socket): written in place.
inline bool writesInPlace(const std::string &Path) {
  struct stat St;
  return ::stat(Path.c_str(), &St) == 0 && !S_ISREG(St.st_mode) && !S_ISDIR(St.st_mode);
}

/// The name to write `Path`'s contents under before renaming them to `Path`
/// (`Path` + `Suffix`), or `Path` itself when it is written in place. Callers
/// rename and remove the staging file only when it differs from `Path`.
inline std::string stagingPath(const std::string &Path, const std::string &Suffix) {
  return writesInPlace(Path) ? Path : Path + Suffix;
}

} // namespace ebpfgpu

#endif // EBPF_GPU_SUPPORT_OUTPUTPATH_H
