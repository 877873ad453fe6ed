#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Writes a model file for ebpf-gpu's model maps (the kfunc ebpf_gpu_classify;
# the format is docs/KFUNCS.md's) from a fitted scikit-learn classifier,
# saved with pickle:
#   model-from-sklearn.py MODEL.pkl [-o OUT] [--calibrate FEATURES]
# Trees: DecisionTreeClassifier (each leaf votes for its majority class:
# the same class as predict for every integer input), RandomForestClassifier
# (each leaf's class probabilities times 2^16, rounded: predict's average,
# except where two classes' averages lie within 2^-16 of each other) and
# GradientBoostingClassifier (the initial scores and each tree's values
# times the learning rate times 2^16, rounded). Thresholds become integers:
# for an integer feature x, x <= t is x <= floor(t). MLPClassifier (ReLU
# hidden layers, at most 3, 64 wide) is quantised to int8: FEATURES (one
# line of integer features a sample, as the model will see them, extra
# columns ignored) gives each feature's range, hence its input shift, and
# each layer's activation range, hence its shift; each layer's weights are
# scaled so that the largest is 127. A quantised MLP's class can differ
# from predict's near its decision boundaries: compare them on your data.
# Needs scikit-learn and numpy (Debian: python3-sklearn).
import argparse
import math
import pickle
import sys

import numpy as np

SCALE = 1 << 16
INT32 = (-(1 << 31), (1 << 31) - 1)
MAX_BIAS = 1 << 24


def clamp32(v):
    return max(INT32[0], min(INT32[1], int(v)))


def tree_lines(tree, leaf_scores):
    """A sklearn tree_'s nodes (their own preorder numbering: children come
    after their parent) as node and leaf lines."""
    out = []
    for i in range(tree.node_count):
        left, right = tree.children_left[i], tree.children_right[i]
        if left == -1:
            out.append("leaf %d %s" % (i, " ".join(str(clamp32(s)) for s in leaf_scores(i))))
        else:
            out.append("node %d %d %d %d %d" % (i, tree.feature[i],
                                                clamp32(math.floor(tree.threshold[i])), left, right))
    return out


def head(nfeatures, nclasses, kind, what):
    return ["ebpf-gpu-model 1", "# written by scripts/model-from-sklearn.py from a " + what,
            "features %d" % nfeatures, "classes %d" % nclasses, kind]


def from_trees(model):
    name = type(model).__name__
    n = len(model.classes_)
    if n > 16:
        sys.exit("model-from-sklearn: %d classes; a model map holds at most 16" % n)
    lines = head(model.n_features_in_, n, "trees", name)
    if name == "DecisionTreeClassifier":
        t = model.tree_
        lines += ["tree"] + tree_lines(
            t, lambda i: [1 if c == int(np.argmax(t.value[i][0])) else 0 for c in range(n)])
    elif name == "RandomForestClassifier":
        for est in model.estimators_:
            t = est.tree_

            def prob(i, t=t):
                v = t.value[i][0]
                return [round(SCALE * x / v.sum()) for x in v]
            lines += ["tree"] + tree_lines(t, prob)
    elif name == "GradientBoostingClassifier":
        if model.init_ == "zero":
            init = np.zeros(model.estimators_.shape[1])
        else:
            init = model._raw_predict_init(np.zeros((1, model.n_features_in_)))[0]
        lr = model.learning_rate
        if model.estimators_.shape[1] == 1:  # two classes: one raw score, class 1 when > 0
            lines.append("bias 0 %d" % clamp32(round(SCALE * init[0])))
            for stage in model.estimators_:
                t = stage[0].tree_
                lines += ["tree"] + tree_lines(t, lambda i, t=t: [0, round(SCALE * lr * t.value[i][0][0])])
        else:
            lines.append("bias " + " ".join(str(clamp32(round(SCALE * x))) for x in init))
            for stage in model.estimators_:
                for k, est in enumerate(stage):
                    t = est.tree_
                    lines += ["tree"] + tree_lines(
                        t, lambda i, t=t, k=k: [round(SCALE * lr * t.value[i][0][0]) if c == k else 0
                                                for c in range(n)])
    return lines


