"""LoCoMo retrieval offline: recall's scoring and alternatives ranked in numpy, in seconds.

    .venv/bin/python -m bench.locomo_offline [PATH] [--database-url URL] [--cache DIR] [--cv]

Same data and rule as bench.locomo: one memory per turn ("Speaker: text"; identical turns of a
conversation are one memory), category 5 left out, recall@5 = share of a question's evidence
turns among the first five. Each conversation is ranked on its own, as `tags=<sample id>` does.
Lexemes come from PostgreSQL's `english` configuration (the same to_tsvector as the stored search
vector, asked of the database at --database-url), vectors from the service's embedding provider;
both are cached in --cache, so a rerun takes seconds. Ties go to the later turn, as recall lists
newer memories first.

Every variant is reported over all questions, per category, and on the odd (1st, 3rd, 5th) and
even conversations separately. `--cv` instead chooses the weights of the time, answer and
statement components leave-one-conversation-out: for each conversation, the grid point (each
weight at 0, half, the setting and one and a half times it) with the best recall@5 on the other
four is scored on it; the report gives each fold's choice and score, the mean, min and max, and
for each component the fold-by-fold change of taking it out of the service's settings. "service"
is recall's formula with this checkout's settings and its candidate limits (nearest neighbours,
the first `per_term` matches of each term, the first matches of all terms, the turns next to
these); the other variants rank every memory.
"""

import argparse
import math
import os
import pickle
import re
import tempfile
from collections import defaultdict
from datetime import UTC
from pathlib import Path

import numpy as np
import psycopg

from bench.client import emit, log, machine
from bench.locomo import CATEGORIES, DEFAULT_PATH, EVIDENCE, LOCOMO_DATABASE_URL, load, session_time

DAY = 86400

LEXEMES_SQL = """
SELECT t.i, l.lexeme, coalesce(array_length(l.positions, 1), 1)
FROM unnest(%s::text[]) WITH ORDINALITY t(txt, i),
     unnest(to_tsvector('english', regexp_replace(t.txt, %s, ' \\1 ', 'g'))) l
"""


def lexemes(conn, texts):
    """{lexeme: term frequency} per text."""
    from memories.models import CJK_CHARACTERS

    out = [{} for _ in texts]
    for i, lexeme, tf in conn.execute(LEXEMES_SQL, [texts, CJK_CHARACTERS]).fetchall():
        out[i - 1][lexeme] = tf
    return out


def prepare(samples, database_url):
    """Per conversation: memories (content, dia_ids), questions, lexemes and unit vectors."""
    from memories import embeddings

    conversations = []
    with psycopg.connect(database_url) as conn:
        for sample in samples:
            conversation = sample["conversation"]
            numbers = sorted(int(k.split("_")[1]) for k in conversation if re.fullmatch(r"session_\d+", k))
            docs, index = [], {}
            for number in numbers:
                for turn in conversation[f"session_{number}"]:
                    content = f"{turn['speaker']}: {turn['text']}"
                    if content not in index:
                        index[content] = len(docs)
                        docs.append({"content": content, "dias": set()})
                    docs[index[content]]["dias"].add(turn["dia_id"])
            questions = []
            for qa in sample["qa"]:
                evidence = {f"D{a}:{b}" for a, b in EVIDENCE.findall(" ".join(qa.get("evidence", [])))}
                if qa.get("category") != 5 and evidence:
                    questions.append(
                        {"text": qa["question"], "category": qa["category"], "evidence": evidence}
                    )
            texts, asked = [d["content"] for d in docs], [q["text"] for q in questions]
            conversations.append(
                {
                    "sample": sample["sample_id"],
                    "docs": docs,
                    "questions": questions,
                    "doc_lexemes": lexemes(conn, texts),
                    "query_lexemes": lexemes(conn, asked),
                    "doc_vectors": np.asarray(embeddings.embed_many(texts), dtype=np.float32),
                    "query_vectors": np.asarray([embeddings.embed_query(q) for q in asked], dtype=np.float32),
                }
            )
            log(f"prepared {sample['sample_id']}: {len(docs)} memories, {len(questions)} questions")
    return conversations


