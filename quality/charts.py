"""Plotly figures for the dashboard, built in Python and embedded as HTML fragments.

Every function takes ready data (lists and dicts from queries) and returns an HTML `<div>` with its
inline `Plotly.newPlot` call; the page loads plotly.js once from static/vendor. Figures use no
plotly template (a template adds kilobytes of JSON to every chart) but one shared, quiet layout.
"""

import math
from datetime import date, datetime, timedelta
from html import escape

import plotly.graph_objects as go
import plotly.io as pio

from quality import rules

INK = "#1f2933"
MUTED = "#6b7785"
GRID = "#e6e9ee"
ACCENT = "#3558c8"
# The same colours as the tier badges of static/css/dashboard.css and admin_panels.css.
TIER_COLOURS = {"high": "#2f8a5f", "medium": "#b07d12", "low": "#c2453a"}
TYPE_COLOURS = {
    "contradiction": "#c2453a",
    "duplicate": "#3558c8",
    "outdated": "#8a63b8",
    "low_confidence": "#d39b2a",
    "superseded": "#0f7c8c",
}
STATUS_COLOURS = {"open": "#c2453a", "resolved": "#2f8a5f", "dismissed": "#9aa5b1"}
CONFIG = {"displayModeBar": False, "responsive": True}
MAX_LABELLED = 16
SMALL_NEIGHBOURHOOD = 5


def _axis(**extra):
    return {
        "gridcolor": GRID,
        "zerolinecolor": GRID,
        "linecolor": GRID,
        "tickfont": {"color": MUTED},
        "automargin": True,
        **extra,
    }


def _time_axis(moments, minimum_span=timedelta(days=2)):
    """A date axis around the given moments, padded so that one instant does not fill the axis
    with sub-second ticks."""
    moments = [moment for moment in moments if moment is not None]
    if not moments:
        return _axis(type="date")
    low, high = min(moments), max(moments)
    if not isinstance(low, datetime):
        low = datetime.combine(low, datetime.min.time())
        high = datetime.combine(high, datetime.min.time())
    pad = max((minimum_span - (high - low)) / 2, (high - low) * 0.05)
    return _axis(type="date", range=[(low - pad).isoformat(), (high + pad).isoformat()])


def _layout(height=280, **extra):
    return {
        "template": "none",
        "height": height,
        "margin": {"l": 48, "r": 16, "t": 12, "b": 40},
        "font": {
            "family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
            "size": 12,
            "color": INK,
        },
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "xaxis": _axis(),
        "yaxis": _axis(),
        "showlegend": False,
        "hoverlabel": {"font": {"family": "system-ui, sans-serif"}},
        **extra,
    }


def _html(figure, div_id):
    return figure.to_html(full_html=False, include_plotlyjs=False, config=CONFIG, div_id=div_id)


def quality_histogram(buckets, div_id="chart-histogram"):
    """Bar chart of memory counts in ten 0.1-wide quality buckets, coloured by tier."""
    bounds = [rules.bucket_bounds(index) for index in range(rules.BUCKETS)]
    labels = [f"{lower:.1f}–{upper:.1f}" for lower, upper in bounds]
    colours = [TIER_COLOURS[rules.tier(lower)] for lower, _ in bounds]
    figure = go.Figure(
        go.Bar(
            x=labels,
            y=buckets,
            marker={"color": colours},
            hovertemplate="quality %{x}<br>%{y} memories<extra></extra>",
        ),
        layout=_layout(
            xaxis=_axis(title={"text": "quality score", "font": {"color": MUTED}}),
            yaxis=_axis(title={"text": "memories", "font": {"color": MUTED}}),
            bargap=0.08,
        ),
    )
    return _html(figure, div_id)


def tier_bars(tiers, height=200, div_id="chart-tiers"):
    """Horizontal bars for the high / medium / low tier counts."""
    names = list(reversed(rules.TIERS))
    labels = [rules.TIER_LABELS[name] for name in names]
    counts = [tiers.get(name, 0) for name in names]
    figure = go.Figure(
        go.Bar(
            x=counts,
            y=labels,
            orientation="h",
            marker={"color": [TIER_COLOURS[name] for name in names]},
            text=counts,
            textposition="auto",
            hovertemplate="%{y}: %{x} memories<extra></extra>",
        ),
        layout=_layout(height=height, margin={"l": 16, "r": 16, "t": 8, "b": 32}),
    )
    return _html(figure, div_id)


