// SPDX-License-Identifier: Apache-2.0
//
// The spec of an eBPF object file: pure data read from the ELF (programs
// with their relocations applied and sub-programs linked in, map
// definitions, global data, license, source line info). Nothing here owns a
// device resource; the loader turns a spec into live objects.

#ifndef EBPF_GPU_OBJECT_OBJECT_H
#define EBPF_GPU_OBJECT_OBJECT_H

#include "ebpf-gpu/ISA/Insn.h"
#include "ebpf-gpu/Platform/MapSpec.h"
#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::object {

/// A map as the object defines it (Platform/MapSpec.h: the one spec of a
/// map from the ELF to the daemon).
using MapSpec = platform::MapSpec;

/// Source position of an instruction, from `.BTF.ext` line info.
struct LineInfo {
  /// Slot index in the linked program.
  uint32_t Pc = 0;
  std::string File;
  std::string SourceText;
  uint32_t Line = 0;
  uint32_t Column = 0;
};

/// A function inside a linked program: the entry (first) or a sub-program.
struct FunctionSpec {
  std::string Name;
  uint32_t StartPc = 0;
};

/// One program, self-contained: the entry function's code followed by every
/// sub-program it calls. LDDW map references are rewritten to
/// LddwMapIdx / LddwMapIdxValue with imm = index into ObjectSpec::Maps (and
/// the value offset in the second half), local calls to relative offsets
/// within this instruction vector.
struct ProgramSpec {
  std::string Name;
  std::string Section;
  std::vector<isa::Insn> Insns;
  std::vector<FunctionSpec> Functions;
  /// Sorted by Pc; may be empty when the object has no BTF.ext.
  std::vector<LineInfo> Lines;

  /// The line info that covers `Pc` (the nearest at or before it), or null.
  const LineInfo *lineFor(uint32_t Pc) const;
};

/// A program of the object that could not be linked (an extern the project
/// does not support), and why: the object's other programs load without it.
struct UnlinkedProgram {
  std::string Name;
  std::string Section;
  std::string Reason;
  /// The program type its section names where that is not XDP, by
  /// libbpf's section names (`tc`, `tp_btf/...`): such a program is not
  /// linked at all. Empty for an XDP program that could not be linked.
  std::string OtherType;
};

/// The program type a section name gives a program where it is not XDP
/// (libbpf's section names: "tc", "classifier", "tp_btf/NAME", "fentry/F",
/// ...), else null: "xdp", "xdp.frags/devmap", and names libbpf does not
/// know ("from-netdev", iproute2's "1/2"), which ebpf-gpu runs as XDP.
const char *nonXdpProgramType(const std::string &Section);

struct ObjectSpec {
  std::string Path;
  std::string License;
  std::vector<MapSpec> Maps;
  std::vector<ProgramSpec> Programs;
  std::vector<UnlinkedProgram> Unlinked;
  /// The `.BTF` section, kept for pretty-printing map contents, with
  /// global data's DATASECs as libbpf gives them to the kernel (sized,
  /// their variables' offsets filled in) and resized with their sections.
  std::vector<uint8_t> Btf;

  /// The program named `Name` (function name), or the first program in
  /// section `Name`; null when none matches.
  const ProgramSpec *findProgram(const std::string &Name) const;
  /// Why program `Name` (a name or a section, as findProgram) is not among
  /// Programs where it is among Unlinked, else empty. With an empty `Name`:
  /// the reason of the only program of an object whose only program is
  /// unlinked.
  std::string unlinkedReason(const std::string &Name) const;
  /// The unlinked program named `Name` (a name, else a section), or null.
  const UnlinkedProgram *findUnlinked(const std::string &Name) const;
  /// All programs, linked or not.
  size_t programCount() const { return Programs.size() + Unlinked.size(); }
};