class Conversation:
    def __init__(self, data):
        self.sample, self.docs, self.questions = data["sample"], data["docs"], data["questions"]
        self.n = len(self.docs)
        self.vectors = data["doc_vectors"]
        self.queries = data["query_vectors"]
        self.cosine = self.queries @ self.vectors.T
        self.query_lexemes = data["query_lexemes"]
        postings = defaultdict(list)
        for i, lexemes_of in enumerate(data["doc_lexemes"]):
            for term, tf in lexemes_of.items():
                postings[term].append((i, tf))
        self.postings = {
            t: (np.array([i for i, _ in p]), np.array([tf for _, tf in p], float))
            for t, p in postings.items()
        }
        self.doc_lexemes = data["doc_lexemes"]
        self.length = np.array([sum(x.values()) for x in data["doc_lexemes"]], float)

    def terms(self, qi, limit=16):
        """The query's distinct lexemes in the order unnest(tsvector) gives them, at most `limit`."""
        return sorted(self.query_lexemes[qi])[:limit]

    def df(self, term):
        return len(self.postings[term][0]) if term in self.postings else 0


def idf_share(conv, terms, per_term=50):
    """recall's keyword: the IDF-weighted share of the query terms a memory has (df up to per_term)."""
    out, total = np.zeros(conv.n), 0.0
    for term in terms:
        weight = math.log(1 + 4 * per_term / (min(conv.df(term), per_term) + 0.5))
        total += weight
        if term in conv.postings:
            out[conv.postings[term][0]] += weight
    return out / total if total else out


def bm25(conv, terms, k1=0.9, b=0.4, weights=None):
    out, average = np.zeros(conv.n), conv.length.mean()
    for j, term in enumerate(terms):
        if term in conv.postings:
            ids, tf = conv.postings[term]
            idf = math.log(1 + (conv.n - len(ids) + 0.5) / (len(ids) + 0.5))
            weight = 1.0 if weights is None else weights[j]
            out[ids] += weight * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * conv.length[ids] / average))
    return out


def by_max(x):
    return x / x.max() if x.max() > 0 else x


def context(base, decay):
    """Best score among the memories one (×1) and two (×decay) places away in the conversation."""
    best = np.zeros(len(base))
    for step, factor in ((1, 1.0), (2, decay)):
        best = np.maximum(best, factor * np.r_[np.zeros(step), base[:-step]])
        best = np.maximum(best, factor * np.r_[base[step:], np.zeros(step)])
    return best


def candidates(conv, qi, terms, nearest, per_term):
    """recall's candidates: nearest neighbours, first matches of each term and of all terms, and
    the turns next to any of these."""
    mask = np.zeros(conv.n, bool)
    mask[np.argsort(-conv.cosine[qi])[:nearest]] = True
    every = None
    for term in terms:
        ids = conv.postings[term][0] if term in conv.postings else np.array([], int)
        mask[ids[:per_term]] = True
        every = set(ids.tolist()) if every is None else every & set(ids.tolist())
    if every:
        mask[sorted(every)[:per_term]] = True
    matched = mask.copy()
    mask[1:] |= matched[:-1]
    mask[:-1] |= matched[1:]
    return mask


def nearness(conv, qi):
    """recall's time: 1 inside the day or month the question names, e^(-days / TIME_DAYS) outside."""
    from memories.recall import TIME_DAYS

    if conv.named[qi] is None:
        return np.zeros(conv.n)
    start, end = conv.named[qi]
    days = np.maximum(0, np.maximum(start - conv.times, conv.times - end))
    return np.exp(-np.minimum(50, days / TIME_DAYS))


