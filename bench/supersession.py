"""Supersession detection on labelled pairs: fit the judge's weights, cross-validate, evaluate.

The labelled sets are bench/data/supersession/*.json (bench/data/supersession/README.md says who
wrote each and how). Each holds `supersession_pairs` (an older and a newer memory, labelled
`update` when the newer replaces the older, `both_true` when both hold) and `distractors`.

    python -m bench.supersession --cv          # leave one set out: fit on the others, score it
    python -m bench.supersession --train       # fit on the training sets, write the model
    python -m bench.supersession --evaluate    # score the held-out sets with the shipped model

Pairs are scored as the detector scores them (quality.facts: readings, vectors, frames), with a
pair of the newer memory and a random other memory of the same set as an extra negative, as a
stored memory meets unrelated neighbours. A pair the judge does not admit (two speakers, no
evidence of a change: `judging.admissible`) scores 0, as the detector gives it no verdict. The
model is fitted on every pair. Prints JSON.
"""

import argparse
import json
import os
import random
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "supersession"
MODEL = Path(__file__).resolve().parent.parent / "quality" / "facts" / "model.json"
# The sets the model is fitted on are all but these, held out for --evaluate.
HELD_OUT = {"family_and_health"}
NEGATIVES_PER_PAIR = 2
# Shallow trees, few of them, learning slowly: chosen by leave-one-set-out on the training sets.
TREES = {"n_estimators": 100, "max_depth": 4, "learning_rate": 0.05, "subsample": 0.8, "min_samples_leaf": 5}


def sets():
    return {path.stem: json.loads(path.read_text()) for path in sorted(DATA.glob("*.json"))}


def examples(labelled, seed=0):
    """(features, labels, kinds) of a set: its pairs and, as negatives, each newer memory with a
    random other memory of the set and with the distractors nearest to it (the same people and
    projects, other facts), as a stored memory meets its neighbours."""
    from memories import embeddings
    from quality.facts import judging, reading

    pairs = labelled["supersession_pairs"]
    distractors = labelled["distractors"]
    texts = [pair["older"] for pair in pairs] + [pair["newer"] for pair in pairs] + distractors
    vectors = np.array(embeddings.embed_many(texts))
    frames = np.array(embeddings.embed_many([reading.frame(text) for text in texts]))
    readings = [reading.read(text) for text in texts]
    count = len(pairs)
    rows, labels, kinds, admitted = [], [], [], []
    rng = random.Random(seed)

    def add(older, newer, label, kind):
        similarity = float(vectors[older] @ vectors[newer])
        frame_similarity = float(frames[older] @ frames[newer])
        values = judging.features(readings[older], readings[newer], similarity, frame_similarity)
        rows.append(values)
        admitted.append(judging.admissible(readings[older], readings[newer], values))
        labels.append(label)
        kinds.append(kind)

    for index, pair in enumerate(pairs):
        newer = count + index
        add(index, newer, int(pair["label"] == "update"), pair["label"])
        for _ in range(NEGATIVES_PER_PAIR):
            other = rng.randrange(2 * count)
            if other % count != index:
                add(other, newer, 0, "unrelated")
        nearest = sorted(
            range(2 * count, len(texts)), key=lambda other: -float(vectors[other] @ vectors[newer])
        )
        for other in nearest[:NEGATIVES_PER_PAIR]:
            add(other, newer, 0, "near_unrelated")
    return np.array(rows), np.array(labels), kinds, np.array(admitted)


def fit(rows, labels):
    """The gradient-boosted trees (scikit-learn), fitted on these rows."""
    from sklearn.ensemble import GradientBoostingClassifier

    return GradientBoostingClassifier(random_state=0, **TREES).fit(rows, labels)


