#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian package as a user gets it: `cpack -G DEB` of the build, then
# its file list (the tools, libebpf-gpu with its soname links, both
# headers, the pkg-config file, the CMake package, the systemd unit naming
# the packaged loader) and its Depends: every library a packaged binary
# links (NEEDED) comes from a Debian package that Depends names, or from
# the package itself; a header built against the unpacked tree links.
#   deb.sh BUILD-DIR WORK-DIR
set -euo pipefail
build=$1 work=$2
command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null ||
  { echo "dpkg-deb and dpkg-shlibdeps are needed (apt-get install dpkg-dev)"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; echo "FAIL: cpack"; exit 1; }
debs=("$work"/*.deb)
[[ ${#debs[@]} == 1 && -f ${debs[0]} ]] || { echo "FAIL: cpack made ${debs[*]}"; exit 1; }
deb=${debs[0]}
echo "package: $(basename "$deb")"
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$work/files"
for re in '^/usr/bin/ebpf-gpu-cc$' '^/usr/bin/ebpf-gpu-loader$' '^/usr/bin/ebpf-gpu-trafgen$' \
  '^/usr/include/ebpf-gpu/ebpf-gpu\.h$' '^/usr/include/ebpf-gpu/ebpf-gpu-dpdk\.h$' \
  '^/usr/lib/([a-z0-9_-]+/)?libebpf-gpu\.so\.0\.[0-9.]+$' '^/usr/lib/([a-z0-9_-]+/)?libebpf-gpu\.so\.0$' \
  '^/usr/lib/([a-z0-9_-]+/)?libebpf-gpu\.so$' '^/usr/lib/([a-z0-9_-]+/)?pkgconfig/ebpf-gpu\.pc$' \
  '^/usr/lib/([a-z0-9_-]+/)?cmake/ebpf-gpu/ebpf-gpuConfig\.cmake$' \
  '^/usr/lib/systemd/system/ebpf-gpu-daemon\.service$'; do
  grep -Eq "$re" "$work/files" || { echo "FAIL: no file matching $re in the package"; exit 1; }
done
echo "files: tools, library, headers, pkg-config, CMake package, systemd unit ($(wc -l <"$work/files") entries)"

dpkg-deb -x "$deb" "$work/root"
grep -q '^ExecStart=/usr/bin/ebpf-gpu-loader daemon ' "$work/root/usr/lib/systemd/system/ebpf-gpu-daemon.service" ||
  { echo "FAIL: the unit's ExecStart is not /usr/bin/ebpf-gpu-loader"; exit 1; }
if file "$work/root/usr/bin/ebpf-gpu-cc" | grep -q 'not stripped'; then
  echo "FAIL: the packaged tools are not stripped"; exit 1
fi

depends=$(dpkg-deb -f "$deb" Depends)
[[ -n $depends ]] || { echo "FAIL: no Depends"; exit 1; }
# The packages named in Depends ("libbpf1 (>= 1:0.7), libc6 (>= 2.34), ...").
tr ',|' '\n\n' <<<"$depends" | awk '{print $1}' | sort -u >"$work/depends"
missing=0 checked=0
while read -r bin; do
  for lib in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    [[ -n $(find "$work/root" -name "$lib") ]] && continue # the package's own
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l && !p {print $NF; p = 1}')
    [[ -n $path ]] || path=$(find /usr/lib/llvm-19/lib -name "$lib" | head -1)
    pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1) ||
      pkg=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1)
    [[ -n $pkg ]] || { echo "FAIL: $lib ($bin) is in no Debian package"; missing=1; continue; }
    checked=$((checked + 1))
    grep -qx "$pkg" "$work/depends" ||
      { echo "FAIL: $(basename "$bin") links $lib of $pkg, which Depends does not name"; missing=1; }
  done
done < <(find "$work/root/usr/bin" "$work/root/usr/lib" -type f \( -perm -u+x -o -name '*.so*' \))
[[ $missing == 0 ]] || { echo "Depends: $depends"; exit 1; }
echo "depends: $(wc -l <"$work/depends") packages, covering the $checked libraries the binaries link"
grep -qx libllvm19 "$work/depends" || { echo "FAIL: no libllvm19 in Depends: $depends"; exit 1; }

# The unpacked tree serves a C program: header, library, pkg-config file.
pc=$(dirname "$(find "$work/root" -name ebpf-gpu.pc | head -1)")
cat >"$work/hello.c" <<'C'
#include <ebpf-gpu/ebpf-gpu.h>
#include <stdio.h>
int main(void) {
  printf("%s\n", ebpf_gpu_prog__load("/nonexistent.o", NULL) ? "loaded" : ebpf_gpu_last_error());
  return 0;
}
C
# shellcheck disable=SC2046  # pkg-config's flags are words
cc -Wall -Werror "$work/hello.c" $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs ebpf-gpu) \
  -Wl,-rpath,"$(PKG_CONFIG_PATH=$pc pkg-config --variable=libdir ebpf-gpu)" -o "$work/hello"
[[ $("$work/hello") == "/nonexistent.o: "* ]] || { echo "FAIL: the unpacked library"; exit 1; }
echo "unpacked: a C program built with its pkg-config file and run"
