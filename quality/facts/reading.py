"""What the fact reader notes about one memory's text, once per content.

A Reading holds the cues the judge (`quality.facts.judging`) compares between two memories: whether
the text says that something changed ("now", "moved", "no longer", "现在", "改为") or was added
("also", "也"), the phrases it says no longer hold ("don't use VS Code anymore", "instead of
Slack", "不再负责"), the words it negates, its names and values (capitalized words, numbers,
amounts, addresses), its content words, whether it speaks of somebody's relative, the words that
set one thing of a kind apart from another ("staging", "Year 9"), and whether its verbs belong to
attributes that hold one value at a time or several. `frame(text)` is the text with its values
masked, whose vector says what the memory states regardless of the value it gives.
"""

import re
import unicodedata
from dataclasses import asdict, dataclass, field

from memories import changes
from quality.facts import lexicon as lx

SPEAKER = changes.SPEAKER
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
VALUE = re.compile(r"[$€£¥]\s?\d[\d,.]*|\d[\d,.:/-]*\s?(?:%|am|pm)?|\b[A-Z][\w'’.-]+|[\w.+-]+@[\w.-]+")
NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w'’-]+")
VALUES = re.compile(r"[\w.+-]+@[\w.-]+|\d[\d.,:]*")
AMOUNT = re.compile(r"\d[\d.,:]*|[$€£¥]\s?\d[\d.,]*")
TERM = re.compile(r"[#@][\w.-]+|\b[A-Z][\w'’.-]+|\b\w*\d\w*\b")
# Values by kind, for "the same kind of value, another one" (Ghent → Antwerp, $12 → $15, 9:30 → 10:00).
VALUE_KINDS = {
    "money": re.compile(
        r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:元|块|欧|美元|eur|usd|gbp|dollars?|euros?|pounds?)\b",
        re.I,
    ),
    "time": re.compile(
        r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?[ap]\.?m\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
        r"周[一二三四五六日天]|星期[一二三四五六日天]|[上下]午|\d{1,2}点",
        re.I,
    ),
    "date": re.compile(
        r"\b\d{1,2}(?:st|nd|rd|th)?\s(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*|"
        r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\s\d{1,2}\b|\d{4}-\d{2}-\d{2}|\d{1,2}\s?月\s?\d{1,2}\s?[日号]",
        re.I,
    ),
    "version": re.compile(r"\bv?\d+(?:\.\d+){1,3}\b"),
    "contact": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\+?\d[\d ()-]{6,}\d"),
    "number": re.compile(r"\b\d+(?:[.,]\d+)?\b"),
    "name": re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w'’-]+"),
}
MIN_TERM = 3


def fold(text):
    """Lower case without accents: "Kraków" and "krakow" compare equal."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def normal(value):
    """The form two phrases compare in."""
    value = re.sub(r"^(?:the|a|an|our|my|his|her|their)\s+", "", fold(value))
    return re.sub(r"[\s\W_]+", " ", value).strip()


def without_speaker(text):
    """A conversation turn's text without its "Speaker: " prefix."""
    return SPEAKER.sub("", text, count=1)


def frame(text):
    """The text with its values (numbers, amounts, capitalized words but the first, addresses) masked."""
    words = without_speaker(text).split()
    if not words:
        return ""
    return f"{words[0]} {VALUE.sub('X', ' '.join(words[1:]))}".strip()


@dataclass
class Reading:
    speaker: str = ""
    change: bool = False
    addition: bool = False
    transient: bool = False
    negated: bool = False
    replaced: list = field(default_factory=list)
    negated_terms: list = field(default_factory=list)
    terms: list = field(default_factory=list)
    names: list = field(default_factory=list)
    amounts: list = field(default_factory=list)
    words: list = field(default_factory=list)
    relative: bool = False
    contrasts: list = field(default_factory=list)
    numbered: list = field(default_factory=list)
    multi_valued: bool = False
    single_valued: bool = False
    cjk: bool = False
    values: dict = field(default_factory=dict)
    subject: list = field(default_factory=list)
    exclusive: list = field(default_factory=list)

    def as_json(self):
        return asdict(self)

    @classmethod
    def from_json(cls, data):
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


