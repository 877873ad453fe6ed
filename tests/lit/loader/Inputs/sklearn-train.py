#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# scikit-learn models for scripts/model-from-sklearn.py's test, trained on
# the DDoS sample's features (ddos-traffic.py features: 10 integers and the
# packet's true class a line), and sklearn's own predictions to compare
# ebpf-gpu's verdicts with. Deterministic (fixed random_state).
#   sklearn-train.py train KIND TRAIN TEST OUT
#       KIND tree|forest|boosting|mlp fitted on TRAIN, pickled to OUT.pkl;
#       its predict on TEST's features, one class a line, in OUT.pred
#   sklearn-train.py compare PRED PCAP VERDICTS MAPS [--min-agree F]
#       each classified packet's verdict (class 0 passes, the others drop)
#       and the sample's `classes` counts against PRED; with --min-agree
#       (an MLP, quantised), at least that fraction of the packets must
#       agree, else every one. Prints the totals; exit 1 on failure.
import importlib.util
import os
import pickle
import re
import sys

import numpy as np


def load(path):
    data = np.loadtxt(path, dtype=np.int64, ndmin=2)
    return data[:, :10], data[:, 10]


def train(kind, train_path, test_path, out):
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.tree import DecisionTreeClassifier
    X, y = load(train_path)
    model = {
        "tree": lambda: DecisionTreeClassifier(max_depth=8, random_state=1),
        "forest": lambda: RandomForestClassifier(n_estimators=20, max_depth=8, random_state=1),
        "boosting": lambda: GradientBoostingClassifier(n_estimators=15, max_depth=3, random_state=1),
        "mlp": lambda: MLPClassifier(hidden_layer_sizes=(16, 8), max_iter=600, random_state=1),
    }[kind]()
    model.fit(X, y)
    with open(out + ".pkl", "wb") as f:
        pickle.dump(model, f)
    Xt, _ = load(test_path)
    np.savetxt(out + ".pred", model.predict(Xt), fmt="%d")


def compare(pred_path, pcap, verdicts, maps, min_agree):
    spec = importlib.util.spec_from_file_location(
        "ddos_traffic", os.path.join(os.path.dirname(os.path.abspath(__file__)), "ddos-traffic.py"))
    dt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dt)
    pred = [int(line) for line in open(pred_path) if line.strip()]
    feats = dt.features(list(dt.packets(pcap)))
    got = [line.split() for line in open(verdicts) if line.strip()]
    classified = [i for i, x in enumerate(feats) if x is not None]
    if len(classified) != len(pred) or len(got) != len(feats):
        print("%d predictions, %d classified packets, %d verdicts" % (len(pred), len(classified), len(got)))
        return 1
    agree = sum(("XDP_PASS" if p == 0 else "XDP_DROP") in got[i] for i, p in zip(classified, pred))
    text = open(maps).read()
    counts = {int(k): int(v) for k, v in re.findall(r"^classes\[(\d+)\] = (\d+)$", text, re.M)}
    want = {c: pred.count(c) for c in set(pred)}
    same_counts = {k: v for k, v in counts.items() if v} == want
    print("sklearn: %d of %d classified packets agree, class counts %s" %
          (agree, len(pred), "equal" if same_counts else "differ: %s, sklearn %s" %
           (sorted(counts.items()), sorted(want.items()))))
    if min_agree is None:
        return 0 if agree == len(pred) and same_counts else 1
    return 0 if agree >= min_agree * len(pred) else 1


def main(argv):
    if len(argv) == 6 and argv[1] == "train":
        train(*argv[2:])
        return 0
    if len(argv) in (6, 8) and argv[1] == "compare":
        return compare(*argv[2:6], float(argv[7]) if len(argv) == 8 else None)
    print("usage: see the file's header", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
