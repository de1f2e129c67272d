"""Whether a newer memory replaces an older one, judged from their readings and vectors.

Each pair gets the general signals below; a small gradient-boosted model (shallow decision trees)
weighs them into the probability that the newer memory replaces the older one, so that a signal
can count in the presence of another (new values count when the subject is the same). The model
is fitted on labelled pairs written by several independent authors (bench/data/supersession/,
`python -m bench.supersession --train`, with the relation model's probabilities for pairs it had not
seen) and kept in `model.json` beside this module, with the
sets it was fitted on; evaluating it is a walk down each tree.

- `similar`: the cosine of the two memories' vectors (the same subject is said about);
- `frame_similar`, `frame_gain`: the cosine of their frames (values masked: the same thing is
  stated), and how much nearer the frames are than the texts (the values are what differs);
- `replaced_old_value`: the newer memory says that a name or value of the older one no longer
  holds ("don't use VS Code anymore", "left Tidewater", "不再负责");
- `change_words`, `addition_words`, `changed_and_added` ("now also"): the newer memory says that
  something changed, or adds to what held;
- `negation_newer`, `negation_older`;
- `shared_names`, `names_only_newer`, `names_only_older` (capitalized words, numbers, addresses);
- `relative_differs`: one of them is about somebody's relative;
- `contrast_words`, `numbered_differ`: each names a different one of a kind ("staging" /
  "production", "Year 9" / "Year 11");
- `restated_values`: every value of the newer memory stands in the older one;
- `multi_valued_*`, `single_valued_*`: their verbs belong to attributes that hold several values
  at once (languages, hobbies, payment methods) or one at a time (a home, a price, a version);
- `chinese`, `shared_words` (the share of content words in common);
- `subject_same`, `subject_conflict`, `subject_missing`: the first clauses' subjects (the words
  before the verb) are the same, differ on both sides ("the auth service" / "the billing service",
  "Ines" / "Ines's son"), or one names none;
- `value_swapped`, `value_kinds_swapped`: a value of some kind (an amount, a time, a date, a
  version, a contact, a number, a name) gives way to another of the same kind; `values_only_added`,
  `values_only_dropped`: the newer memory only adds values, or only drops some;
- `transient_older`: the older memory says its state is passing ("still", "pending", "on hold",
  "还在", "审批中") and the newer one does not;
- `relation_conflicting`, `relation_same`: the probabilities the relation model
  (`quality.facts.relation`), reading both texts together, gives that they conflict or state the
  same fact.

Besides replacements, the judge names two memories that state the same fact (`duplicate`: in the
same words, or as the relation model reads them) and two memories valid from the same moment that
conflict (`contradiction`, as the relation model reads them).
"""

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from quality.facts.relation import CONFLICTING, SAME

MODEL = json.loads(Path(__file__).with_name("model.json").read_text())
FEATURES = [
    "similar", "frame_similar", "frame_gain", "replaced_old_value", "change_words", "addition_words",
    "changed_and_added", "negation_newer", "negation_older", "shared_names", "names_only_newer",
    "names_only_older", "relative_differs", "contrast_words", "numbered_differ", "restated_values",
    "multi_valued_newer", "multi_valued_older", "single_valued_newer", "single_valued_older", "chinese",
    "shared_words", "value_swapped", "value_kinds_swapped", "values_only_added", "values_only_dropped",
    "subject_same", "subject_conflict", "subject_missing", "transient_older", "relation_conflicting",
    "relation_same",
]  # fmt: skip
MAX_NAMES = 3
# The signals a verdict names when they fired (the cues that speak for a replacement).
SHOWN = [
    "replaced_old_value", "change_words", "value_swapped", "subject_same", "single_valued_newer",
    "frame_gain", "relation_conflicting",
]  # fmt: skip
SIMILAR = 0.6
# The signals strong enough for a proposal to be applied without a curator: the newer memory says
# the older value no longer holds, gives a value of some kind in place of the older one's
# (`value_replaced`: as `value_swapped`, but a name and its short form, Mel and Melanie, are one),
# or the relation model reads the two as conflicting.
DECISIVE = ["replaced_old_value", "value_replaced", "relation_conflicting"]
# A conversation turn ("Speaker: text") is what someone said in passing, not a kept fact: a
# replacement between turns always waits for a curator.
TURN = "conversation_turn"


@dataclass
class Verdict:
    kind: str  # "superseded" or "contradiction"
    confidence: float
    signals: list = field(default_factory=list)

    def as_json(self):
        return {"confidence": self.confidence, "signals": self.signals}


def _replaced_hit(older, newer):
    """Whether the newer reading says that a name or value of the older one no longer holds."""
    for phrase in newer.replaced:
        if any(term in phrase.split() or (len(term) >= 4 and term in phrase) for term in older.terms):
            return True
        chinese = any("\u3400" <= char <= "\u9fff" for char in phrase)  # compare characters
        named = any(len(term) >= 2 and term in phrase for term in older.terms)
        if chinese and (named or phrase[:4] in "".join(older.words)):
            return True
    return False


