// SPDX-License-Identifier: Apache-2.0
//
// Skeleton headers (Skeleton.h). The C they hold is C99 and C++ alike: no
// designated initialisers, declarations before gotos, casts from void *.

#include "Skeleton.h"

#include "ebpf-gpu/Loader/BtfCWriter.h"

#include <cctype>
#include <cstdio>
#include <set>

namespace ebpfgpu::tools {

namespace {

/// A map's member name: its name with the dots of a section name gone
/// (".bss" -> "bss", ".data.counts" -> "data_counts"), as bpftool's.
std::string memberName(const std::string &Map) {
  std::string Out;
  for (char C : Map.substr(Map[0] == '.' ? 1 : 0))
    Out += std::isalnum(static_cast<unsigned char>(C)) ? C : '_';
  return Out;
}

bool isIdentifier(const std::string &S) {
  if (S.empty() || std::isdigit(static_cast<unsigned char>(S[0])))
    return false;
  for (char C : S)
    if (!std::isalnum(static_cast<unsigned char>(C)) && C != '_')
      return false;
  return true;
}

/// `Bytes` as an array initialiser, 16 bytes a line (not a string
/// literal: C99 compilers need take none past 4095 characters).
std::string initialiser(const std::vector<uint8_t> &Bytes) {
  static const char Hex[] = "0123456789abcdef";
  std::string Out = "{";
  for (size_t I = 0; I < Bytes.size(); ++I) {
    Out += I % 16 ? " 0x" : "\n    0x";
    Out += Hex[Bytes[I] >> 4];
    Out += Hex[Bytes[I] & 15];
    Out += ",";
  }
  return Out + "\n  }";
}

/// `S` as a C string literal (names from the object: escaped).
std::string quoted(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    unsigned char U = static_cast<unsigned char>(C);
    if (U < 0x20 || U >= 0x7f || C == '"' || C == '\\' || C == '?') {
      char Buf[8];
      std::snprintf(Buf, sizeof(Buf), "\\%03o", U);
      Out += Buf;
    } else {
      Out += C;
    }
  }
  return Out + "\"";
}

} // namespace

std::string skeletonName(const std::string &Path) {
  std::string Base =
      Path.substr(Path.find_last_of('/') == std::string::npos ? 0 : Path.find_last_of('/') + 1);
  Base = Base.substr(0, Base.find('.'));
  std::string Out;
  for (char C : Base)
    Out += std::isalnum(static_cast<unsigned char>(C)) ? C : '_';
  return Out;
}