def read(text):
    """The Reading of a memory's text."""
    speaker = SPEAKER.match(text)
    body = without_speaker(text)
    folded = fold(body)
    tokens = re.findall(r"\w+", folded)
    return Reading(
        speaker=fold(speaker.group(1)) if speaker else "",
        change=bool(lx.CHANGE_EN.search(body) or lx.CHANGE_ZH.search(body)),
        addition=bool(lx.ADDITION_EN.search(body) or lx.ADDITION_ZH.search(body)),
        transient=bool(lx.TRANSIENT_EN.search(body) or lx.TRANSIENT_ZH.search(body)),
        negated=bool(lx.NEGATION_EN.search(body) or lx.NEGATION_ZH.search(body)),
        replaced=[
            normal(match.group(1))
            for pattern in (lx.REPLACED_EN, lx.REPLACED_PASSIVE_EN, lx.REPLACED_ZH)
            for match in pattern.finditer(body)
        ],
        negated_terms=negated_terms(body),
        terms=_terms(body),
        names=sorted({fold(name) for name in NAME.findall(body)} | set(VALUES.findall(body))),
        amounts=sorted(
            set(AMOUNT.findall(body)) | {fold(word) for word in re.findall(r"\b[A-Z][\w'’-]+", body)}
        ),
        words=sorted({word for word in tokens if word not in lx.FILLER and len(word) > 2}),
        relative=any(word in lx.RELATIVES for word in tokens)
        or any(word in body for word in lx.ZH_RELATIVES),
        contrasts=sorted(
            {word for word in tokens if word in lx.CONTRAST} | {w for w in lx.ZH_CONTRAST if w in body}
        ),
        numbered=sorted(set(lx.NUMBERED.findall(folded))),
        multi_valued=bool(lx.MULTI_VALUED.search(body)),
        single_valued=bool(lx.SINGLE_VALUED.search(body)),
        cjk=bool(CJK.search(body)),
        subject=subject_words(body, fold(speaker.group(1)) if speaker else ""),
        exclusive=sorted(
            {
                fold(value)
                for match in lx.EXCLUSIVE_EN.finditer(body)
                for value in re.findall(r"[\w.+-]+", match.group(1))
            }
            - {"and", "or"}
        ),
        values={
            kind: sorted({fold(v).replace(" ", "") for v in pattern.findall(body)})
            for kind, pattern in VALUE_KINDS.items()
        },
    )


FIRST_PERSON = lx.words("i i'm i’m i've i’ve i'd i’d me my we we're we’re we've we’ve our us")


def subject_words(text, speaker=""):
    """The content words of the first clause's subject: English words before its first verb,
    Chinese characters before the first verb-like character. "I" and "we" are the speaker (or the
    owner: "<self>")."""
    first = re.split(r"[.!?;。！？；，,]", text, maxsplit=1)[0]
    if CJK.search(first):
        match = lx.ZH_VERB.search(first)
        head = first[: match.start()] if match else first
        return [re.sub(r"[的\s\W]", "", head)] if re.sub(r"[的\s\W]", "", head) else []
    tokens = first.split()
    for position, token in enumerate(tokens):
        low = fold(token.strip("\"'()"))
        if position and (low in lx.VERBS or (len(low) > 4 and low.endswith("ed"))):
            tokens = tokens[:position]
            break
    found = []
    for position, token in enumerate(tokens):
        low = fold(token.strip("\"'(),:")).removesuffix("'s").removesuffix("’s")
        named = position > 0 and token[:1].isupper()
        for part in re.split(r"[-/]", low):
            if part and part not in lx.FILLER and (named or part not in lx.GENERIC):
                found.append(part)
    if not found and any(fold(token) in FIRST_PERSON for token in tokens):
        found = [speaker or "<self>"]
    return list(dict.fromkeys(found))


def _terms(text):
    """The words that name things: capitalized words, tags and handles, numbers with letters."""
    found = dict.fromkeys(normal(term) for term in TERM.findall(text))
    return [term for term in found if term and term not in lx.FILLER and len(term) >= MIN_TERM]


NEGATED_WINDOW = 3


def negated_terms(text):
    """The content words a negation cue applies to: the next few words after it (English), or the
    characters after it (Chinese)."""
    terms = []
    for match in lx.NEGATION_EN.finditer(text):
        following = [
            fold(word.strip(".,;:!?\"'()")) for word in text[match.end() :].split()[: NEGATED_WINDOW + 2]
        ]
        terms += [word for word in following if word and word not in lx.FILLER][:NEGATED_WINDOW]
    for match in lx.NEGATION_ZH.finditer(text):
        following = re.sub(r"[^\u3400-\u9fff]", "", text[match.end() : match.end() + 6])
        following = re.sub(r"^(是|会|能|要|再|了|过|在)", "", following)
        if len(following) >= 2:
            terms.append(following[:2])
    return list(dict.fromkeys(terms))
