"""Consolidation (SPEC section 8): quality re-evaluation, association boost, relevance, retention,
auto-cleanup and snapshots, each one set-based step over the whole memory table."""

from quality.consolidation.boost import BOOST_METADATA_KEYS, boost_phase, reset_boost, reset_boosts
from quality.consolidation.engine import (
    PHASE_LABELS,
    PHASES,
    ConsolidationBusy,
    current_parameters,
    queue_consolidation,
    recover_abandoned_runs,
    run_consolidation,
)
from quality.consolidation.lifecycle import (
    PROTECTED_TAGS,
    cleanup_phase,
    relevance_phase,
    retention_phase,
    retention_threshold_days,
)

__all__ = [
    "BOOST_METADATA_KEYS",
    "PHASES",
    "PHASE_LABELS",
    "PROTECTED_TAGS",
    "ConsolidationBusy",
    "boost_phase",
    "cleanup_phase",
    "current_parameters",
    "relevance_phase",
    "recover_abandoned_runs",
    "queue_consolidation",
    "reset_boost",
    "reset_boosts",
    "retention_phase",
    "retention_threshold_days",
    "run_consolidation",
]
