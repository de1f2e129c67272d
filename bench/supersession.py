"""Supersession detection on labelled pairs: fit the judge's weights, cross-validate, evaluate.

The labelled sets are bench/data/supersession/*.json (bench/data/supersession/README.md says who
wrote each and how). Each holds `supersession_pairs` (an older and a newer memory, labelled
`update` when the newer replaces the older, `both_true` when both hold) and `distractors`.

    python -m bench.supersession --cv          # leave one set out: fit on the others, score it
    python -m bench.supersession --train       # fit on the training sets, write the model
    python -m bench.supersession --evaluate    # score the held-out sets with the shipped model

Pairs are scored as the detector scores them (quality.facts: readings, vectors, frames and the
relation model), with pairs of the newer memory and random other memories of the same set and its
nearest distractors as extra negatives, as a stored memory meets unrelated neighbours. A pair the
judge does not admit (two speakers, no evidence of a change: `judging.admissible`) scores 0, as
the detector gives it no verdict. The relations of a training set's pairs are those adapters
fitted without it gave (`python -m bench.relation_training --folds 4`, run first), so that the
trees learn how far to trust the relation model on pairs it has not seen. `--cv` and
`--evaluate` also report the precision and recall of the contradictions and duplicates the judge
finds among the sets' finding pairs, at each of the relation model's thresholds. Prints JSON.
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


def pairs_of(labelled, seed=0):
    """[(older text, newer text, label, kind)] of a set: its pairs and, as negatives, each newer
    memory with random other memories of the set and with the distractors nearest to it (the same
    people and projects, other facts), as a stored memory meets its neighbours."""
    from memories import embeddings

    pairs = labelled["supersession_pairs"]
    distractors = labelled["distractors"]
    newer_vectors = np.array(embeddings.embed_many([pair["newer"] for pair in pairs]))
    distractor_vectors = np.array(embeddings.embed_many(distractors))
    rng = random.Random(seed)
    found = []
    for index, pair in enumerate(pairs):
        found.append((pair["older"], pair["newer"], int(pair["label"] == "update"), pair["label"]))
        for _ in range(NEGATIVES_PER_PAIR):
            other = rng.randrange(2 * len(pairs))
            if other % len(pairs) != index:
                text = pairs[other % len(pairs)]["older" if other < len(pairs) else "newer"]
                found.append((text, pair["newer"], 0, "unrelated"))
        nearest = np.argsort(-(distractor_vectors @ newer_vectors[index]), kind="stable")
        found += [
            (distractors[other], pair["newer"], 0, "near_unrelated") for other in nearest[:NEGATIVES_PER_PAIR]
        ]
    return found


def examples(labelled, relations):
    """(features, labels, kinds, admitted) of a set's pairs (`pairs_of`), with the relations
    (quality.facts.relation) of each pair in `relations`."""
    from memories import embeddings
    from quality.facts import judging, reading

    found = pairs_of(labelled)
    texts = sorted({text for older, newer, _, _ in found for text in (older, newer)})
    index = {text: position for position, text in enumerate(texts)}
    vectors = np.array(embeddings.embed_many(texts))
    frames = np.array(embeddings.embed_many([reading.frame(text) for text in texts]))
    readings = [reading.read(text) for text in texts]
    rows, admitted = [], []
    for (older, newer, _, _), relation in zip(found, relations, strict=True):
        a, b = index[older], index[newer]
        values = judging.features(
            readings[a], readings[b], float(vectors[a] @ vectors[b]), float(frames[a] @ frames[b]), relation
        )
        rows.append(values)
        admitted.append(judging.admissible(readings[a], readings[b], values))
    labels = np.array([label for _, _, label, _ in found])
    return np.array(rows), labels, [kind for *_, kind in found], np.array(admitted)


def relations_of(name, labelled):
    """The relations of a set's pairs (`pairs_of`): for a training set, those that adapters fitted
    without it gave (bench.relation_training --folds); for a held-out set, the shipped model's."""
    from bench.relation_training import OUT_OF_FOLD
    from quality.facts import relation

    pairs = [(older, newer) for older, newer, *_ in pairs_of(labelled)]
    if name in HELD_OUT:
        return relation.relations(pairs)
    if not OUT_OF_FOLD.exists():
        raise SystemExit(f"{OUT_OF_FOLD} is missing: run python -m bench.relation_training --folds 4 first")
    kept = json.loads(OUT_OF_FOLD.read_text()).get(name)
    if kept is None or [tuple(pair) for pair in kept["pairs"]] != pairs:
        raise SystemExit(
            f"{OUT_OF_FOLD} has no relations for {name}'s pairs: run bench.relation_training --folds 4"
        )
    return np.array(kept["relations"])


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
                "threshold": [float(value) for value in tree.threshold],
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


