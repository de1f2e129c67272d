"""Fit the relation model's adapter (quality.facts.relation) on the labelled sets.

    python -m bench.relation_training              # fit on the training sets, write quality/facts/relation/
    python -m bench.relation_training --folds 4    # out-of-fold relations of the judge's training pairs

Examples of a set (bench/data/supersession/): each supersession pair, older memory first
(`update` → conflicting, `both_true` → compatible, a both_true pair also the other way round),
each newer memory with two random memories of its set and one distractor (compatible), and each
finding pair both ways (`contradiction` → conflicting, `duplicate` → same, `neither` →
compatible); and the pairs of the contrast sets (bench/data/relations/: minimal edits that negate
a statement, swap one value, keep the meaning or change the subject), for which the model would
otherwise take two nearly equal sentences for one fact. The adapter is LoRA (peft) of rank 16 on
every linear layer of the transformer, with the pooler and the head trained in full: 3 epochs,
AdamW at 1e-3 with a tenth of warm-up and a linear decay, batches of 16, seed 0 (about 20 minutes
on 2 cores). The held-out sets (bench.supersession.HELD_OUT) are never used.

With `--folds K` the training sets are split into K groups; for each, an adapter fitted on the
other groups gives the relations of that group's pairs as bench.supersession scores them (its
`examples`), kept in bench/results/relation_oof.json, so the judge is fitted on relations the
model gave pairs it had not seen, as it will give new pairs.
"""

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
CONTRASTS = Path(__file__).resolve().parent / "data" / "relations"
OUT_OF_FOLD = RESULTS / "relation_oof.json"
EPOCHS = 3
LEARNING_RATE = 1e-3
BATCH = 16
RANK = 16


def examples(labelled, seed=0):
    """[(first text, second text, relation)] of one labelled set."""
    from quality.facts.relation import COMPATIBLE, CONFLICTING, SAME

    rng = random.Random(seed)
    pairs = labelled["supersession_pairs"]
    found = []
    for pair in pairs:
        update = pair["label"] == "update"
        found.append((pair["older"], pair["newer"], CONFLICTING if update else COMPATIBLE))
        if not update:
            found.append((pair["newer"], pair["older"], COMPATIBLE))
        for _ in range(2):
            other = rng.choice(pairs)
            if other is not pair:
                found.append((rng.choice([other["older"], other["newer"]]), pair["newer"], COMPATIBLE))
        if labelled.get("distractors"):
            found.append((rng.choice(labelled["distractors"]), pair["newer"], COMPATIBLE))
    relation = {"contradiction": CONFLICTING, "duplicate": SAME, "neither": COMPATIBLE}
    for pair in labelled["finding_pairs"]:
        found += [
            (pair["a"], pair["b"], relation[pair["label"]]),
            (pair["b"], pair["a"], relation[pair["label"]]),
        ]
    return found


def fit(rows):
    """The base model with a LoRA adapter fitted on `rows` (peft's PeftModel)."""
    import torch
    from peft import LoraConfig, get_peft_model

    from quality.facts import relation

    torch.manual_seed(0)
    torch.set_num_threads(os.cpu_count() or 1)
    tokenizer = relation.tokenizer()
    config = LoraConfig(
        task_type="SEQ_CLS", r=RANK, lora_alpha=2 * RANK, lora_dropout=0.1,
        target_modules=["query", "key", "value", "dense"], modules_to_save=["classifier", "pooler"],
    )  # fmt: skip
    model = get_peft_model(relation.load_trainable(), config)
    trainable = [parameter for parameter in model.parameters() if parameter.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=LEARNING_RATE, weight_decay=0.01)
    steps = EPOCHS * -(-len(rows) // BATCH)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, step / (0.1 * steps)) * max(0.0, (steps - step) / steps)
    )
    rng = random.Random(0)
    model.train()
    for epoch in range(EPOCHS):
        started, total = time.monotonic(), 0.0
        order = list(range(len(rows)))
        rng.shuffle(order)
        for start in range(0, len(order), BATCH):
            batch = [rows[index] for index in order[start : start + BATCH]]
            feed = tensors(tokenizer, [(first, second) for first, second, _ in batch])
            loss = model(**feed, labels=torch.tensor([label for _, _, label in batch])).loss
            loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            total += loss.item()
        print(f"epoch {epoch}: loss {total:.1f}, {time.monotonic() - started:.0f} s", file=sys.stderr)
    return model.eval()


