"""Named entities of a text, as tags: what is worth tagging, and the one slug for storing and lookup.

A proper name is a capitalized word, or a run of them, that does not open a sentence or a clause
after a colon ("Speaker: text") and is not a stop word, an interjection, a weekday or a month
(see `_joins` for the words a run may also hold). A first name or a place of the gazetteer
(`graph.gazetteer`) counts wherever it stands, so "Caroline: Hey Mel!" names both; so does a
capitalized word or pair of words the owner already uses as an entity tag.
A run ends at a comma, and codes are not names: a word with a digit ("Q1"), a currency code
("EUR") or an all-capitals word listed with another ("SKU, UPC or EAN").
`slug()` is the only way an entity becomes a tag: enrichment stores `entity:<slug>` and recall's
`expand_entities` looks up the slugs of the query's words and word pairs, so "O'Brien's" in a
memory and "O'Brien" in a question meet at `entity:o-brien`.
"""

import re

from graph import gazetteer

PREFIX = "entity:"
MAX_TAG_LENGTH = 100
SENTENCE_END = re.compile(r"[.!?:;]+[\"')\]]*\s+|\n+|\s[-–—]+\s")
EDGE_PUNCTUATION = "\"'`“”‘’.,;:!?()[]{}<>*_~"
POSSESSIVES = ("'s", "’s", "'S", "’S")
LIST_WORDS = {"and", "or", "&", "/"}
CODE_LENGTH = 5
SURNAME_SHAPE = re.compile(r"[A-Z]['’][A-Z][a-z]+|[A-Z][a-z]{1,2}[A-Z][a-z]+")


def _word_set(text):
    return frozenset(text.split())


