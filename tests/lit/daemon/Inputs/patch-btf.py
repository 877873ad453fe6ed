# SPDX-License-Identifier: Apache-2.0
#
# Damages an eBPF object's .BTF section on purpose (a hostile or broken
# object, for the BTF pretty-printer behind the daemon's map dump):
#   patch-btf.py IN.o OUT.o name OLD NEW
#       a name in the string table becomes NEW (same length; \xNN escapes)
#   patch-btf.py IN.o OUT.o member NAME OFFSET
#       the struct member named NAME gets the bit offset OFFSET
#   patch-btf.py IN.o OUT.o int NAME ENCODING
#       the integer type named NAME gets the encoding word ENCODING
import struct
import sys

KIND_INT, KIND_STRUCT, KIND_UNION = 1, 4, 5


def btf_section(data):
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = heads[shstrndx]
    for h in heads:
        name = data[names[4] + h[0]:data.index(b"\0", names[4] + h[0])]
        if name == b".BTF":
            return h[4], h[5]
    sys.exit("no .BTF section")


def trailer(kind, vlen):
    if kind == KIND_INT:
        return 4
    if kind in (KIND_STRUCT, KIND_UNION):
        return 12 * vlen
    return {3: 12, 6: 8 * vlen, 13: 8 * vlen, 14: 4, 15: 12 * vlen, 17: 4, 19: 12 * vlen}.get(kind, 0)


def main():
    src, dst, mode, what, arg = sys.argv[1:6]
    data = bytearray(open(src, "rb").read())
    base, size = btf_section(data)
    hdr_len, = struct.unpack_from("<I", data, base + 4)
    type_off, type_len, str_off, str_len = struct.unpack_from("<IIII", data, base + 8)
    types, strs = base + hdr_len + type_off, base + hdr_len + str_off
    if mode == "name":
        old = what.encode()
        new = arg.encode().decode("unicode_escape").encode("latin-1")
        if len(new) != len(old):
            sys.exit("OLD and NEW must have the same length")
        at = data.find(b"\0" + old + b"\0", strs, strs + str_len)
        if at < 0:
            sys.exit(f"no name {what} in .BTF")
        data[at + 1:at + 1 + len(old)] = new
    else:
        name_off = data.find(b"\0" + what.encode() + b"\0", strs, strs + str_len) + 1 - strs
        if name_off <= 0:
            sys.exit(f"no name {what} in .BTF")
        at, done = types, False
        while at < types + type_len and not done:
            name, info, _ = struct.unpack_from("<III", data, at)
            kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
            if mode == "int" and kind == KIND_INT and name == name_off:
                struct.pack_into("<I", data, at + 12, int(arg, 0))
                done = True
            if mode == "member" and kind in (KIND_STRUCT, KIND_UNION):
                for m in range(vlen):
                    rec = at + 12 + 12 * m
                    if struct.unpack_from("<I", data, rec)[0] == name_off:
                        struct.pack_into("<I", data, rec + 8, int(arg, 0))
                        done = True
            at += 12 + trailer(kind, vlen)
        if not done:
            sys.exit(f"no {mode} named {what}")
    open(dst, "wb").write(data)


if __name__ == "__main__":
    main()