def tensors(tokenizer, pairs):
    import torch

    from memories.embeddings import padded
    from quality.facts.relation import model_text

    encodings = tokenizer.encode_batch([(model_text(a), model_text(b)) for a, b in pairs])
    feed = padded(encodings, tokenizer.token_to_id("[PAD]"))
    return {name: torch.from_numpy(value) for name, value in feed.items()}


def predict(model, tokenizer, pairs):
    import torch

    found = []
    with torch.no_grad():
        for start in range(0, len(pairs), 64):
            logits = model(**tensors(tokenizer, pairs[start : start + 64])).logits
            found += torch.softmax(logits, dim=-1).tolist()
    return found


def save(model):
    """Write the adapter beside quality.facts.relation: its weights in half precision (merged into
    the base model's full-precision weights when exported) and its configuration naming the base
    model by its public name rather than by where it lies here."""
    from safetensors.torch import load_file, save_file

    from quality.facts import relation

    model.save_pretrained(str(relation.ADAPTER))
    (relation.ADAPTER / "README.md").unlink(missing_ok=True)
    weights = relation.ADAPTER / "adapter_model.safetensors"
    save_file({name: tensor.half() for name, tensor in load_file(str(weights)).items()}, str(weights))
    config = relation.ADAPTER / "adapter_config.json"
    settings = json.loads(config.read_text())
    settings["base_model_name_or_path"] = relation.BASE_MODEL
    config.write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n")


def contrast_sets():
    """The contrast sets (bench/data/relations/): minimal edits that flip a statement's meaning,
    keep it, or change what it is about, for the relation model only."""
    return [json.loads(path.read_text()) for path in sorted(CONTRASTS.glob("*.json"))]


def train(data, training):
    from quality.facts import relation

    rows = [row for name in training for row in examples(data[name])]
    rows += [row for labelled in contrast_sets() for row in examples(labelled)]
    save(fit(rows))
    return {
        "written": str(relation.ADAPTER.relative_to(Path.cwd())),
        "fitted_on": training,
        "examples": len(rows),
    }


def out_of_fold(data, training, folds):
    """Relations of the judge's pairs (bench.supersession.pairs_of) and of the finding pairs, from
    adapters that did not see them."""
    from bench.supersession import pairs_of
    from quality.facts import relation

    tokenizer = relation.tokenizer()
    found = json.loads(OUT_OF_FOLD.read_text()) if OUT_OF_FOLD.exists() else {}
    groups = [training[index::folds] for index in range(folds)]
    for group in groups:
        rest = [name for name in training if name not in group]
        rows = [row for name in rest for row in examples(data[name])]
        model = fit(rows + [row for labelled in contrast_sets() for row in examples(labelled)])
        for name in group:
            pairs = [(older, newer) for older, newer, *_ in pairs_of(data[name])]
            findings = [(pair["a"], pair["b"]) for pair in data[name]["finding_pairs"]]
            found[name] = {
                "pairs": pairs,
                "relations": predict(model, tokenizer, pairs),
                "findings": predict(model, tokenizer, findings),
            }
        RESULTS.mkdir(exist_ok=True)
        OUT_OF_FOLD.write_text(json.dumps(found))
        print(f"fold {group} done", file=sys.stderr)
    return {"written": str(OUT_OF_FOLD), "groups": groups}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=0)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memsite.settings")
    import django

    django.setup()
    from bench.supersession import HELD_OUT, sets

    data = sets()
    training = [name for name in data if name not in HELD_OUT]
    report = out_of_fold(data, training, args.folds) if args.folds else train(data, training)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
