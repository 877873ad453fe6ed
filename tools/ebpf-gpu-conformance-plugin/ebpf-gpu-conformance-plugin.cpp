// SPDX-License-Identifier: Apache-2.0
//
// The bpf_conformance plugin: `PLUGIN [MEM_HEX] [OPTIONS]`, program as one
// line of hex on standard input (or a whole ELF object with --elf). Runs it
// with r1 = the input memory, r2 = its length, prints r0 in hex and exits
// 0; a load or run failure prints the reason on standard error and exits 1.
// OPTIONS: --elf (input is an ELF object), --gpu (run on the GPU as a
// one-thread batch instead of the host back end), --verify (run only what
// the safety verifier accepts, with r1 pointing to the input's bytes).
// Without --verify the plugin measures the back ends' ISA semantics on
// every program, including those the verifier (like the kernel's) refuses.

#include "ebpf-gpu/Compiler/GpuArtifact.h"
#include "ebpf-gpu/Compiler/HostJit.h"
#include "ebpf-gpu/ISA/Decoder.h"
#include "ebpf-gpu/Verifier/Verifier.h"

#include "llvm/Support/raw_ostream.h"

#ifdef EBPF_GPU_HAVE_CUDA
#include "ebpf-gpu/Loader/GpuLoader.h"
#endif

#include <bpf/libbpf.h>

#include <cctype>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

using namespace ebpfgpu;

namespace {

int failWith(const std::string &Msg) {
  std::cerr << "ebpf-gpu-conformance-plugin: " << Msg << "\n";
  return 1;
}

bool parseHex(const std::string &Text, std::vector<uint8_t> &Out) {
  int Nibble = -1;
  for (char C : Text) {
    if (std::isspace(static_cast<unsigned char>(C)))
      continue;
    if (!std::isxdigit(static_cast<unsigned char>(C)))
      return false;
    int V = std::isdigit(static_cast<unsigned char>(C)) ? C - '0' : std::tolower(C) - 'a' + 10;
    if (Nibble < 0) {
      Nibble = V;
    } else {
      Out.push_back(uint8_t(Nibble << 4 | V));
      Nibble = -1;
    }
  }
  return Nibble < 0;
}

} // namespace

int main(int argc, char **argv) {
  libbpf_set_print(nullptr);
  // The upstream runner passes the memory as argv[1] (possibly empty) and
  // its plugin options as one more argument (possibly empty).
  std::string MemHex = argc > 1 ? argv[1] : "";
  bool Elf = false, Gpu = false, Verify = false;
  for (int I = 2; I < argc; ++I) {
    std::istringstream Opts(argv[I]);
    for (std::string A; Opts >> A;) {
      if (A == "--elf")
        Elf = true;
      else if (A == "--gpu")
        Gpu = true;
      else if (A == "--verify")
        Verify = true;
      else
        return failWith("unknown option '" + A + "'");
    }
  }
  std::string Input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  std::vector<uint8_t> Code, Mem;
  if (!parseHex(Input, Code))
    return failWith("program on standard input is not hex text");
  if (!parseHex(MemHex, Mem))
    return failWith("memory argument is not hex text");

  object::ObjectSpec Obj;
  if (Elf) {
    auto R = object::readObjectMemory(Code.data(), Code.size(), "<stdin>");
    if (!R)
      return failWith(R.error().message());
    if (R->Programs.empty())
      return failWith(R->Unlinked.empty() ? "object has no programs" : R->Unlinked[0].Reason);
    Obj = std::move(*R);
  } else {
    auto Insns = isa::decodeProgram(Code.data(), Code.size());
    if (!Insns)
      return failWith(Insns.error().message());
    Obj.Programs.push_back(compiler::programFromInsns(std::move(*Insns), "prog"));
  }

  compiler::LiftOptions Opts;
  Opts.Platform = &platform::rawPlatform();
  if (Verify) {
    verifier::Options VO;
    VO.Platform = &platform::rawPlatform();
    VO.RawMemSize = Mem.size();
    verifier::Result R = verifier::verify(Obj.Programs[0], Obj.Maps, VO);
    if (!R.ok())
      return failWith("refused by the verifier: " +
                      verifier::formatDiagnostic(*R.Error, Obj.Programs[0]));
  }
  if (Gpu) {
#ifdef EBPF_GPU_HAVE_CUDA
    auto Spec = compiler::buildGpuObject(Obj, Obj.Programs[0], Opts, compiler::GpuOptions(),
                                         /*Verified=*/false);
    if (!Spec)
      return failWith(llvm::toString(Spec.takeError()));
    auto Dev = loader::GpuDevice::open(0);
    if (!Dev)
      return failWith(Dev.error().message());
    auto GP = loader::GpuProgram::load(**Dev, *Spec);
    if (!GP)
      return failWith(GP.error().message());
    auto R0 = (*GP)->runRaw(Mem);
    if (!R0)
      return failWith(R0.error().message());
    std::printf("%llx\n", static_cast<unsigned long long>(*R0));
    return 0;
#else
    return failWith("built without CUDA support: --gpu is not available");
#endif
  }
  auto Prog = compiler::HostProgram::compile(Obj.Programs[0], Obj.Maps, Opts);
  if (!Prog)
    return failWith(llvm::toString(Prog.takeError()));
  uint64_t R0 = (*Prog)->runRaw(Mem.empty() ? nullptr : Mem.data(), Mem.size());
  std::printf("%llx\n", static_cast<unsigned long long>(R0));
  return 0;
}