Expected<std::string> writeSkeleton(const object::ObjectSpec &Obj, const object::ProgramSpec &Prog,
                                    const std::vector<uint8_t> &Image, const std::string &Name,
                                    std::vector<std::string> &Notes) {
  if (!isIdentifier(Name))
    return Error("skeleton name '" + Name +
                 "' is not a C identifier (name one with --skeleton-name)");
  const std::string S = Name + "_gpu";
  std::set<std::string> Members;
  for (const object::MapSpec &M : Obj.Maps)
    if (!isIdentifier(memberName(M.Name)) || !Members.insert(memberName(M.Name)).second)
      return Error("map '" + M.Name + "': its C name '" + memberName(M.Name) +
                   "' is no identifier or is another map's too");

  // Global data: a struct of its variables from BTF, or of its bytes.
  std::optional<loader::BtfTypes> Btf;
  if (!Obj.Btf.empty()) {
    auto B = loader::BtfTypes::read(Obj.Btf);
    if (!B)
      Notes.push_back(B.error().message() + "; global data as bytes");
    else
      Btf = std::move(*B);
  } else {
    Notes.push_back("the object has no BTF (built without -g?): global data as bytes");
  }
  std::optional<loader::BtfCWriter> W;
  if (Btf)
    W.emplace(*Btf);
  std::string Sections;
  for (const object::MapSpec &M : Obj.Maps) {
    if (M.Origin != platform::MapOrigin::GlobalData)
      continue;
    std::string Type = S + "__" + memberName(M.Name);
    std::optional<std::string> Typed;
    if (W)
      Typed = W->dataSectionStruct(Btf->dataSection(M.Name), M.ValueSize, Type, M.Variables);
    if (!Typed) {
      if (Btf)
        Notes.push_back("section " + M.Name + ": no BTF description C can write; as bytes");
      Typed = "struct " + Type + " {\n  unsigned char __bytes[" + std::to_string(M.ValueSize) +
              "];\n};\n";
    }
    Sections += *Typed;
  }

  std::string Guard = "EBPF_GPU_SKEL_";
  for (char C : S)
    Guard += char(std::toupper(static_cast<unsigned char>(C)));
  std::string O;
  O += "/* Skeleton of " + Obj.Path + " (program " + Prog.Name + "), written by ebpf-gpu-cc\n"
       " * --emit=skeleton: do not edit. C99 or C++; link with libebpf-gpu\n"
       " * (docs/API.md, \"Skeletons\"). */\n";
  O += "#ifndef " + Guard + "_H\n#define " + Guard + "_H\n\n";
  O += "#include <errno.h>\n#include <stdbool.h>\n#include <stddef.h>\n#include <stdlib.h>\n"
       "#include <string.h>\n\n"
       "#include <ebpf-gpu/ebpf-gpu.h>\n\n";
  if (W && !W->definitions().empty())
    O += W->definitions() + "\n";
  O += Sections + "\n";

  O += "struct " + S + " {\n  struct ebpf_gpu_prog *prog;\n  struct {\n";
  for (const object::MapSpec &M : Obj.Maps)
    O += "    struct ebpf_gpu_map *" + memberName(M.Name) + ";\n";
  O += "  } maps;\n  struct {\n    struct ebpf_gpu_prog *" + memberName(Prog.Name) +
       ";\n  } progs;\n";
  for (const object::MapSpec &M : Obj.Maps)
    if (M.Origin == platform::MapOrigin::GlobalData)
      O += "  struct " + S + "__" + memberName(M.Name) + " *" + memberName(M.Name) + ";\n";
  O += "};\n\n";

  O += "static inline const void *" + S + "__elf_bytes(size_t *sz)\n{\n"
       "  static const unsigned char data[] = " + initialiser(Image) + ";\n"
       "  *sz = sizeof(data);\n  return data;\n}\n\n";

  O += "static inline void " + S + "__destroy(struct " + S + " *skel)\n{\n"
       "  if (!skel)\n    return;\n  ebpf_gpu_prog__close(skel->prog);\n  free(skel);\n}\n\n";

  O += "/* Opens the embedded object for program " + Prog.Name + " with `opts`' back end\n"
       " * (NULL: the default, the host); global data may be written until\n"
       " * __load. NULL with errno set; ebpf_gpu_last_error() says why. */\n";
  O += "static inline struct " + S + " *" + S + "__open_opts(const struct ebpf_gpu_load_opts *opts)\n"
       "{\n  struct ebpf_gpu_load_opts o;\n  struct " + S + " *skel;\n  size_t sz;\n"
       "  const void *data = " + S + "__elf_bytes(&sz);\n  int err;\n\n"
       "  memset(&o, 0, sizeof(o));\n"
       "  if (opts)\n    memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));\n"
       "  o.sz = sizeof(o);\n  o.program = " + quoted(Prog.Name) + ";\n"
       "  skel = (struct " + S + " *)calloc(1, sizeof(*skel));\n"
       "  if (!skel) {\n    errno = ENOMEM;\n    return NULL;\n  }\n"
       "  skel->prog = ebpf_gpu_prog__open_mem(data, sz, " + quoted(Obj.Path.substr(Obj.Path.find_last_of('/') + 1)) +
       ", &o);\n  if (!skel->prog)\n    goto err;\n";
  for (const object::MapSpec &M : Obj.Maps)
    O += "  skel->maps." + memberName(M.Name) + " = ebpf_gpu_prog__find_map_by_name(skel->prog, " +
         quoted(M.Name) + ");\n  if (!skel->maps." + memberName(M.Name) + ")\n    goto err;\n";
  O += "  skel->progs." + memberName(Prog.Name) + " = skel->prog;\n";
  for (const object::MapSpec &M : Obj.Maps)
    if (M.Origin == platform::MapOrigin::GlobalData)
      O += "  skel->" + memberName(M.Name) + " = (struct " + S + "__" + memberName(M.Name) +
           " *)ebpf_gpu_map__data(skel->maps." + memberName(M.Name) + ", NULL);\n  if (!skel->" +
           memberName(M.Name) + ")\n    goto err;\n";
  O += "  return skel;\nerr:\n  err = errno;\n  " + S + "__destroy(skel);\n  errno = err;\n"
       "  return NULL;\n}\n\n";

  O += "static inline struct " + S + " *" + S + "__open(void)\n{\n  return " + S +
       "__open_opts(NULL);\n}\n\n";
  O += "/* Verifies, compiles and loads it (0 or a negative errno); the global\n"
       " * data pointers stay valid, .rodata read-only from here on. */\n";
  O += "static inline int " + S + "__load(struct " + S + " *skel)\n{\n"
       "  return ebpf_gpu_prog__load_opened(skel->prog);\n}\n\n";
  O += "static inline struct " + S + " *" + S + "__open_and_load(void)\n{\n  struct " + S +
       " *skel = " + S + "__open();\n  int err;\n\n  if (!skel)\n    return NULL;\n"
       "  err = " + S + "__load(skel);\n  if (err) {\n    " + S + "__destroy(skel);\n"
       "    errno = -err;\n    return NULL;\n  }\n  return skel;\n}\n\n";
  O += "#endif /* " + Guard + "_H */\n";
  return O;
}

} // namespace ebpfgpu::tools
