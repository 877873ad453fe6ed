set -u
CARRY=.fwd-carry
mkdir -p /tmp/fwd && tar -xJf $CARRY/dpdk.tar.xz -C /tmp/fwd
echo 4096 >/proc/sys/vm/nr_hugepages 2>/dev/null || true
mkdir -p /mnt/huge && (mountpoint -q /mnt/huge || mount -t hugetlbfs nodev /mnt/huge) || true
run() {
  LD_LIBRARY_PATH=/tmp/fwd/lib timeout 60 /tmp/fwd/ebpf-gpu-loader forward $CARRY/programs/port_filter.gpu.o --backend gpu --port gen --gen-pcap $CARRY/traffic.pcap --gen-frame 64 --gen-lcores 2 --queues 1 --duration-ms 1000 --gpu-data mapped --zero-copy --json "$@" 2>/tmp/err | python3 -c "
import json,sys; r=json.load(sys.stdin); l=r['batch_latency_us']; w=r['worker_ns']; n=r['packets']; b=r['batches']
print('%-80s %7.2f Mpps p50 %6.1f p99 %6.1f  per batch: submit %.1f wait %.1f act %.1f us  gpu rt %s' % (' '.join(sys.argv[1:]), n/r['busy_seconds']/1e6, l['p50'], l['p99'], w['submit']/b/1e3, w['wait']/b/1e3, w['act']/b/1e3, r.get('gpu_round_trip_us')))" "$@" || cat /tmp/err
}
for b in 1 132; do for n in 32; do run --gpu-mode persistent --gpu-blocks $b --batch $n --timeout-us 5 --depth 1; done; done
for n in 32 256; do run --gpu-mode launch --batch $n --timeout-us 5 --depth 1; done
run --gpu-mode persistent --batch 32 --timeout-us 5 --depth 1 --gen-replay
run --gpu-mode persistent --batch 32 --timeout-us 5 --depth 1 --gpu-blocks 1 --gen-replay
