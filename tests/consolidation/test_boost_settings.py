"""The seed's boost variables are checked when the service starts."""

from tests.startup import START, start_with

SHOW_FACTOR = START + "; from django.conf import settings; print(settings.BOOST_FACTOR)"


def test_a_boost_factor_of_two_and_a_half_stops_start_up_naming_the_variable():
    result = start_with(MCP_CONSOLIDATION_QUALITY_BOOST_FACTOR="2.5")

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "MCP_CONSOLIDATION_QUALITY_BOOST_FACTOR must be between 1.0 and 2.0" in result.stderr


def test_a_minimum_of_zero_connections_stops_start_up_naming_the_variable():
    result = start_with(MCP_CONSOLIDATION_MIN_CONNECTIONS_FOR_BOOST="0")

    assert result.returncode != 0
    assert "MCP_CONSOLIDATION_MIN_CONNECTIONS_FOR_BOOST must be between 1 and 100" in result.stderr


def test_a_factor_in_range_starts():
    result = start_with(SHOW_FACTOR, MCP_CONSOLIDATION_QUALITY_BOOST_FACTOR="1.5")

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1.5"
