"""What the dashboard and the Django admin show about one memory, one finding, one consolidation run,
a list of memories and a list of boosts: ready data and plotly figures, built here once for both."""

from django.core.paginator import Paginator
from django.utils.functional import cached_property

from dashboard import queries
from dashboard.forms import resolution_choices
from dashboard.versions import memory_versions
from graph import queries as graph_queries
from quality import charts
from quality import queries as quality_queries
from quality.models import Inconsistency

# A memory with few neighbours also shows their neighbours; a hub shows its own links only.
SECOND_HOP_BELOW = 12
NEIGHBOURHOOD_NODES = 40
BOOSTS_CHARTED = 200


def memory_panels(memory):
    """Versions, dimensions (radar), assessment and boost history, findings with their actions,
    neighbourhood."""
    data = quality_queries.memory_history(memory)
    dimensions = quality_queries.dimensions_of(memory)
    history = [
        {"evaluated_at": row.evaluated_at, "overall": row.overall, "trigger": row.trigger}
        for row in reversed(data["assessments"])
    ]
    graph = graph_queries.neighbors(memory.owner_id, memory.pk, graph_queries.TraversalParams(depth=1))
    if 0 < graph["count"] <= SECOND_HOP_BELOW:
        graph = graph_queries.neighbors(memory.owner_id, memory.pk, graph_queries.TraversalParams(depth=2))
    nodes = graph["nodes"][:NEIGHBOURHOOD_NODES]
    return {
        **data,
        "finding_rows": [
            {
                "finding": finding,
                "actions": resolution_choices(finding) if finding.status == Inconsistency.Status.OPEN else [],
            }
            for finding in data["findings"]
        ],
        "versions": memory_versions(memory),
        "dimensions": dimensions,
        "dimension_chart": charts.memory_dimensions(dimensions),
        "history_chart": charts.assessment_history(history) if history else "",
        "neighbours": queries.direct_links(memory.pk, graph["edges"], nodes),
        "network_chart": _network_chart(memory, nodes, graph["edges"]) if nodes else "",
    }


def _network_chart(memory, nodes, edges):
    centre = str(memory.pk)
    points = [{"id": centre, "label": memory.content, "quality": memory.quality_score, "depth": 0}] + [
        {"id": node["id"], "label": node["content"], "quality": node["quality_score"], "depth": node["depth"]}
        for node in nodes
    ]
    lines = [
        {
            "source": edge["source"],
            "target": edge["target"],
            "relation_type": edge["type"],
            "strength": edge["strength"],
        }
        for edge in edges
    ]
    return charts.neighbourhood_network(centre, points, lines)


class SummaryPaginator(Paginator):
    """Pages of a memory queryset whose count comes from the quality summary of the same rows,
    counted in the summary's one scan instead of a second one."""

    def __init__(self, memories, per_page, **kwargs):
        super().__init__(memories, per_page, **kwargs)
        self.summary = queries.list_summary(memories)

    @cached_property
    def count(self):
        return self.summary["total"]


def memory_list_panels(summary):
    """Quality histogram and tier bars of a memory list's summary, with the count they cover."""
    return {
        "list_summary": summary,
        "histogram_chart": charts.quality_histogram(summary["histogram"]),
        "tier_chart": charts.tier_bars(summary["tiers"]),
    }


def boost_list_panels(boosts):
    """Before → after over time for the newest boosts of a QualityBoost queryset."""
    points = queries.boost_points(boosts, BOOSTS_CHARTED)
    return {"charted_boosts": len(points), "boost_chart": charts.boost_timeline(points) if points else ""}


def phase_duration_chart(phases):
    durations = {phase["label"]: {"duration_ms": phase["duration_ms"] or 0} for phase in phases}
    return charts.run_phases(durations, div_id="chart-run-phases")


def run_panels(run):
    """What one consolidation run did: when and how long, a per-phase table of durations and
    counts, its parameters, and a dry run's proposed pairs with both memories."""
    phases = queries.run_phases(run)
    seconds = (run.finished_at - run.started_at).total_seconds() if run.finished_at else None
    return {
        "run_seconds": seconds,
        "phases": phases,
        "phase_chart": phase_duration_chart(phases) if phases else "",
        "count_chart": charts.phase_counts(phases) if any(phase["counts"] for phase in phases) else "",
        "parameters": queries.run_parameters(run),
        "pairs": queries.proposed_pairs(run),
    }
