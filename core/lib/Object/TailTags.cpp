// SPDX-License-Identifier: Apache-2.0
//
// Program array slots an object names in its BTF, as Cilium's modern
// builds do: `__declare_tail(ID)` puts a declaration tag
// "tail:MAP/SLOT" on the tail program's function (cilium/ebpf's loader
// fills MAP's slot SLOT with that program when it loads the collection).

#include "ElfFile.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <cctype>
#include <cstdlib>
#include <memory>

namespace ebpfgpu::object {

std::vector<TailTag> readTailTags(const std::vector<uint8_t> &Btf) {
  std::vector<TailTag> Out;
  if (Btf.empty())
    return Out;
  std::unique_ptr<struct btf, void (*)(struct btf *)> B(
      btf__new(Btf.data(), uint32_t(Btf.size())), btf__free);
  if (!B || libbpf_get_error(B.get()))
    return Out;
  for (uint32_t Id = 1; Id < btf__type_cnt(B.get()); ++Id) {
    const struct btf_type *T = btf__type_by_id(B.get(), Id);
    if (!btf_is_decl_tag(T) || btf_decl_tag(T)->component_idx != -1)
      continue;
    const struct btf_type *F = btf__type_by_id(B.get(), T->type);
    const char *Tag = btf__name_by_offset(B.get(), T->name_off);
    const char *Func = F && btf_is_func(F) ? btf__name_by_offset(B.get(), F->name_off) : nullptr;
    if (!Tag || !Func || std::string(Tag).rfind("tail:", 0) != 0)
      continue;
    std::string Rest = Tag + 5;
    size_t Slash = Rest.rfind('/');
    if (Slash == std::string::npos || Slash == 0 || Slash + 1 == Rest.size() ||
        !std::isdigit(static_cast<unsigned char>(Rest[Slash + 1])))
      continue;
    char *End = nullptr;
    unsigned long Slot = std::strtoul(Rest.c_str() + Slash + 1, &End, 10);
    if (*End || Slot > UINT32_MAX)
      continue;
    Out.push_back({Rest.substr(0, Slash), uint32_t(Slot), Func});
  }
  return Out;
}

} // namespace ebpfgpu::object
