// SPDX-License-Identifier: Apache-2.0
//
// Assembles the upstream bpf_conformance suite's tests (tests/NAME.data,
// whose programs are in the suite's own assembler syntax) into the raw form
// run-conformance.py reads (hex/NAME.hex: the instruction bytes as
// space-separated hex), with the suite's own assembler (bpf_conformance_core).
// Used where the suite comes from its upstream repository rather than from a
// copy that already carries hex/ (scripts/setup.sh fetches it).
//
// Usage: ebpf-gpu-conformance-asm TESTS_DIR HEX_DIR
// Exit status: 0 every test assembled, 1 a test could not be read or
// assembled (named on stderr), 2 bad command line.

#include <bpf_conformance_core/bpf_test_parser.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s TESTS_DIR HEX_DIR\n", argv[0]);
    return 2;
  }
  fs::path tests = argv[1], out = argv[2];
  std::error_code ec;
  std::vector<fs::path> inputs;
  for (const auto &entry : fs::directory_iterator(tests, ec))
    if (entry.path().extension() == ".data")
      inputs.push_back(entry.path());
  if (ec || inputs.empty()) {
    std::fprintf(stderr, "ebpf-gpu-conformance-asm: no NAME.data tests in %s\n", argv[1]);
    return 1;
  }
  std::sort(inputs.begin(), inputs.end());
  fs::create_directories(out, ec);
  if (ec) {
    std::fprintf(stderr, "ebpf-gpu-conformance-asm: %s: %s\n", argv[2], ec.message().c_str());
    return 1;
  }
  for (const fs::path &in : inputs) {
    std::vector<ebpf_inst> program;
    try {
      program = std::get<3>(parse_test_file(in));
    } catch (const std::exception &e) {
      std::fprintf(stderr, "ebpf-gpu-conformance-asm: %s: %s\n", in.c_str(), e.what());
      return 1;
    }
    if (program.empty()) {
      std::fprintf(stderr, "ebpf-gpu-conformance-asm: %s: no program\n", in.c_str());
      return 1;
    }
    static_assert(sizeof(ebpf_inst) == 8, "eBPF instructions are 8 bytes");
    std::string text;
    const auto *bytes = reinterpret_cast<const unsigned char *>(program.data());
    for (size_t i = 0; i < program.size() * sizeof(ebpf_inst); ++i) {
      char byte[4];
      std::snprintf(byte, sizeof(byte), "%s%02x", i ? " " : "", bytes[i]);
      text += byte;
    }
    // Written beside, then renamed: a failed run leaves no partial file.
    fs::path target = out / (in.stem().string() + ".hex");
    fs::path temp = target;
    temp += ".tmp";
    {
      std::ofstream f(temp, std::ios::binary | std::ios::trunc);
      f << text << '\n';
      if (!f.flush()) {
        std::fprintf(stderr, "ebpf-gpu-conformance-asm: cannot write %s\n", temp.c_str());
        fs::remove(temp, ec);
        return 1;
      }
    }
    fs::rename(temp, target, ec);
    if (ec) {
      std::fprintf(stderr, "ebpf-gpu-conformance-asm: %s: %s\n", target.c_str(), ec.message().c_str());
      return 1;
    }
  }
  std::printf("ebpf-gpu-conformance-asm: %zu tests assembled into %s\n", inputs.size(), argv[2]);
  return 0;
}
