import json

import numpy as np
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from sentence_transformers import SentenceTransformer

from memories import embeddings
from memories.models import Memory
from tests.factories import MemoryFactory

TEXTS = [
    "Alice prefers dark mode in her editor.",
    "deploy",
    "The quarterly report is due on Friday; Bob will send the draft to the finance team first.",
    "Zürich café naïve résumé — ünïcödé text, emoji 🙂 and numbers 3.14159",
    "long " * 600,
]


def test_onnx_vectors_equal_the_sentence_transformers_vectors():
    reference = SentenceTransformer(str(embeddings.model_path()), device="cpu", local_files_only=True)
    expected = reference.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    actual = np.array(embeddings.OnnxProvider().embed_many(TEXTS))
    assert actual.shape == expected.shape
    assert (actual * expected).sum(axis=1).min() > 1 - 1e-5
    assert np.abs(actual - expected).max() < 1e-4


def test_onnx_provider_keeps_the_order_of_texts_sorted_for_batching(settings):
    settings.EMBEDDING_BATCH_SIZE = 2
    provider = embeddings.get_provider()
    one_by_one = np.array([provider.embed(text) for text in TEXTS])
    batched = np.array(provider.embed_many(TEXTS))
    assert np.allclose(batched, one_by_one, atol=1e-5)


def test_minilm_embeds_a_query_as_it_embeds_a_stored_text():
    provider = embeddings.get_provider()
    assert provider.embed_query(TEXTS[0]) == provider.embed(TEXTS[0])


def test_onnx_batches_are_padded_to_their_longest_text_only():
    provider = embeddings.get_provider()
    encodings = provider.tokenizer.encode_batch(["deploy", TEXTS[0]])
    feed = embeddings.padded(encodings, provider.pad_id)
    short, longest = len(encodings[0].ids), len(encodings[1].ids)
    assert feed["input_ids"].shape == (2, longest) == feed["attention_mask"].shape
    assert feed["attention_mask"][0].tolist() == [1] * short + [0] * (longest - short)
    assert feed["input_ids"][0, short:].tolist() == [provider.pad_id] * (longest - short)


@pytest.mark.django_db
def test_the_text_of_a_vector_gives_every_float32_back_exactly():
    vector = np.random.default_rng(7).standard_normal(384).astype(np.float32) / 20
    vector[:4] = [1e-7, -3.5e-6, 0.0, 0.999999]
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::vector::real[]", [embeddings.vector_literal(vector.tolist())])
        (back,) = cursor.fetchone()
    assert np.array_equal(np.array(back, dtype=np.float32), vector)


@pytest.mark.django_db
def test_a_memorys_embedding_reads_back_exactly_as_the_model_field_wrote_it(alice):
    vector = np.random.default_rng(8).standard_normal(384).astype(np.float32) / 20
    vector[:3] = [1e-7, -3.5e-6, 0.999999]
    memory = MemoryFactory(owner=alice, content="A memory whose vector is replaced")

    def stored():
        return np.asarray(Memory.objects.get(pk=memory.pk).embedding, dtype=np.float32)

    assert np.array_equal(stored(), np.asarray(memory.embedding, dtype=np.float32))  # by the COPY
    memory.embedding = vector.tolist()
    memory.save(update_fields=["embedding"])
    assert np.array_equal(stored(), vector)


def test_onnx_export_is_kept_in_the_cache_directory(settings):
    path = embeddings.onnx_model_file()
    assert path.parent == settings.EMBEDDING_CACHE_DIR
    assert path.stat().st_size > 50_000_000


def test_onnx_provider_refuses_a_model_that_does_not_mean_pool(tmp_path):
    (tmp_path / "1_Pooling").mkdir()
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_cls_token": True}))

    with pytest.raises(ImproperlyConfigured, match="SentenceTransformerProvider"):
        embeddings.OnnxProvider(tmp_path)
