# SPDX-License-Identifier: Apache-2.0
#
# Replaces a name in an eBPF object's .BTF string table with bytes of the
# same length (a damaged or hostile object, for the BTF pretty-printer):
#   patch-btf-name.py IN.o OUT.o OLD NEW      (NEW may hold \xNN escapes)
import struct
import sys


def main():
    src, dst, old = sys.argv[1], sys.argv[2], sys.argv[3].encode()
    new = sys.argv[4].encode().decode("unicode_escape").encode("latin-1")
    if len(new) != len(old):
        sys.exit("OLD and NEW must have the same length")
    data = bytearray(open(src, "rb").read())
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = heads[shstrndx]
    for h in heads:
        name = data[names[4] + h[0]:data.index(b"\0", names[4] + h[0])]
        if name != b".BTF":
            continue
        at = data.find(b"\0" + old + b"\0", h[4], h[4] + h[5])
        if at < 0:
            sys.exit(f"no name {old.decode()} in .BTF")
        data[at + 1:at + 1 + len(old)] = new
        open(dst, "wb").write(data)
        return
    sys.exit("no .BTF section")


if __name__ == "__main__":
    main()