STOP_WORDS = _word_set(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i i'd i'll i'm i've if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that that's the their theirs them
    themselves then there these they this those through to too under until up very was we were what
    when where which while who whom why will with would you your yours yourself yourselves also
    anyway anything everyone everything maybe nothing someone something sure thank thanks
    let's it's what's there's here's he's she's we're they're you're don't can't won't didn't
    isn't wasn't aren't couldn't wouldn't shouldn't gonna wanna"""
)
INTERJECTIONS = _word_set(
    """ah aha aw aww awesome bye cheers congrats congratulations cool damn dear gee gosh great ha
    haha hahaha hello hey hi hm hmm hooray huh lol nah nice oh ok okay omg oops ooh ouch phew please
    right so sorry uh um wow whoa yay yeah yep yes yup welcome wonderful amazing totally definitely
    absolutely exactly indeed well"""
)
CALENDAR_WORDS = _word_set(
    """monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri
    sat sun january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec today tomorrow yesterday tonight"""
)
NOT_NAMES = STOP_WORDS | INTERJECTIONS | CALENDAR_WORDS
LINKERS = {"of", "the"}


def slug(words):
    """The tag form of a name: case-folded words joined by '-', other characters '-' too."""
    text = "-".join(words).casefold()
    return re.sub(r"[^\w]+", "-", text).strip("-_")[: MAX_TAG_LENGTH - len(PREFIX)]


def tag(name_slug):
    return f"{PREFIX}{name_slug}"


def _word(token):
    word = token.strip(EDGE_PUNCTUATION)
    for suffix in POSSESSIVES:
        word = word.removesuffix(suffix)
    return word.strip(EDGE_PUNCTUATION)


def _is_name(word):
    return (
        len(word) > 1
        and word[0].isupper()
        and word.casefold() not in NOT_NAMES
        and not any(character.isdigit() for character in word)
        and word not in gazetteer.currency_codes()
    )


def _is_named_anywhere(word):
    """A first name or a place of the gazetteer, or a word shaped like a name ("O'Brien",
    "D'Angelo", "McKay", "LeBron"): a name even opening a sentence."""
    folded = word.casefold()
    listed = folded in gazetteer.first_names() or folded in gazetteer.places()
    return _is_name(word) and (listed or bool(SURNAME_SHAPE.fullmatch(word)))


def _is_code(word):
    return word.isupper() and len(word) <= CODE_LENGTH


def _codes(tokens, words):
    """Positions of the all-capitals words listed with another one ("EUR, USD and GBP")."""
    listed = set()
    for position in range(len(words) - 1):
        joined = tokens[position].endswith(",") or tokens[position].endswith("/")
        if not joined and position + 2 < len(words) and words[position + 1].casefold() in LIST_WORDS:
            joined, other = True, position + 2
        else:
            other = position + 1
        if joined and _is_code(words[position]) and _is_code(words[other]):
            listed |= {position, other}
    return listed


def _joins(words, position, run, ends):
    """Whether the word at `position` is part of a name: a capitalized word that does not open the
    sentence, or a gazetteer name that does; or, when the next word is a name (and no comma comes
    between), a capitalized opening word that is not a common word ("Harry Potter", not "Glad
    Max") unless the two are a place ("New York"), a capitalized stop word ("The Alchemist",
    "Under Armour") or, inside a name, "of"/"the" ("Game of Thrones")."""
    word = words[position]
    if (position > 0 and _is_name(word)) or _is_named_anywhere(word):
        return True
    following = words[position + 1] if position + 1 < len(words) and not ends[position] else ""
    if not _is_name(following):
        return False
    if position == 0:
        opening = word.casefold() not in gazetteer.common_words()
        return _is_name(word) and (opening or f"{word} {following}".casefold() in gazetteer.places())
    if len(word) > 1 and word[0].isupper() and word.casefold() in STOP_WORDS:
        return True
    return bool(run) and word in LINKERS


def _is_known(word, known, following=None):
    """A capitalized word (or pair) the owner already has as an entity, wherever it stands."""
    if not word[:1].isupper() or word.casefold() in NOT_NAMES:
        return False
    return slug([word] if following is None else [word, following]) in known


def words_of(text):
    """The words of `text` sentence by sentence, possessives and edge punctuation removed."""
    return [[_word(token) for token in sentence.split()] for sentence in SENTENCE_END.split(text)]


def _sentences(text):
    """(tokens, words) of each sentence of `text`."""
    for sentence in SENTENCE_END.split(text):
        tokens = sentence.split()
        yield tokens, [_word(token) for token in tokens]


def candidate_slugs(text):
    """Slugs of every word and adjacent pair of words: what could name an entity in `text`."""
    slugs = set()
    for words in words_of(text):
        singles = [slug([word]) for word in words]
        slugs |= {single for single in singles if single}
        slugs |= {slug([a, b]) for a, b in zip(words, words[1:], strict=False) if slug([a, b])}
    return slugs


def proper_names(text, known=()):
    """Slugs of the proper names in `text` (see the module), plus words or pairs in `known`."""
    names = set()
    for tokens, words in _sentences(text):
        codes = _codes(tokens, words)
        ends = [token.rstrip("\"'’”)").endswith((",", "/")) for token in tokens]
        run = []
        for position, word in enumerate(words):
            if position not in codes and _joins(words, position, run, ends):
                run.append(word)
                if not ends[position]:
                    continue
            elif _is_known(word, known) and position not in codes:
                names.add(slug([word]))
            if run:
                names.add(slug(run))
                run = []
        if run:
            names.add(slug(run))
        names |= {slug([a, b]) for a, b in zip(words, words[1:], strict=False) if _is_known(a, known, b)}
    return {name for name in names if name}


def first_name_of(name_slug):
    """The first word of a full name's slug when it is a first name ("zoë" of "zoë-o-brien"), and
    not a place ("paris" of "paris-hilton"): the alias the full name may go by; else None."""
    first, _, rest = name_slug.partition("-")
    if rest and first in gazetteer.first_names() and first not in gazetteer.places():
        return first
    return None


def query_tags(query):
    """The tags a query may name: its words and word pairs (stop words, interjections and calendar
    words left out) as plain tags and as entity tags."""
    names = set()
    for words in words_of(query):
        kept = [word if len(word) > 1 and word.casefold() not in NOT_NAMES else None for word in words]
        names |= {slug([word]) for word in kept if word}
        names |= {slug([a, b]) for a, b in zip(kept, kept[1:], strict=False) if a and b}
    names.discard("")
    return sorted(names | {tag(name) for name in names})