def linear(
    w_vector,
    w_keyword,
    w_context,
    decay,
    keyword=idf_share,
    normalise=False,
    limited=None,
    w_time=0,
    w_statement=0,
    w_answer=0,
):
    def score(conv, qi):
        terms = conv.terms(qi)
        vector, kw = np.maximum(0, conv.cosine[qi]), keyword(conv, terms)
        if normalise:
            vector, kw = by_max(vector), by_max(kw)
        base = w_vector * vector + w_keyword * kw
        final = (
            base
            + w_context * context(base, decay)
            + w_time * nearness(conv, qi)
            + w_statement * conv.statement
            + w_answer * conv.answer[qi]
        )
        if limited:
            final = np.where(candidates(conv, qi, terms, *limited), final, -np.inf)
        return final

    return score


def rrf(conv, qi, k=60):
    ranks = [np.argsort(np.argsort(-x)) + 1 for x in (conv.cosine[qi], bm25(conv, conv.terms(qi)))]
    return sum(1 / (k + r) for r in ranks)


def rocchio(m, beta, then):
    """Query vector moved towards the mean of the first m results of `then`, ranked again by `then`."""

    def score(conv, qi):
        top = np.argsort(-then(conv, qi))[:m]
        query = conv.queries[qi] + beta * conv.vectors[top].mean(0)
        original = conv.cosine[qi].copy()
        conv.cosine[qi] = conv.vectors @ (query / np.linalg.norm(query))
        final = then(conv, qi)
        conv.cosine[qi] = original
        return final

    return score


def rm3(m, count, mix, then):
    """Keyword over the query terms plus the `count` best terms of the first m results of `then`."""

    def score(conv, qi):
        first = then(conv, qi)
        terms = conv.terms(qi)
        weights = defaultdict(float)
        for i in np.argsort(-first)[:m]:
            total = sum(conv.doc_lexemes[i].values())
            for term, tf in conv.doc_lexemes[i].items():
                weights[term] += first[i] * tf / total * math.log(conv.n / conv.df(term))
        extra = [t for t, _ in sorted(weights.items(), key=lambda x: -x[1]) if t not in terms][:count]

        def keyword(conv, _):
            return (1 - mix) * idf_share(conv, terms) + mix * idf_share(conv, terms + extra)

        return linear(0.25, 0.35, 0.6, 0.85, keyword)(conv, qi)

    return score


def evaluate(score, conversations, k=5):
    hits = defaultdict(list)
    for conv in conversations:
        for qi, question in enumerate(conv.questions):
            scores = score(conv, qi)
            order = np.lexsort((-np.arange(conv.n), -scores))[:k]
            found = set().union(*(conv.docs[i]["dias"] for i in order if np.isfinite(scores[i])))
            share = len(found & question["evidence"]) / len(question["evidence"])
            hits["overall"].append(share)
            hits[CATEGORIES[question["category"]]].append(share)
    return {group: round(float(np.mean(values)), 3) for group, values in hits.items()}


MATCHING_SQL = "SELECT content ~ %s FROM unnest(%s::text[]) WITH ORDINALITY AS m(content, i) ORDER BY i"


def matching(conn, pattern, conv):
    """1 for each memory whose content matches the PostgreSQL `pattern`, else 0 (as the stored
    columns `is_question`, `holds_time` and `holds_number` are generated)."""
    contents = [doc["content"] for doc in conv.docs]
    return np.array([float(matches) for (matches,) in conn.execute(MATCHING_SQL, [pattern, contents])])


def stated(conversations, database_url):
    """Each memory's `statement` component: 0 when it only asks (`answers.QUESTION`), else 1."""
    from memories.answers import QUESTION

    with psycopg.connect(database_url) as conn:
        for conv in conversations:
            conv.statement = 1 - matching(conn, QUESTION, conv)