def dimension_bars(averages, div_id="chart-dimensions"):
    """Bars of the mean value of each of the five quality dimensions."""
    values = [round(averages.get(name) or 0, 3) for name in rules.DIMENSIONS]
    figure = go.Figure(
        go.Bar(
            x=[name.capitalize() for name in rules.DIMENSIONS],
            y=values,
            marker={"color": ACCENT},
            text=[f"{value:.2f}" for value in values],
            textposition="outside",
            cliponaxis=False,
            hovertemplate="%{x}: %{y:.3f}<extra></extra>",
        ),
        layout=_layout(yaxis=_axis(range=[0, 1.08], title={"text": "mean", "font": {"color": MUTED}})),
    )
    return _html(figure, div_id)


def quality_trend(snapshots, assessments, days=30, div_id="chart-trend"):
    """Average quality over the last `days` (None: since the first data): consolidation snapshots
    and the daily mean of evaluations. With data on one day only, a note says so instead of
    leaving a lone dot to explain itself."""
    today = date.today()
    seen = sorted({row["day"] for row in [*snapshots, *assessments]})
    start = (seen[0] if seen else today) if days is None else today - timedelta(days=days)
    figure = go.Figure(
        layout=_layout(
            xaxis=_time_axis([start, today], minimum_span=timedelta(days=1)),
            yaxis=_axis(range=[0, 1], title={"text": "average quality", "font": {"color": MUTED}}),
            showlegend=True,
            legend={"orientation": "h", "y": 1.12, "x": 0},
            margin={"l": 48, "r": 16, "t": 28, "b": 40},
        )
    )
    if len(seen) < 2:
        figure.add_annotation(
            text="No data yet" if not seen else f"Only {seen[0]:%Y-%m-%d} so far: a trend needs a second day",
            xref="paper",
            yref="paper",
            x=0.5,
            y=0.5,
            showarrow=False,
            font={"color": MUTED},
        )
    figure.add_trace(
        go.Scatter(
            x=[row["day"] for row in assessments],
            y=[row["average"] for row in assessments],
            customdata=[row["count"] for row in assessments],
            mode="lines+markers",
            name="mean of the day's evaluations (store, edit, review)",
            line={"color": "#9aa5b1", "dash": "dot"},
            hovertemplate="%{x|%Y-%m-%d}: %{y:.3f} over %{customdata} evaluations<extra></extra>",
        )
    )
    figure.add_trace(
        go.Scatter(
            x=[row["day"] for row in snapshots],
            y=[row["average"] for row in snapshots],
            customdata=[row["total"] for row in snapshots],
            mode="lines+markers",
            name="consolidation snapshot",
            line={"color": ACCENT, "width": 2.5},
            hovertemplate="%{x|%Y-%m-%d}: %{y:.3f} over %{customdata} memories<extra></extra>",
        )
    )
    return _html(figure, div_id)


ORIGIN_COLOURS = {"user": ACCENT, "enrichment": "#8a63b8", "consolidation": "#2f8a5f"}
ORIGIN_LABELS = {
    "user": "by a client or a reviewer",
    "enrichment": "automatically",
    "consolidation": "consolidation",
}


def superseded_per_week(rows, weeks, div_id="chart-superseded"):
    """Facts superseded per week, stacked by who decided; weeks without any are zero, not gaps."""
    today = date.today()
    first = today - timedelta(days=today.weekday(), weeks=weeks - 1)
    starts = [first + timedelta(weeks=index) for index in range(weeks)]
    figure = go.Figure(
        layout=_layout(
            height=240,
            barmode="stack",
            showlegend=True,
            legend={"orientation": "h", "y": 1.15, "x": 0},
            margin={"l": 48, "r": 16, "t": 28, "b": 40},
            xaxis=_axis(type="date", title={"text": "week starting", "font": {"color": MUTED}}),
            yaxis=_axis(rangemode="tozero", title={"text": "facts superseded", "font": {"color": MUTED}}),
        )
    )
    for origin, colour in ORIGIN_COLOURS.items():
        counts = {row["week"]: row["count"] for row in rows if row["origin"] == origin}
        figure.add_trace(
            go.Bar(
                x=starts,
                y=[counts.get(start, 0) for start in starts],
                name=ORIGIN_LABELS[origin],
                marker={"color": colour},
                hovertemplate=f"week of %{{x|%Y-%m-%d}}: %{{y}} {ORIGIN_LABELS[origin]}<extra></extra>",
            )
        )
    return _html(figure, div_id)


