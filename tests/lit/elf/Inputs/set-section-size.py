# SPDX-License-Identifier: Apache-2.0
#
# Sets the size field of a named section's header in a 64-bit
# little-endian ELF object (IN OUT NAME SIZE): what a damaged or hostile
# object may claim, for the tests of the object reader.

import struct
import sys


def main():
    src, dst, name, size = sys.argv[1], sys.argv[2], sys.argv[3].encode(), int(sys.argv[4], 0)
    data = bytearray(open(src, "rb").read())
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    strtab_off, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)
    for i in range(shnum):
        hdr = shoff + i * shentsize
        name_off, = struct.unpack_from("<I", data, hdr)
        start = strtab_off + name_off
        if bytes(data[start:data.index(b"\0", start)]) == name:
            struct.pack_into("<Q", data, hdr + 0x20, size)
            open(dst, "wb").write(data)
            return 0
    sys.stderr.write(f"{src}: no section {name.decode()}\n")
    return 1


if __name__ == "__main__":
    sys.exit(main())
