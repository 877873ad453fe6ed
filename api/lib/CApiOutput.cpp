// SPDX-License-Identifier: Apache-2.0
//
// The C API's calls on what a loaded program leaves besides its maps and
// packets (include/ebpf-gpu/ebpf-gpu.h): its event maps' records, its
// bpf_trace_printk lines and what its runs lost (each taken from the back
// end and handed to a callback), its forwarding table, and the check of
// its maps' structure. The back ends gather records and lines run after
// run (exec/lib/Collectors.h); these calls take them.

#include "CApiInternal.h"

#include "ebpf-gpu/Loader/Fib.h"
#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Support/ReadFile.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

using namespace ebpfgpu;
using namespace ebpfgpu::capi;

namespace {

/// 0 when `P` is a loaded program, else why not (-EINVAL).
int requireLoaded(const ebpf_gpu_prog *P, const char *Call, bool HasFn = true) {
  if (!P)
    return failWith(EINVAL, std::string(Call) + " needs a program (NULL)");
  if (!P->Loaded.Exec)
    return failWith(EINVAL, "program '" + P->Name +
                                "' is opened, not loaded (ebpf_gpu_prog__load_opened)");
  if (!HasFn)
    return failWith(EINVAL, std::string(Call) + " needs a callback (NULL)");
  return 0;
}

/// Hands `Pending`'s items to `Call` oldest first: how many, or the first
/// negative value `Call` returns (that item taken, the rest kept).
template <typename Item, typename CallFn>
int handOut(std::deque<Item> &Pending, const char *What, CallFn &&Call) {
  int Count = 0;
  while (!Pending.empty()) {
    Item I = std::move(Pending.front());
    Pending.pop_front();
    if (int R = Call(I); R < 0) {
      failWith(-R, std::string("the ") + What + " callback returned " + std::to_string(R));
      return R;
    }
    if (Count < INT_MAX)
      ++Count;
  }
  LastError.clear();
  return Count;
}

/// The lines of `Text`, each without its newline.
std::vector<std::string_view> linesOf(std::string_view Text) {
  std::vector<std::string_view> Out;
  while (!Text.empty()) {
    size_t End = Text.find('\n');
    Out.push_back(Text.substr(0, End));
    Text = End == std::string_view::npos ? std::string_view() : Text.substr(End + 1);
  }
  return Out;
}

} // namespace

extern "C" {

int ebpf_gpu_prog__consume_events(struct ebpf_gpu_prog *prog, ebpf_gpu_event_fn fn, void *ctx) {
  if (int E = requireLoaded(prog, "consume_events", fn))
    return E;
  auto Text = prog->Loaded.Exec->takeEvents();
  if (!Text)
    return failWith(EIO, "program '" + prog->Name + "': " + Text.error().message());
  // One "MAP HEXBYTES" line a record (abi::EventLog).
  for (std::string_view Line : linesOf(*Text)) {
    size_t Space = Line.find(' ');
    auto Bytes = Space == std::string_view::npos
                     ? std::nullopt
                     : loader::parseHexBytes(std::string(Line.substr(Space + 1)));
    if (!Bytes)
      return failWith(EIO, "program '" + prog->Name + "': the back end gave a malformed event "
                                                      "record '" + std::string(Line) + "'");
    prog->PendingEvents.emplace_back(std::string(Line.substr(0, Space)), std::move(*Bytes));
  }
  return handOut(prog->PendingEvents, "event", [&](const auto &R) {
    return fn(ctx, R.first.c_str(), R.second.data(), R.second.size());
  });
}

int ebpf_gpu_prog__consume_trace(struct ebpf_gpu_prog *prog, ebpf_gpu_trace_fn fn, void *ctx) {
  if (int E = requireLoaded(prog, "consume_trace", fn))
    return E;
  auto Text = prog->Loaded.Exec->takeTrace();
  if (!Text)
    return failWith(EIO, "program '" + prog->Name + "': " + Text.error().message());
  for (std::string_view Line : linesOf(*Text))
    prog->PendingTrace.emplace_back(Line);
  return handOut(prog->PendingTrace, "trace",
                 [&](const std::string &Line) { return fn(ctx, Line.c_str()); });
}

int ebpf_gpu_prog__warnings(struct ebpf_gpu_prog *prog, ebpf_gpu_warning_fn fn, void *ctx) {
  if (int E = requireLoaded(prog, "warnings", fn))
    return E;
  auto Warnings = prog->Loaded.Exec->warnings();
  if (!Warnings)
    return failWith(EIO, "program '" + prog->Name + "': " + Warnings.error().message());
  std::deque<std::string> All(Warnings->begin(), Warnings->end());
  return handOut(All, "warning", [&](const std::string &W) { return fn(ctx, W.c_str()); });
}

int ebpf_gpu_prog__set_fib(struct ebpf_gpu_prog *prog, const void *text, size_t size,
                           const char *name) {
  if (int E = requireLoaded(prog, "set_fib"))
    return E;
  if (!text && size)
    return failWith(EINVAL, "set_fib: no text (NULL) for " + std::to_string(size) + " bytes");
  std::string Text(text ? static_cast<const char *>(text) : "", size);
  auto Block = loader::parseFib(Text, name ? name : "text");
  if (!Block)
    return failWith(EINVAL, Block.error().message());
  if (MaybeError E = prog->Loaded.Exec->setFib(*Block))
    return failWith(EIO, "program '" + prog->Name + "': " + E->message());
  LastError.clear();
  return 0;
}

int ebpf_gpu_prog__set_fib_file(struct ebpf_gpu_prog *prog, const char *path) {
  if (int E = requireLoaded(prog, "set_fib_file"))
    return E;
  if (!path)
    return failWith(EINVAL, "set_fib_file needs a path (NULL)");
  errno = 0;
  auto Text = readFileBytes(path);
  if (!Text) // errno: open's or read's (0 for a directory or special file)
    return failWith(errno ? errno : EINVAL, Text.error().message());
  return ebpf_gpu_prog__set_fib(prog, Text->data(), Text->size(), path);
}

char *ebpf_gpu_prog__format_maps(struct ebpf_gpu_prog *prog) {
  if (requireLoaded(prog, "format_maps"))
    return nullptr; // (errno set)
  // What the caller wrote to global data it holds, as a burst would see it.
  if (int E = syncData(*prog, true)) {
    errno = -E;
    return nullptr;
  }
  auto Text = prog->Loaded.Exec->dumpMaps();
  if (!Text)
    return failNull<char>(EIO, "program '" + prog->Name + "': " + Text.error().message());
  char *Out = static_cast<char *>(std::malloc(Text->size() + 1));
  if (!Out)
    return failNull<char>(ENOMEM, "program '" + prog->Name + "': out of memory");
  std::memcpy(Out, Text->c_str(), Text->size() + 1);
  LastError.clear();
  return Out;
}

double ebpf_gpu_prog__gpu_kernel_ms(const struct ebpf_gpu_prog *prog) {
#ifdef EBPF_GPU_HAVE_CUDA
  if (prog && prog->Loaded.Exec && prog->Loaded.Kind == exec::Backend::Gpu)
    return exec::gpuKernelMs(*prog->Loaded.Exec);
#endif
  (void)prog;
  return -1;
}

int ebpf_gpu_prog__check_maps(struct ebpf_gpu_prog *prog) {
  if (int E = requireLoaded(prog, "check_maps"))
    return E;
  if (MaybeError E = prog->Loaded.Exec->checkMaps())
    return failWith(EUCLEAN, "program '" + prog->Name + "': " + E->message());
  LastError.clear();
  return 0;
}

} // extern "C"