def exported(model):
    """The fitted model as quality.facts.judging evaluates it: the prior's log-odds, the learning
    rate and each tree's nodes."""
    prior = model.init_.predict_proba(np.zeros((1, model.n_features_in_)))[0, 1]
    trees = []
    for (estimator,) in model.estimators_:
        tree = estimator.tree_
        trees.append(
            {
                "feature": tree.feature.tolist(),
                "threshold": [round(float(value), 6) for value in tree.threshold],
                "left": tree.children_left.tolist(),
                "right": tree.children_right.tolist(),
                "value": [round(float(value), 6) for value in tree.value[:, 0, 0]],
            }
        )
    return {"init": float(np.log(prior / (1 - prior))), "learning_rate": model.learning_rate, "trees": trees}


def scores(probabilities, labels, kinds, threshold):
    predicted = probabilities >= threshold
    hits = predicted & (labels == 1)
    wrong = predicted & (labels == 0)
    return {
        "threshold": threshold,
        "precision": round(int(hits.sum()) / max(1, int(predicted.sum())), 3),
        "recall": round(int(hits.sum()) / max(1, int((labels == 1).sum())), 3),
        "false_positives": {
            kind: int(sum(1 for k, w in zip(kinds, wrong, strict=True) if w and k == kind))
            for kind in ("both_true", "unrelated", "near_unrelated")
        },
    }


def thresholds():
    from django.conf import settings

    return sorted({0.5, settings.SUPERSEDE_MIN_CONFIDENCE, settings.SUPERSEDE_AUTO_CONFIDENCE})


def cross_validate(data):
    training = [name for name in data if name not in HELD_OUT]
    folds, pooled = {}, ([], [], [])
    for held in training:
        others = [name for name in training if name != held]
        model = fit(np.vstack([data[n][0] for n in others]), np.concatenate([data[n][1] for n in others]))
        rows, labels, kinds, admitted = data[held]
        probabilities = model.predict_proba(rows)[:, 1] * admitted
        folds[held] = [scores(probabilities, labels, kinds, threshold) for threshold in thresholds()]
        for collected, part in zip(pooled, (probabilities, labels, kinds), strict=True):
            collected.extend(part)
    probabilities, labels, kinds = np.array(pooled[0]), np.array(pooled[1]), pooled[2]
    return {
        "protocol": "leave one labelled set out: fit on the others, score it",
        "pooled": [scores(probabilities, labels, kinds, threshold) for threshold in thresholds()],
        "folds": folds,
    }


def train(data):
    from quality.facts import judging

    training = [name for name in data if name not in HELD_OUT]
    rows, labels = np.vstack([data[n][0] for n in training]), np.concatenate([data[n][1] for n in training])
    model = fit(rows, labels)
    fitted = {"features": judging.FEATURES, "fitted_on": training, "parameters": TREES, **exported(model)}
    MODEL.write_text(json.dumps(fitted, separators=(",", ":")) + "\n")
    judging.MODEL = fitted  # the exported trees give scikit-learn's probabilities
    ours = np.array([judging.probability(list(row)) for row in rows])
    assert np.allclose(ours, model.predict_proba(rows)[:, 1], atol=1e-4)
    return {
        "written": MODEL.name,
        "fitted_on": training,
        "trees": len(fitted["trees"]),
        "pairs": int(len(labels)),
    }


def evaluate(data):
    from quality.facts import judging

    report = {}
    for name in HELD_OUT:
        rows, labels, kinds, admitted = data[name]
        probabilities = np.array([judging.probability(list(row)) for row in rows]) * admitted
        report[name] = [scores(probabilities, labels, kinds, threshold) for threshold in thresholds()]
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--cv", action="store_true")
    action.add_argument("--train", action="store_true")
    action.add_argument("--evaluate", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memsite.settings")
    import django

    django.setup()
    data = {name: examples(labelled) for name, labelled in sets().items()}
    if args.cv:
        print(json.dumps(cross_validate(data), indent=2))
    elif args.train:
        print(json.dumps(train(data), indent=2))
    else:
        print(json.dumps(evaluate(data), indent=2))


if __name__ == "__main__":
    main()