def inconsistency_counts(counts, div_id="chart-inconsistencies"):
    """Bars of findings per type side by side for each status, on a log scale so that a handful
    of contradictions stays visible beside hundreds of outdated memories; each bar is labelled."""
    types = list(TYPE_COLOURS)
    top = math.log10(max([*counts.values(), 1])) + 0.35
    powers = [10**power for power in range(math.floor(top) + 1)]
    figure = go.Figure(
        layout=_layout(
            height=260,
            barmode="group",
            showlegend=True,
            legend={"orientation": "h", "y": 1.15, "x": 0, "traceorder": "normal"},
            margin={"l": 56, "r": 16, "t": 28, "b": 40},
            yaxis=_axis(
                type="log",
                # From 0.5, so that a single finding is a visible bar; ticks at whole powers of ten.
                range=[math.log10(0.5), top],
                tickvals=powers,
                ticktext=[f"{value:,}" for value in powers],
                title={"text": "findings (log scale)", "font": {"color": MUTED}},
            ),
        )
    )
    for status, colour in STATUS_COLOURS.items():
        values = [counts.get((name, status), 0) for name in types]
        figure.add_trace(
            go.Bar(
                x=[name.replace("_", " ") for name in types],
                # A zero has no place on a log axis: it is left out, not drawn as a stub.
                y=[value or None for value in values],
                name=status,
                marker={"color": colour},
                text=[value or "" for value in values],
                textposition="outside",
                cliponaxis=False,
                hovertemplate=f"%{{x}}, {status}: %{{y}}<extra></extra>",
            )
        )
    return _html(figure, div_id)


def memory_dimensions(values, div_id="chart-memory-dimensions"):
    """Radar of one memory's five dimensions."""
    points = [round(values.get(name) or 0, 3) for name in rules.DIMENSIONS]
    names = [f"{name.capitalize()} {point:.2f}" for name, point in zip(rules.DIMENSIONS, points, strict=True)]
    figure = go.Figure(
        go.Scatterpolar(
            r=[*points, points[0]],
            theta=[*names, names[0]],
            fill="toself",
            fillcolor="rgba(53, 88, 200, 0.18)",
            line={"color": ACCENT},
            hovertemplate="%{theta}: %{r:.3f}<extra></extra>",
        ),
        layout=_layout(
            height=300,
            margin={"l": 56, "r": 56, "t": 24, "b": 24},
            polar={
                "radialaxis": {
                    "range": [0, 1],
                    "gridcolor": GRID,
                    "showticklabels": True,
                    "tickvals": [0.25, 0.5, 0.75, 1],
                    "ticktext": ["0.25", "0.5", "0.75", "1"],
                    "tickfont": {"color": MUTED, "size": 9},
                    "angle": 90,
                    "tickangle": 90,
                },
                "angularaxis": {"gridcolor": GRID},
                "bgcolor": "rgba(0,0,0,0)",
            },
        ),
    )
    return _html(figure, div_id)


def assessment_history(assessments, div_id="chart-assessments"):
    """One memory's overall quality at each evaluation."""
    figure = go.Figure(
        go.Scatter(
            x=[row["evaluated_at"] for row in assessments],
            y=[row["overall"] for row in assessments],
            customdata=[row["trigger"] for row in assessments],
            mode="lines+markers",
            line={"color": ACCENT, "shape": "hv"},
            hovertemplate="%{x|%Y-%m-%d %H:%M}: %{y:.3f} (%{customdata})<extra></extra>",
        ),
        layout=_layout(
            height=220,
            xaxis=_time_axis([row["evaluated_at"] for row in assessments]),
            yaxis=_axis(range=[0, 1]),
        ),
    )
    return _html(figure, div_id)


DUMBBELL_ROWS = 30


def _boost_text(row):
    return (
        f"{escape(row['label'], quote=False)}<br>{row['kind']}: {row['quality_before']:.2f}"
        f" → {row['quality_after']:.2f}, {row['connection_count']} connections"
    )