def shift_for(vmax, limit=127):
    """The least right shift that brings vmax to at most `limit`."""
    s = 0
    while s < 31 and (int(vmax) >> s) > limit:
        s += 1
    return s


def from_mlp(model, calib):
    if model.activation != "relu":
        sys.exit("model-from-sklearn: MLPClassifier with activation '%s'; only relu is quantised"
                 % model.activation)
    if calib is None:
        sys.exit("model-from-sklearn: an MLP needs --calibrate FEATURES (its inputs' ranges)")
    nf = model.n_features_in_
    n = len(model.classes_)
    if len(model.coefs_) > 4 or any(c.shape[1] > 64 for c in model.coefs_) or nf > 64:
        sys.exit("model-from-sklearn: a model map's MLP has at most 4 layers of 64")
    X = calib[:, :nf]
    in_shift = [shift_for(np.abs(X[:, i]).max()) for i in range(nf)]
    lines = head(nf, n, "mlp", "MLPClassifier") + ["input " + " ".join(map(str, in_shift))]
    # The float network on the calibration data: each layer's activations.
    acts = [X.astype(np.float64)]
    for li, (W, b) in enumerate(zip(model.coefs_, model.intercepts_)):
        z = acts[-1] @ W + b
        acts.append(np.maximum(z, 0) if li + 1 < len(model.coefs_) else z)
    # in_unit: what one unit of the layer's int8 input is worth in the
    # float network (the first layer's: 2^shift of each feature).
    in_unit = np.array([float(1 << s) for s in in_shift])
    layers = list(zip(model.coefs_, model.intercepts_))
    for li, (W, b) in enumerate(layers):
        last = li + 1 == len(layers)
        Wq = W * in_unit[:, None]  # weights on the int8 inputs
        a = 127.0 / max(np.abs(Wq).max(), 1e-12)
        w8 = np.clip(np.round(Wq * a), -128, 127).astype(int)
        b32 = np.clip(np.round(b * a), -MAX_BIAS, MAX_BIAS).astype(int)
        if last:
            shift = 0
        else:
            hmax = max(acts[li + 1].max(), 1e-12)  # the ReLU's largest on the data
            shift = shift_for(a * hmax)
        out_w, out_b = w8.T, b32  # rows: one per output
        if last and n == 2 and W.shape[1] == 1:  # logistic: class 1 when the logit > 0
            out_w = np.vstack([np.zeros_like(out_w), out_w])
            out_b = np.concatenate([[0], out_b])
        lines.append("layer %d %d %d" % (W.shape[0], out_w.shape[0], shift))
        for j in range(out_w.shape[0]):
            lines.append(" ".join([str(out_b[j])] + [str(v) for v in out_w[j]]))
        in_unit = np.full(W.shape[1], (1 << shift) / a)
    return lines


def main():
    p = argparse.ArgumentParser(description="A model file for ebpf-gpu's model maps from a "
                                "pickled scikit-learn classifier (docs/KFUNCS.md).")
    p.add_argument("model", help="a fitted classifier saved with pickle")
    p.add_argument("-o", "--output", default="-", help="the model file (default: stdout)")
    p.add_argument("--calibrate", help="MLPs: integer features, one sample a line")
    a = p.parse_args()
    with open(a.model, "rb") as f:
        model = pickle.load(f)
    name = type(model).__name__
    if name in ("DecisionTreeClassifier", "RandomForestClassifier", "GradientBoostingClassifier"):
        lines = from_trees(model)
    elif name == "MLPClassifier":
        calib = np.loadtxt(a.calibrate, dtype=np.int64, ndmin=2) if a.calibrate else None
        lines = from_mlp(model, calib)
    else:
        sys.exit("model-from-sklearn: %s is not one of DecisionTreeClassifier, "
                 "RandomForestClassifier, GradientBoostingClassifier, MLPClassifier" % name)
    text = "\n".join(lines) + "\n"
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
