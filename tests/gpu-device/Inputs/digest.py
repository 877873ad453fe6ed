# SPDX-License-Identifier: Apache-2.0
#
# The GPU's results against the host back end's, whose digests
# `scripts/gpu-check.sh prepare` made from the host's run on the same
# traffic. Exit 1 if anything differs.
#   digest.py EXPECTED FILE...
#       the files hashed one after the other (as `cat FILE... | sha256sum`)
#       against the digest in EXPECTED
#   digest.py --like-host HOST OURS
#       OURS.txt, OURS.pcap and OURS.maps (verdicts, output packets, maps)
#       each against HOST.txt.sha256, HOST.pcap.sha256 and HOST.maps.sha256
import hashlib
import sys


def same(expected_file, files):
    h = hashlib.sha256()
    for name in files:
        with open(name, "rb") as f:
            h.update(f.read())
    with open(expected_file) as f:
        expected = f.read().strip()
    if h.hexdigest() == expected:
        print(f"same as the host's ({expected_file}: {expected})")
        return True
    print(f"DIFFERS from the host's: {h.hexdigest()} over {' '.join(files)}, "
          f"host {expected} ({expected_file})")
    return False


def main(argv):
    if argv[0] == "--like-host":
        host, ours = argv[1], argv[2]
        results = [same(f"{host}.{kind}.sha256", [f"{ours}.{kind}"]) for kind in ("txt", "pcap", "maps")]
        return 0 if all(results) else 1
    return 0 if same(argv[0], argv[1:]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