def features(older, newer, similarity, frame_similarity, relation):
    """The signals of a pair of readings (in FEATURES order); `relation` is the pair's row of
    `quality.facts.relation.relations`."""
    older_names, newer_names = set(older.names), set(newer.names)
    older_words, newer_words = set(older.words), set(newer.words)
    older_contrasts, newer_contrasts = set(older.contrasts), set(newer.contrasts)
    newer_values = set(newer.amounts)
    return [
        similarity,
        frame_similarity,
        frame_similarity - similarity,
        float(_replaced_hit(older, newer)),
        float(newer.change),
        float(newer.addition),
        float(newer.change and newer.addition),
        float(newer.negated),
        float(older.negated),
        min(MAX_NAMES, len(older_names & newer_names)) / MAX_NAMES,
        min(MAX_NAMES, len(newer_names - older_names)) / MAX_NAMES,
        min(MAX_NAMES, len(older_names - newer_names)) / MAX_NAMES,
        float(older.relative != newer.relative),
        float(bool(older_contrasts - newer_contrasts) and bool(newer_contrasts - older_contrasts)),
        float(
            bool(set(older.numbered) - set(newer.numbered))
            and bool(set(newer.numbered) - set(older.numbered))
        ),
        float(bool(newer_values) and newer_values <= set(older.amounts)),
        float(newer.multi_valued),
        float(older.multi_valued),
        float(newer.single_valued),
        float(older.single_valued),
        float(older.cjk or newer.cjk),
        len(older_words & newer_words) / max(1, len(older_words | newer_words)),
        *_value_changes(older, newer),
        *_subjects(older, newer),
        float(older.transient and not newer.transient),
        float(relation[CONFLICTING]),
        float(relation[SAME]),
    ]


def _same_word(a, b):
    return (
        a == b
        or a.rstrip("s") == b.rstrip("s")
        or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)))
    )


def _subjects(older, newer):
    """Whether the two first clauses speak of the same subject, of two different ones, or one of
    them names none (a pronoun, "I", or nothing before its verb)."""
    if not older.subject or not newer.subject:
        return [0.0, 0.0, 1.0]
    if older.cjk or newer.cjk:
        a, b = older.subject[0], newer.subject[0]
        same = a == b or a in b or b in a
        return [float(same), float(not same), 0.0]
    rest_old = [w for w in older.subject if not any(_same_word(w, v) for v in newer.subject)]
    rest_new = [w for w in newer.subject if not any(_same_word(w, v) for v in older.subject)]
    return [float(not rest_old and not rest_new), float(bool(rest_old) and bool(rest_new)), 0.0]


def _value_changes(older, newer):
    """Whether a value of some kind gives way to another of the same kind (Ghent → Antwerp, $12 →
    $15), in how many kinds, and whether values were only added or only dropped."""
    swapped, added, dropped = 0, False, False
    for _, old, new in _values_by_kind(older, newer):
        if old - new and new - old:
            swapped += 1
        added |= bool(new - old) and not old - new
        dropped |= bool(old - new) and not new - old
    return [
        float(swapped > 0),
        min(3, swapped) / 3,
        float(added and not swapped),
        float(dropped and not swapped),
    ]


def _values_by_kind(older, newer):
    """(kind, the older memory's values, the newer one's) for each kind either names."""
    for kind in newer.values.keys() | older.values.keys():
        yield kind, set(older.values.get(kind, ())), set(newer.values.get(kind, ()))


def _value_replaced(older, newer):
    """Whether a value of some kind gives way to another of that kind, names that shorten or
    extend one another (a nickname, a first name) not counting as another."""
    for kind, old, new in _values_by_kind(older, newer):
        gone, came = old - new, new - old
        if kind == "name":
            gone = {a for a in gone if not any(a.startswith(b) or b.startswith(a) for b in came)}
            came = {b for b in came if not any(a.startswith(b) or b.startswith(a) for a in old)}
        if gone and came:
            return True
    return False


def probability(values):
    """The model's probability that the newer memory replaces the older one."""
    if len(values) != len(MODEL["features"]):
        raise ValueError("quality/facts/model.json was fitted on other features: fit it again")
    values = np.asarray(values, dtype=np.float32).tolist()  # as scikit-learn's trees compare them
    raw = MODEL["init"]
    for tree in MODEL["trees"]:
        node = 0
        while tree["left"][node] >= 0:
            below = values[tree["feature"][node]] <= tree["threshold"][node]
            node = tree["left"][node] if below else tree["right"][node]
        raw += MODEL["learning_rate"] * tree["value"][node]
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, raw))))