/// What the user adds to an object when reading it, as user space does to a
/// libbpf object between open and load.
struct ReadOptions {
  /// (outer, template): the map of maps `outer`, defined without
  /// `__array(values, ...)`, holds maps shaped as the object's map
  /// `template` (libbpf: bpf_map__set_inner_map_fd with a map of that
  /// shape). Its slots start empty.
  std::vector<std::pair<std::string, std::string>> InnerMapTemplates;
  /// (map, entries): max_entries set before load (libbpf:
  /// bpf_map__set_max_entries), e.g. the kernel's xdp_sample maps, which
  /// the object leaves at 0 for user space to size by the CPU count.
  std::vector<std::pair<std::string, uint32_t>> MaxEntries;
  /// (map, bytes): key and value sizes set before load (libbpf:
  /// bpf_map__set_key_size/set_value_size). The verifier and the compiler
  /// see them; a size that differs from the BTF type's drops that type (as
  /// libbpf creates such a map without BTF), and a value holding a
  /// bpf_spin_lock keeps its type's size. A global data section's value
  /// size resizes the section as libbpf does (its bytes kept up to the
  /// smaller size, the rest zero; its last variable, an array, grown or
  /// shrunk in the BTF, else the section's BTF type dropped); its key
  /// size is the array's.
  std::vector<std::pair<std::string, uint32_t>> KeySizes;
  std::vector<std::pair<std::string, uint32_t>> ValueSizes;
  /// (map, flags): map_flags set before load in place of the object's
  /// (libbpf: bpf_map__set_map_flags); the verifier and the compiler see
  /// them (BPF_F_RDONLY_PROG: the program's writes refused).
  std::vector<std::pair<std::string, uint32_t>> MapFlags;
  /// A map of maps without an inner definition or template is an error
  /// (false: left so, for an open that gets its templates later; such an
  /// object cannot be linked or run).
  bool RequireInnerMaps = true;
  /// (section, bytes): the initial contents of a global data section
  /// (".rodata", ".data", ".bss", ".data.foo") written before load, as
  /// through a libbpf skeleton's mmapped sections: .rodata's constants are
  /// what the verifier and the compiler then see. The size must be the
  /// section's.
  std::vector<std::pair<std::string, std::vector<uint8_t>>> InitialValues;
};

/// Parses "OUTER=TEMPLATE" (the tools' --inner-map argument).
Expected<std::pair<std::string, std::string>> parseInnerMapTemplate(const std::string &Arg);
/// Parses "MAP=ENTRIES" (the tools' --map-size argument; 1 to 2^31-1).
Expected<std::pair<std::string, uint32_t>> parseMapSize(const std::string &Arg);
/// Parses "MAP=N" for the tool option `Option` (--map-key-size,
/// --map-value-size: `Unit` BYTES), 1 to 2^31-1.
Expected<std::pair<std::string, uint32_t>> parseMapNumber(const std::string &Arg,
                                                          const std::string &Option,
                                                          const std::string &Unit);

/// Reads an eBPF ELF object. Errors name the file and, where it applies, the
/// section and instruction ("prog.o: section xdp: pc 3: ..."); a map of maps
/// without an inner definition or template is an error that says how to
/// give one.
Expected<ObjectSpec> readObjectFile(const std::string &Path, const ReadOptions &Opts = {});
Expected<ObjectSpec> readObjectMemory(const uint8_t *Data, size_t Size,
                                      const std::string &Name, const ReadOptions &Opts = {});

/// The loader's name for a map's pinning ("global_ns", "by_name", ...):
/// empty for none.
std::string mapPinningName(const MapSpec &M);

/// The maps of `Maps` that may fill the slots of the map of maps at `Outer`
/// (as the kernel matches them against the inner definition: type, key and
/// value sizes, flags, and for arrays max_entries unless the definition
/// has BPF_F_INNER_MAP), sorted by name; empty for other maps. Their order
/// is the inner map table of the runtime (MapAbi.h).
std::vector<size_t> innerMapCandidates(const std::vector<MapSpec> &Maps, size_t Outer);

} // namespace ebpfgpu::object

#endif // EBPF_GPU_OBJECT_OBJECT_H