def answered(conversations, database_url):
    """Each question's `answer` component over the memories: the kind of answer the question asks
    for (`answers.asked_for`), the memories holding one (`answers.HOLDS`)."""
    from memories.answers import HOLDS, asked_for

    with psycopg.connect(database_url) as conn:
        for conv in conversations:
            holding = {kind: matching(conn, pattern, conv) for kind, pattern in HOLDS.items()}
            conv.answer = [holding.get(asked_for(q["text"]), np.zeros(conv.n)) for q in conv.questions]


def dated(conversations, samples):
    """Each memory's time (its first turn's session date, as bench.locomo stores it) and the day
    or month each question names, in days since the epoch."""
    from memories.time_query import named_in

    for conv, sample in zip(conversations, samples, strict=True):
        sessions = {
            key.removesuffix("_date_time"): session_time(value).replace(tzinfo=UTC).timestamp() / DAY
            for key, value in sample["conversation"].items()
            if key.endswith("_date_time")
        }
        conv.times = np.array(
            [min(sessions[f"session_{dia[1:].split(':')[0]}"] for dia in doc["dias"]) for doc in conv.docs]
        )
        windows = [named_in(question["text"]) for question in conv.questions]
        conv.named = [None if w is None else tuple(end.timestamp() / DAY for end in w) for w in windows]


COMPONENTS = ("time", "answer", "statement")
FACTORS = (0, 0.5, 1, 1.5)


def fold_shares(score, conversations):
    """{sample id: [recall@5 share of each question]} of one variant."""
    return {conv.sample: _shares(score, conv) for conv in conversations}


def _shares(score, conv, k=5):
    shares = []
    for qi, question in enumerate(conv.questions):
        scores = score(conv, qi)
        order = np.lexsort((-np.arange(conv.n), -scores))[:k]
        found = set().union(*(conv.docs[i]["dias"] for i in order if np.isfinite(scores[i])))
        shares.append(len(found & question["evidence"]) / len(question["evidence"]))
    return shares


