// SPDX-License-Identifier: Apache-2.0
//
// `run` on the host and GPU back ends: a program on libebpf-gpu's C API
// (ApiProgram.h), as an application embedding the library would run it.
// (The kernel back end, an oracle the library does not offer, stays on
// exec::load in ebpf-gpu-loader.cpp.)

#include "ebpf-gpu/Tools/ApiProgram.h"
#include "Options.h"
#include "Run.h"

#include "ebpf-gpu/Abi/GpuObject.h"

#include <cstdio>
#include <string>
#include <vector>

namespace ebpfgpu::tools {

namespace {

template <typename T> T orFail(Expected<T> V) {
  if (!V)
    fail(V.error().message());
  return std::move(*V);
}

void orFail(MaybeError E) {
  if (E)
    fail(E->message());
}

} // namespace

RunResult runOnApi(const RunOptions &O, runtime::PacketBatch &Batch) {
  ApiLoad L;
  L.Object = O.Object;
  L.Section = O.Section;
  L.Backend = O.Backend;
  L.Shapes = O.Shapes;
  L.Gpu = O.Gpu;
  L.Gpu.LaunchSize = O.BatchSize;
  L.AllowUnverified = O.AllowUnverified;
  ApiProgram P = orFail(ApiProgram::load(L));
  orFail(P.setEntries(O.MapEntries));
  if (!O.FibFile.empty())
    orFail(P.setFibFile(O.FibFile));
  orFail(P.run(Batch));
  if (O.CheckMaps)
    orFail(P.checkMaps());
  std::string Trace = orFail(P.takeTrace());
  if (!O.TraceFile.empty())
    orFail(abi::writeFileAtomically(O.TraceFile, std::vector<uint8_t>(Trace.begin(), Trace.end())));
  else
    std::fputs(Trace.c_str(), stderr);
  RunResult Out;
  Out.EventsText = orFail(P.takeEvents());
  for (const std::string &W : orFail(P.warnings()))
    std::fprintf(stderr, "%s: warning: %s\n", Tool, W.c_str());
  Out.MapsText = orFail(P.formatMaps());
  Out.ProgName = P.name();
  Out.Backend = P.backend();
  Out.KernelMs = P.kernelMs();
  return Out;
}

} // namespace ebpfgpu::tools
