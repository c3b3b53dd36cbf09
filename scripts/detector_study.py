"""Compare model families for the capture classifier, leave-one-repository-out.

Reads the prompts `examples/export_prompts.rs` prints (repository, set-aside flag, learning moment or
not, the shipped feature indices, the user's text) and scores each family the way
`scripts/eval-detectors` scores the shipped model: every repository by a model trained without it,
pooled. A family is a ranking of prompts, so it is judged by its whole precision/recall curve, not at
one threshold: average precision, the best precision at the issue's recall floor, the best recall at
its precision floor, pooled and on the set-aside third.
"""

import json
import sys

import numpy as np
from scipy.sparse import csr_matrix, hstack
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score

# The floors: pooled, then on the set-aside third.
FLOORS = {"pooled": (0.85, 0.45), "set aside": (0.80, 0.40)}
# Precision is not read off fewer predictions than this (the first few are luck).
MIN_PREDICTED = 10


def main(path):
    prompts = [json.loads(line) for line in open(path, encoding="utf-8")]
    y = np.array([p["moment"] for p in prompts])
    repos = np.array([p["repo"] for p in prompts])
    aside = np.array([p["set_aside"] for p in prompts])
    width = 1 + max(i for p in prompts for i in p["features"])
    rows = [r for r, p in enumerate(prompts) for _ in p["features"]]
    cols = [i for p in prompts for i in p["features"]]
    features = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(prompts), width))
    texts = [p["text"][:600].lower() for p in prompts]
    words = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True).fit_transform(texts)
    chars = TfidfVectorizer(
        analyzer="char_wb", ngram_range=(2, 5), min_df=3, sublinear_tf=True, max_features=200_000
    ).fit_transform(texts)
    linear = lambda: LogisticRegression(C=1.0, max_iter=3000)
    families = [
        ("shipped features, logistic (the shipped model's family)", features, linear),
        ("word 1-2-grams, logistic", words, linear),
        ("character 2-5-grams, logistic", chars, linear),
        ("features + word 1-2-grams, logistic", hstack([features, words]).tocsr(), linear),
        ("features + character 2-5-grams, logistic", hstack([features, chars]).tocsr(), linear),
        (
            "features, gradient-boosted trees (pairs and triples of features)",
            features.toarray(),
            lambda: HistGradientBoostingClassifier(
                learning_rate=0.05, max_iter=200, max_leaf_nodes=15, l2_regularization=1.0
            ),
        ),
    ]
    print(f"{len(prompts)} prompts, {y.sum()} learning moments, {len(set(repos))} repositories "
          f"({aside.sum()} prompts set aside)\n")
    header = "  ".join(f"{name:>30}" for name in FLOORS)
    print(f"{'family':66}{header}")
    for name, x, make in families:
        scores = np.zeros(len(y))
        for repo in sorted(set(repos)):
            held = repos == repo
            scores[held] = make().fit(x[~held], y[~held]).predict_proba(x[held])[:, 1]
        cells = []
        for which, (p_floor, r_floor) in FLOORS.items():
            keep = aside if which == "set aside" else np.ones(len(y), bool)
            cells.append(curve(y[keep], scores[keep], p_floor, r_floor))
        print(f"{name:66}" + "  ".join(f"{c:>30}" for c in cells), flush=True)
    print("\nEach cell: average precision | best precision at the recall floor | best recall at the "
          "precision floor\n(floors: pooled P 0.85 / R 0.45, set aside P 0.80 / R 0.40).")


def curve(y, scores, p_floor, r_floor):
    """AP, the best precision at recall >= r_floor, the best recall at precision >= p_floor."""
    order = np.argsort(-scores, kind="stable")
    hits = np.cumsum(y[order])
    predicted = np.arange(1, len(order) + 1)
    precision, recall = hits / predicted, hits / max(y.sum(), 1)
    trusted = predicted >= MIN_PREDICTED
    p_at = precision[recall >= r_floor].max(initial=0.0)
    r_at = recall[trusted & (precision >= p_floor)].max(initial=0.0)
    return f"AP {average_precision_score(y, scores):.2f} | P {p_at:.2f} | R {r_at:.2f}"


if __name__ == "__main__":
    main(sys.argv[1])