def cross_validate(conversations):
    """Leave-one-conversation-out choice of the time, answer and statement weights (see module)."""
    import itertools

    from django.conf import settings

    weights, per_term = settings.RECALL_WEIGHTS, max(10, settings.RECALL_CANDIDATES // 2)
    shipped = (weights["vector"], weights["keyword"], weights["context"], settings.RECALL_CONTEXT_DECAY)
    limits = (settings.RECALL_CANDIDATES, per_term)
    table = {}
    for factors in itertools.product(FACTORS, repeat=len(COMPONENTS)):
        chosen = {name: round(weights[name] * f, 3) for name, f in zip(COMPONENTS, factors, strict=True)}
        score = linear(*shipped, limited=limits, **{f"w_{name}": w for name, w in chosen.items()})
        table[factors] = (chosen, fold_shares(score, conversations))
    samples = [conv.sample for conv in conversations]

    def recall(factors, folds):
        shares = [share for sample in folds for share in table[factors][1][sample]]
        return float(np.mean(shares))

    folds, changes = {}, {name: {} for name in COMPONENTS}
    setting = (1,) * len(COMPONENTS)
    for held_out in samples:
        train = [sample for sample in samples if sample != held_out]
        best = max(table, key=lambda factors: (round(recall(factors, train), 4), factors == setting))
        folds[held_out] = {
            "chosen": table[best][0],
            "held_out_recall@5": round(recall(best, [held_out]), 3),
            "settings_recall@5": round(recall(setting, [held_out]), 3),
        }
        for i, name in enumerate(COMPONENTS):
            without = setting[:i] + (0,) + setting[i + 1 :]
            changes[name][held_out] = round(recall(setting, [held_out]) - recall(without, [held_out]), 3)

    def spread(key):
        values = [fold[key] for fold in folds.values()]
        return {"mean": round(float(np.mean(values)), 3), "min": min(values), "max": max(values)}

    return {
        "folds": folds,
        "chosen_on_four": spread("held_out_recall@5"),
        "settings": spread("settings_recall@5"),
        "component_gain_by_fold": {
            name: {
                "folds": by_fold,
                "mean": round(float(np.mean(list(by_fold.values()))), 3),
                "kept": float(np.mean(list(by_fold.values()))) > 0 and min(by_fold.values()) >= -0.01,
            }
            for name, by_fold in changes.items()
        },
    }


def variants():
    from django.conf import settings

    weights, per_term = settings.RECALL_WEIGHTS, max(10, settings.RECALL_CANDIDATES // 2)
    limits = (settings.RECALL_CANDIDATES, per_term)
    shipped = (weights["vector"], weights["keyword"], weights["context"], settings.RECALL_CONTEXT_DECAY)
    current = linear(*shipped)
    return {
        "service (this checkout's settings, its candidates)": linear(
            *shipped,
            limited=limits,
            w_time=weights["time"],
            w_statement=weights["statement"],
            w_answer=weights["answer"],
        ),
        "same without the answer component": linear(
            *shipped, limited=limits, w_time=weights["time"], w_statement=weights["statement"]
        ),
        "same without the statement component either": linear(
            *shipped, limited=limits, w_time=weights["time"]
        ),
        "same without the time component either": linear(*shipped, limited=limits),
        "vector only": lambda conv, qi: conv.cosine[qi],
        "IDF share only": lambda conv, qi: idf_share(conv, conv.terms(qi)),
        "BM25 only (k1 0.9, b 0.4)": lambda conv, qi: bm25(conv, conv.terms(qi)),
        "RRF(vector, BM25), k 60": rrf,
        "0.35 vector + 0.35 IDF share, no context": linear(0.35, 0.35, 0, 0.7),
        "0.35 vector + 0.35 IDF share + 0.4 context, decay 0.7": linear(0.35, 0.35, 0.4, 0.7),
        "0.5 vector + 0.5 BM25 (both ÷ max) + 0.4 context, decay 0.7": linear(
            0.5, 0.5, 0.4, 0.7, bm25, normalise=True
        ),
        "0.25 vector + 0.35 IDF share + 0.6 context, decay 0.85": current,
        "0.5 vector + 0.5 IDF share (both ÷ max) + 0.6 context, decay 1": linear(
            0.5, 0.5, 0.6, 1.0, normalise=True
        ),
        "Rocchio: query + 0.3 × mean of the first 5, then as above": rocchio(5, 0.3, current),
        "RM3: + 10 terms of the first 3 at 0.4, then as above": rm3(3, 10, 0.4, current),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH, help="locomo-dev.json")
    parser.add_argument("--database-url", default=LOCOMO_DATABASE_URL, help="any database of this server")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "memsite-locomo-offline")
    parser.add_argument("--cv", action="store_true", help="choose component weights leave-one-out")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memsite.settings")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import django

    django.setup()
    cached = args.cache / f"{args.path.stem}.pickle"
    if cached.exists():
        data = pickle.loads(cached.read_bytes())
    else:
        data = prepare(load(args.path), args.database_url)
        args.cache.mkdir(parents=True, exist_ok=True)
        cached.write_bytes(pickle.dumps(data))
    conversations = [Conversation(c) for c in data]
    dated(conversations, load(args.path))
    stated(conversations, args.database_url)
    answered(conversations, args.database_url)
    if args.cv:
        report = cross_validate(conversations)
        log(f"chosen on four, scored on the fifth: R@5 {report['chosen_on_four']}")
        emit({"benchmark": "locomo_offline_cv", "data": args.path.name, **report, "machine": machine()})
        return
    odd, even = conversations[0::2], conversations[1::2]
    report = {}
    for name, score in variants().items():
        report[name] = {
            **evaluate(score, conversations),
            "odd conversations": evaluate(score, odd)["overall"],
            "even conversations": evaluate(score, even)["overall"],
        }
        log(f"{name}: R@5 {report[name]['overall']}")
    emit({"benchmark": "locomo_offline", "data": args.path.name, "recall@5": report, "machine": machine()})


if __name__ == "__main__":
    main()
