#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Asks the running kernel about an XDP object whose program is bound to a
device (prog_ifindex + BPF_F_XDP_DEV_BOUND_ONLY, as the XDP RX metadata
kfuncs need): a veth pair made in a private network namespace (the
machine's own devices are not touched) is the device. Prints
"the kernel ACCEPTED OBJ (bound to a veth)" and exits 0, or "the kernel's
verifier refused OBJ: REASON" (the log's last line before its statistics)
and exits 1; with --test-run, also BPF_PROG_TEST_RUN's answer for the
loaded program ("test run: 0" or "test run: -22 (Invalid argument)").
Exits 2 when the kernel was not asked (libbpf could not open OBJ, no veth).
Pins nothing."""
import ctypes
import os
import socket
import subprocess
import sys

if len(sys.argv) < 2:
    sys.exit("usage: kernel-dev-bound.py OBJ [--test-run]")
obj = sys.argv[1]
if "EBPF_GPU_IN_NETNS" not in os.environ:
    env = dict(os.environ, EBPF_GPU_IN_NETNS="1")
    sys.exit(subprocess.call(["unshare", "-n", sys.executable] + sys.argv, env=env))

if subprocess.call(["ip", "link", "add", "xm0", "type", "veth", "peer", "name", "xm1"]):
    print("the kernel was not asked: no veth pair")
    sys.exit(2)
lib = ctypes.CDLL("libbpf.so.1", use_errno=True)
lib.bpf_object__open_file.restype = ctypes.c_void_p
lib.bpf_object__open_file.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
lib.libbpf_get_error.argtypes = [ctypes.c_void_p]
lib.libbpf_get_error.restype = ctypes.c_long
lib.bpf_object__next_program.restype = ctypes.c_void_p
lib.bpf_object__next_program.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
lib.bpf_program__set_ifindex.argtypes = [ctypes.c_void_p, ctypes.c_uint]
lib.bpf_program__flags.argtypes = [ctypes.c_void_p]
lib.bpf_program__flags.restype = ctypes.c_uint
lib.bpf_program__set_flags.argtypes = [ctypes.c_void_p, ctypes.c_uint]
lib.bpf_program__set_log_buf.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
lib.bpf_program__set_log_level.argtypes = [ctypes.c_void_p, ctypes.c_uint]
lib.bpf_object__load.argtypes = [ctypes.c_void_p]
lib.bpf_program__fd.argtypes = [ctypes.c_void_p]
lib.bpf_object__close.argtypes = [ctypes.c_void_p]
lib.libbpf_set_print.argtypes = [ctypes.c_void_p]
lib.libbpf_set_print(None)

o = lib.bpf_object__open_file(obj.encode(), None)
if not o or lib.libbpf_get_error(o):
    print(f"the kernel was not asked: libbpf could not open {obj}")
    sys.exit(2)
p = lib.bpf_object__next_program(o, None)
ifindex = socket.if_nametoindex("xm0")
BPF_F_XDP_DEV_BOUND_ONLY = 1 << 6
lib.bpf_program__set_ifindex(p, ifindex)
lib.bpf_program__set_flags(p, lib.bpf_program__flags(p) | BPF_F_XDP_DEV_BOUND_ONLY)
log = ctypes.create_string_buffer(1 << 20)
lib.bpf_program__set_log_buf(p, log, len(log))
lib.bpf_program__set_log_level(p, 1)
err = lib.bpf_object__load(o)
if err:
    lines = [l for l in log.value.decode(errors="replace").splitlines()
             if l and not l.startswith(("processed ", "verification time", "stack depth"))]
    print(f"the kernel's verifier refused {obj}: {lines[-1] if lines else os.strerror(-err)}")
    sys.exit(1)
print(f"the kernel ACCEPTED {obj} (bound to a veth)")
if "--test-run" in sys.argv:
    class Opts(ctypes.Structure):
        # struct bpf_test_run_opts (libbpf 1.x), as far as used here.
        _fields_ = [("sz", ctypes.c_size_t), ("data_in", ctypes.c_void_p),
                    ("data_out", ctypes.c_void_p), ("data_size_in", ctypes.c_uint32),
                    ("data_size_out", ctypes.c_uint32), ("ctx_in", ctypes.c_void_p),
                    ("ctx_out", ctypes.c_void_p), ("ctx_size_in", ctypes.c_uint32),
                    ("ctx_size_out", ctypes.c_uint32), ("retval", ctypes.c_uint32),
                    ("repeat", ctypes.c_int), ("duration", ctypes.c_uint32),
                    ("flags", ctypes.c_uint32), ("cpu", ctypes.c_uint32),
                    ("batch_size", ctypes.c_uint32)]
    pkt = ctypes.create_string_buffer(64)
    out = ctypes.create_string_buffer(256)
    t = Opts(sz=ctypes.sizeof(Opts), data_in=ctypes.cast(pkt, ctypes.c_void_p),
             data_out=ctypes.cast(out, ctypes.c_void_p), data_size_in=64, data_size_out=256,
             repeat=1)
    lib.bpf_prog_test_run_opts.argtypes = [ctypes.c_int, ctypes.POINTER(Opts)]
    r = lib.bpf_prog_test_run_opts(lib.bpf_program__fd(p), ctypes.byref(t))
    print(f"test run: {r}" + (f" ({os.strerror(-r)})" if r < 0 else f", retval {t.retval}"))
lib.bpf_object__close(o)