def _after_markers(boosts, x, y, size):
    """The quality after each boost, one trace per tier so that the legend's colours are the dots'."""
    traces = []
    for name in rules.TIERS:
        rows = [row for row in boosts if rules.tier(row["quality_after"]) == name]
        if rows:
            traces.append(
                {
                    "type": "scatter",
                    "x": [x(row) for row in rows],
                    "y": [y(row) for row in rows],
                    "mode": "markers",
                    "marker": {"color": TIER_COLOURS[name], "size": size},
                    "name": f"after: {rules.TIER_LABELS[name].lower()}",
                    "text": [_boost_text(row) for row in rows],
                    "hovertemplate": "%{text}<extra></extra>",
                }
            )
    return traces


def boost_figure(boosts):
    """The boosts as a plotly figure dict: over time when they come from several runs on several
    days, else a dumbbell per memory (before → after on one quality axis), which still reads
    when every boost came from one run."""
    runs = {row.get("run_id") for row in boosts}
    days = {row["created_at"].date() for row in boosts}
    if len(runs) > 1 and len(days) > 1:
        return _boost_over_time(boosts)
    return _boost_dumbbells(boosts)


def _boost_dumbbells(boosts):
    # The newest boost of each memory, largest changes first.
    newest = {}
    for row in boosts:
        newest.setdefault(row.get("memory_id", row["label"]), row)
    rows = sorted(newest.values(), key=lambda row: -abs(row["quality_after"] - row["quality_before"]))
    rows = rows[:DUMBBELL_ROWS]
    names = [f"{_plain_short(row['label'], 40)} #{index + 1}" for index, row in enumerate(rows)]
    label = dict(zip((id(row) for row in rows), names, strict=True))
    xs, ys = [], []
    for row in rows:
        xs += [row["quality_before"], row["quality_after"], None]
        ys += [label[id(row)], label[id(row)], None]
    data = [
        {
            "type": "scatter",
            "x": xs,
            "y": ys,
            "mode": "lines",
            "line": {"color": "#9aa5b1", "width": 2},
            "hoverinfo": "skip",
            "name": "change",
        },
        {
            "type": "scatter",
            "x": [row["quality_before"] for row in rows],
            "y": [label[id(row)] for row in rows],
            "mode": "markers",
            "marker": {"color": "#9aa5b1", "size": 8},
            "name": "before",
            "hovertemplate": "before %{x:.2f}<extra></extra>",
        },
        *_after_markers(rows, lambda row: row["quality_after"], lambda row: label[id(row)], 10),
    ]
    return {
        "data": data,
        "layout": _layout(
            height=90 + 22 * max(len(rows), 1),
            xaxis=_axis(range=[0, 1.02], title={"text": "quality", "font": {"color": MUTED}}),
            yaxis=_axis(type="category", autorange="reversed", tickfont={"color": MUTED, "size": 11}),
            showlegend=True,
            legend={"orientation": "h", "y": 1.02, "x": 0, "yanchor": "bottom"},
            margin={"l": 16, "r": 16, "t": 28, "b": 40},
            template={},
        ),
    }


def _boost_over_time(boosts):
    xs, ys = [], []
    for row in boosts:
        xs += [row["created_at"], row["created_at"], None]
        ys += [row["quality_before"], row["quality_after"], None]
    moments = [row["created_at"] for row in boosts]
    data = [
        {
            "type": "scatter",
            "x": xs,
            "y": ys,
            "mode": "lines",
            "line": {"color": "#9aa5b1", "width": 1.5},
            "hoverinfo": "skip",
            "name": "change",
        },
        {
            "type": "scatter",
            "x": moments,
            "y": [row["quality_before"] for row in boosts],
            "mode": "markers",
            "marker": {"color": "#9aa5b1", "size": 7},
            "name": "before",
            "hoverinfo": "skip",
        },
        *_after_markers(boosts, lambda row: row["created_at"], lambda row: row["quality_after"], 9),
    ]
    return {
        "data": data,
        "layout": _layout(
            height=300,
            xaxis=_time_axis(moments, minimum_span=timedelta(hours=6)),
            yaxis=_axis(range=[0, 1.02], title={"text": "quality", "font": {"color": MUTED}}),
            showlegend=True,
            legend={"orientation": "h", "y": 1.12, "x": 0},
            margin={"l": 48, "r": 16, "t": 28, "b": 40},
            template={},
        ),
    }


