"""The discovery band is checked against detection's and enrichment's thresholds at start-up."""

from tests.startup import start_with


def test_a_band_reaching_into_similar_to_stops_start_up_naming_the_variables():
    result = start_with(MEMSITE_DISCOVERY_MAX_SIMILARITY="0.9")

    assert result.returncode != 0
    assert (
        "MEMSITE_DISCOVERY_MAX_SIMILARITY, which must not exceed MEMSITE_ENRICHMENT_SIMILAR_MIN_COSINE"
        in (result.stderr)
    )


def test_an_empty_band_stops_start_up():
    result = start_with(MEMSITE_DISCOVERY_MIN_SIMILARITY="0.7", MEMSITE_DISCOVERY_MAX_SIMILARITY="0.7")

    assert result.returncode != 0
    assert "MEMSITE_DISCOVERY_MIN_SIMILARITY must be below" in result.stderr


def test_a_per_memory_cap_of_zero_stops_start_up():
    result = start_with(MEMSITE_DISCOVERY_MAX_PER_MEMORY="0")

    assert result.returncode != 0
    assert "MEMSITE_DISCOVERY_MAX_PER_MEMORY must be between 1 and 50" in result.stderr