RELATION_THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)


def finding_scores(pairs, relations):
    """Precision and recall of the contradictions and duplicates the judge finds among finding
    pairs (two memories valid from the same moment, as `judging.judge` meets them in detection),
    with the relation model's thresholds (SAME_RELATION, CONFLICT_RELATION) at each of
    RELATION_THRESHOLDS."""
    from memories import embeddings
    from quality.facts import judging, reading

    texts = [pair["a"] for pair in pairs] + [pair["b"] for pair in pairs]
    vectors = np.array(embeddings.embed_many(texts))
    frames = np.array(embeddings.embed_many([reading.frame(text) for text in texts]))
    readings = [reading.read(text) for text in texts]
    shipped = judging.SAME_RELATION, judging.CONFLICT_RELATION
    report = {"contradiction": [], "duplicate": []}
    for threshold in RELATION_THRESHOLDS:
        judging.SAME_RELATION = judging.CONFLICT_RELATION = threshold
        found = []
        for a, relation in enumerate(relations):
            b = a + len(pairs)
            verdict = judging.judge(
                readings[a], readings[b], float(vectors[a] @ vectors[b]), float(frames[a] @ frames[b]),
                False, relation,
            )  # fmt: skip
            found.append(verdict.kind if verdict else "neither")
        for kind, scored in report.items():
            wanted = sum(pair["label"] == kind for pair in pairs)
            flagged = sum(kind == verdict for verdict in found)
            hits = sum(kind == verdict == pair["label"] for verdict, pair in zip(found, pairs, strict=True))
            scored.append(
                {
                    "threshold": threshold,
                    "precision": round(hits / max(1, flagged), 3),
                    "recall": round(hits / max(1, wanted), 3),
                }
            )
    judging.SAME_RELATION, judging.CONFLICT_RELATION = shipped
    return report


def findings_out_of_fold(labelled_sets):
    """finding_scores of the training sets' finding pairs, from adapters that had not seen them."""
    from bench.relation_training import OUT_OF_FOLD

    kept = json.loads(OUT_OF_FOLD.read_text())
    names = [name for name in labelled_sets if name not in HELD_OUT]
    pairs = [pair for name in names for pair in labelled_sets[name]["finding_pairs"]]
    return finding_scores(pairs, np.vstack([kept[name]["findings"] for name in names]))


def findings_held_out(labelled_sets):
    from quality.facts import relation

    report = {}
    for name in HELD_OUT:
        pairs = labelled_sets[name]["finding_pairs"]
        found = relation.relations([(pair["a"], pair["b"]) for pair in pairs])
        report[name] = finding_scores(pairs, found)
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
    labelled_sets = sets()
    data = {
        name: examples(labelled, relations_of(name, labelled)) for name, labelled in labelled_sets.items()
    }
    if args.cv:
        report = {**cross_validate(data), "findings": findings_out_of_fold(labelled_sets)}
    elif args.train:
        report = train(data)
    else:
        report = {**evaluate(data), "findings": findings_held_out(labelled_sets)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