def boost_timeline(boosts, div_id="chart-boosts"):
    """The boost chart of `boost_figure` as HTML.

    Rendered without plotly's per-element validation: with a few hundred boosts that validation
    alone would take longer than the page's whole time budget.
    """
    return pio.to_html(
        boost_figure(boosts),
        full_html=False,
        include_plotlyjs=False,
        config=CONFIG,
        div_id=div_id,
        validate=False,
    )


def run_phases(phases, div_id):
    """Duration of each phase of one consolidation run."""
    names = list(phases)
    durations = [phases[name].get("duration_ms", 0) for name in names]
    figure = go.Figure(
        go.Bar(
            x=durations,
            y=[name.replace("_", " ") for name in names],
            orientation="h",
            marker={"color": ACCENT},
            hovertemplate="%{y}: %{x:.0f} ms<extra></extra>",
        ),
        layout=_layout(
            height=60 + 30 * max(len(names), 1),
            margin={"l": 16, "r": 16, "t": 8, "b": 32},
            xaxis=_axis(title={"text": "ms", "font": {"color": MUTED}}),
            yaxis=_axis(autorange="reversed"),
        ),
    )
    return _html(figure, div_id)


def phase_counts(phases, div_id="chart-phase-counts"):
    """The numeric counts of each phase of one consolidation run, one bar per phase and count, on
    a log scale: a run counts tens of boosts beside tens of thousands of evaluations. Zeros are
    left out (the phase table lists them); durations are not counts and have their own chart.

    `phases` are dicts with `label` and `counts` (name → value; yes/no flags are left out)."""
    labels, values = [], []
    for phase in phases:
        for name, value in phase["counts"].items():
            if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
                labels.append(f"{phase['label']} · {name}")
                values.append(value)
    top = math.log10(max([*values, 1])) + 0.3
    powers = [10**power for power in range(math.floor(top) + 1)]
    figure = go.Figure(
        go.Bar(
            x=values,
            y=labels,
            orientation="h",
            marker={"color": ACCENT},
            text=[f"{value:,}" for value in values],
            textposition="outside",
            cliponaxis=False,
            hovertemplate="%{y}: %{text}<extra></extra>",
        ),
        layout=_layout(
            height=60 + 24 * max(len(labels), 1),
            margin={"l": 16, "r": 48, "t": 8, "b": 32},
            xaxis=_axis(
                type="log",
                range=[math.log10(0.5), top],
                tickvals=powers,
                ticktext=[f"{value:,}" for value in powers],
                title={"text": "count (log scale)", "font": {"color": MUTED}},
            ),
            yaxis=_axis(autorange="reversed"),
        ),
    )
    return _html(figure, div_id)


def _radial_positions(centre_id, nodes, edges):
    """The centre at the origin, its neighbours evenly on a ring, and each memory two hops away
    on an outer ring next to the neighbour it was reached through (a radial tree)."""
    first = [node["id"] for node in nodes if node["depth"] == 1]
    angles = {node_id: 2 * math.pi * index / max(len(first), 1) for index, node_id in enumerate(first)}
    children = {}
    for edge in edges:
        for parent, child in ((edge["source"], edge["target"]), (edge["target"], edge["source"])):
            if parent in angles and child not in angles and child != centre_id:
                children.setdefault(child, parent)
    radius = 1.0 if children else 1.9
    positions = {centre_id: (0.0, 0.0)}
    positions.update(
        {node_id: (radius * math.cos(angle), radius * math.sin(angle)) for node_id, angle in angles.items()}
    )
    by_parent = {}
    for child, parent in children.items():
        by_parent.setdefault(parent, []).append(child)
    spread = math.pi / max(len(first), 1)
    for parent, kids in by_parent.items():
        for index, child in enumerate(kids):
            angle = angles[parent] + spread * ((index + 1) / (len(kids) + 1) - 0.5)
            positions[child] = (2 * math.cos(angle), 2 * math.sin(angle))
    return positions