def admissible(older, newer, values):
    """Whether the pair may be judged at all: not turns of two speakers (one person's turn does
    not replace what another said), and with evidence beyond likeness that a value changed — a
    value replaced or swapped, words of change about the same subject, or the relation model
    reading the two as conflicting (at least ADMIT_RELATION). Near texts without it (two chat turns
    on one topic) are not a replacement whatever the trees say."""
    if older.speaker and newer.speaker and older.speaker != newer.speaker:
        return False
    named = dict(zip(FEATURES, values, strict=True))
    return (
        named["replaced_old_value"] > 0
        or named["value_swapped"] > 0
        or (named["change_words"] > 0 and named["subject_same"] > 0)
        or named["relation_conflicting"] >= ADMIT_RELATION
    )


def signals(values):
    """The names of the cues that fired for a pair (the relation model's when it gives at least
    ADMIT_RELATION), and `similar` for near vectors."""
    named = dict(zip(FEATURES, values, strict=True))
    fired = [
        name
        for name in SHOWN
        if (named[name] >= ADMIT_RELATION if name == "relation_conflicting" else named[name] > 0)
    ]
    return (["similar"] if named["similar"] >= SIMILAR else []) + fired


EXCLUSIVE_SIMILARITY = 0.6
# Chosen on the training sets' pairs with relations from adapters that had not seen them
# (bench.relation_training --folds, bench.supersession --cv).
ADMIT_RELATION = 0.5
SAME_RELATION = 0.8
CONFLICT_RELATION = 0.8
EXCLUSIVE_CONFIDENCE = 0.8


def restated(one, other):
    """Whether two readings say the same with the same words: the same content words, values and
    negation, only punctuation, filler words or their order apart. The relation model reads some
    such pairs as a conflict, as it reads a one-word edit; nothing here can conflict."""
    return (
        bool(one.words)
        and one.words == other.words
        and one.negated == other.negated
        and all(old == new for _, old, new in _values_by_kind(one, other))
    )


def exclusive_conflict(one, other):
    """Whether `one` says its values are the only ones ("invoices only in EUR") and `other` names
    one of them along with others ("EUR, USD and GBP")."""
    only = set(one.exclusive)
    named = set(other.names)
    return bool(only & named) and bool(named - only - set(one.names))


def judge(older, newer, similarity, frame_similarity, later, relation, conversation=True):
    """A Verdict on how `newer` bears on `older` (None when they can both hold).

    `later` says whether the newer memory became valid after the older one; `relation` is the pair's
    row of `quality.facts.relation.relations`. Two memories in the same words (`restated`) are a
    `duplicate`, and so are two the relation model reads as the same fact (at least SAME_RELATION)
    unless a value of some kind gives way to another between them ("note 3" is not "note 4",
    whatever their likeness). Two valid from the
    same moment that it reads as conflicting (at least CONFLICT_RELATION), when the newer one does
    not say that a value changed, are a `contradiction`: both claim to hold at once. So is a near
    pair where one says its values are the only ones and the other names more (`exclusive_values`),
    unless the newer one says that this changed. Otherwise the newer memory replaces the older one
    (`superseded`) with the model's probability, at least 0.5. Turns of two speakers are never a
    duplicate and never replace each other, and a pair with no evidence of a change (`admissible`)
    is no replacement. Turns of a conversation (`conversation`: a turn is next to one of the two)
    are never a contradiction, and a replacement between them carries TURN: a note that merely
    opens with a label and a colon ("Bartek: write to …") is no turn of a conversation.
    """
    if similarity >= EXCLUSIVE_SIMILARITY and (
        exclusive_conflict(older, newer) or exclusive_conflict(newer, older)
    ):
        kind = "superseded" if later and newer.change else "contradiction"
        return Verdict(kind=kind, confidence=EXCLUSIVE_CONFIDENCE, signals=["exclusive_values"])
    turn = bool(older.speaker or newer.speaker)
    two_speakers = turn and older.speaker != newer.speaker
    chat = turn and conversation
    if restated(older, newer) and not two_speakers:
        return Verdict(kind="duplicate", confidence=round(float(similarity), 3), signals=["same_words"])
    if relation[SAME] >= SAME_RELATION and not two_speakers and not _value_changes(older, newer)[0]:
        return Verdict(
            kind="duplicate", confidence=round(float(relation[SAME]), 3), signals=["relation_same"]
        )
    if not later and not newer.change:
        if relation[CONFLICTING] >= CONFLICT_RELATION and not chat:
            return Verdict(
                kind="contradiction",
                confidence=round(float(relation[CONFLICTING]), 3),
                signals=["relation_conflicting"],
            )
        return None
    values = features(older, newer, similarity, frame_similarity, relation)
    if not admissible(older, newer, values):
        return None
    confidence = probability(values)
    if confidence < 0.5:
        return None
    fired = signals(values) + (["value_replaced"] if _value_replaced(older, newer) else [])
    if chat:
        fired.append(TURN)
    return Verdict(
        kind="superseded", confidence=round(confidence, 3), signals=[*fired, "time_order"] if later else fired
    )