def neighbourhood_network(centre_id, nodes, edges, div_id="chart-network"):
    """The memory's graph neighbourhood drawn as a radial tree.

    `nodes` are dicts with id, label, quality and depth (0 for the centre); `edges` are dicts with
    source, target, relation_type, strength and optionally properties. Only the edges of the tree
    (centre to neighbour, neighbour to second hop) are drawn, so a busy neighbourhood stays
    readable; neighbours are labelled, second hops show their text on hover.
    """
    positions = _radial_positions(centre_id, nodes, edges)
    depth = {node["id"]: node["depth"] for node in nodes}
    edge_x, edge_y, mid_x, mid_y, mid_text, mid_labels = [], [], [], [], [], []
    for edge in edges:
        ends = (edge["source"], edge["target"])
        tree_edge = centre_id in ends or sorted(depth.get(end, -1) for end in ends) == [1, 2]
        if not tree_edge or not all(end in positions for end in ends):
            continue
        (x0, y0), (x1, y1) = positions[ends[0]], positions[ends[1]]
        edge_x += [x0, x1, None]
        edge_y += [y0, y1, None]
        mid_x.append((x0 + x1) / 2)
        mid_y.append((y0 + y1) / 2)
        mid_labels.append(edge["relation_type"])
        extra = "".join(
            f"<br>{escape(str(key), quote=False)}: {escape(str(value), quote=False)[:80]}"
            for key, value in sorted((edge.get("properties") or {}).items())
        )
        mid_text.append(f"{edge['relation_type']}, strength {edge['strength']:.2f}{extra}")
    placed = [node for node in nodes if node["id"] in positions]
    figure = go.Figure(
        layout=_layout(
            height=460 if len(nodes) > SMALL_NEIGHBOURHOOD else 280,
            margin={"l": 8, "r": 8, "t": 8, "b": 8},
            xaxis={"visible": False, "range": [-2.9, 2.9]},
            yaxis={"visible": False, "range": [-2.25, 2.25]},
            hovermode="closest",
        )
    )
    figure.add_trace(
        go.Scatter(
            x=edge_x, y=edge_y, mode="lines", line={"color": "#c5cdd8", "width": 1.2}, hoverinfo="skip"
        )
    )
    # Each edge is labelled with its type where there are few enough to read; hover tells its
    # strength and properties.
    labelled_edges = len(mid_x) <= MAX_LABELLED
    figure.add_trace(
        go.Scatter(
            x=mid_x,
            y=mid_y,
            mode="markers+text" if labelled_edges else "markers",
            marker={"size": 5, "color": "#c5cdd8"},
            text=mid_labels if labelled_edges else None,
            textfont={"size": 9, "color": MUTED},
            textposition="top center",
            customdata=mid_text,
            hovertemplate="%{customdata}<extra></extra>",
        )
    )
    label_neighbours = sum(1 for node in placed if node["depth"] == 1) <= MAX_LABELLED
    for ring, size, labelled in ((2, 9, False), (1, 15, label_neighbours), (0, 24, True)):
        members = [node for node in placed if node["depth"] == ring]
        if not members:
            continue
        figure.add_trace(
            go.Scatter(
                x=[positions[node["id"]][0] for node in members],
                y=[positions[node["id"]][1] for node in members],
                mode="markers+text" if labelled else "markers",
                text=[_short(node["label"], 30) for node in members] if labelled else None,
                textposition=[_text_position(*positions[node["id"]]) for node in members],
                textfont={"size": 11 if ring == 0 else 10, "color": INK if ring == 0 else MUTED},
                customdata=[
                    f"{_short(node['label'], 160)}<br>quality {node['quality']:.2f}" for node in members
                ],
                marker={
                    "size": size,
                    "color": [TIER_COLOURS[rules.tier(node["quality"])] for node in members],
                    "opacity": 0.75 if ring == 2 else 1,
                    "line": {"color": INK if ring == 0 else "white", "width": 2 if ring == 0 else 1},
                },
                hovertemplate="%{customdata}<extra></extra>",
            )
        )
    return _html(figure, div_id)


def _text_position(x, y):
    """Put a label on the outer side of its node, away from the centre."""
    if x > 0.3:
        return "middle right"
    if x < -0.3:
        return "middle left"
    return "top center" if y > 0 else "bottom center"


def _plain_short(text, length):
    """The text cut to `length` at a word boundary, as plotly label markup that shows any tags
    in it literally."""
    text = " ".join(text.split())
    if len(text) > length:
        text = text[: length - 1].rsplit(" ", 1)[0] + "…"
    return escape(text, quote=False)


def _short(text, length):
    """The text cut to `length`, as plotly label markup that shows any tags in it literally."""
    return escape(text if len(text) <= length else text[: length - 1] + "…", quote=False)
