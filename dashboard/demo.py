"""The demo data set behind `manage.py seed_demo`: a small engineering team's assistant memory.

Everything goes through the real services (store with embeddings and quality, associate, detect,
consolidate), so the dashboard shows what the service itself produces. Content is generated from
templates with a fixed random seed, so two runs produce the same memories.
"""

import random
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import connection
from django.utils import timezone

from graph.models import Origin
from graph.services import Link, associate_memories
from memories import services as memory_services
from memories.models import Memory
from quality.consolidation import run_consolidation
from quality.detection import detect_inconsistencies
from quality.models import Inconsistency, QualitySnapshot
from quality.services import Action, dismiss_inconsistency, resolve_inconsistency

SEED = 7
BATCH = 100
PEOPLE = ["Ana", "Bruno", "Chen", "Dara", "Elif", "Farid", "Grace", "Hiro", "Ines", "Jonas", "Kemal", "Lena"]
PROJECTS = ["Atlas", "Beacon", "Cobalt", "Delta", "Ember", "Fjord"]
TOOLS = [
    "PostgreSQL",
    "Redis",
    "Kafka",
    "Terraform",
    "Grafana",
    "Sentry",
    "Docker",
    "Kubernetes",
    "pytest",
    "Celery",
]
CITIES = [("Lisbon", "WET"), ("Berlin", "CET"), ("Toronto", "EST"), ("Singapore", "SGT"), ("Nairobi", "EAT")]
DRINKS = ["green tea", "espresso", "oat flat white", "sparkling water", "rooibos"]
PURPOSES = ["background jobs", "metrics", "error tracking", "caching", "deployments", "event streaming"]
REASONS = [
    "it was already in production elsewhere",
    "the team knew it best",
    "its managed offering was cheaper",
    "it handled the load test without tuning",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]

TEMPLATES = {
    "Decision": [
        "The {project} team decided to upgrade {tool} on the first {day} of each month.",
        "{project} will use {tool} for {purpose} from next quarter.",
        "We chose {tool} for {project} because {reason}.",
        "Releases of {project} are frozen during the last week of each quarter.",
    ],
    "Preference": [
        "{person} prefers {drink} during long planning meetings.",
        "{person} prefers written status updates over stand-up calls.",
        "{person} likes code review comments phrased as questions.",
        "{person} wants alerts for {project} routed to the team channel, not to email.",
        "{person} prefers pairing sessions in the morning and reviews in the afternoon.",
    ],
    "Habit": [
        "{person} reviews open pull requests every morning before stand-up.",
        "{person} writes the release notes for {project} on {day} afternoons.",
        "{person} runs the {tool} dashboards check at the start of every on-call shift.",
        "{person} blocks two hours of focus time every {day} morning.",
    ],
    "Pattern": [
        "Incidents in {project} usually start with {tool} running out of connections.",
        "Flaky tests in {project} almost always involve time zones or {tool} fixtures.",
        "Most {project} support tickets arrive on {day} after the weekly release.",
    ],
    "Insight": [
        "Adding an index on the events table cut {project} report time from 9 s to 120 ms.",
        "Batching {tool} writes in {project} halved the p95 latency of the ingest path.",
        "Caching the embedding model per process made {project} recall four times faster.",
    ],
    "Context": [
        "{person} is the on-call engineer for {project} this week.",
        "{person} works from {city} in the {tz} time zone.",
        "{person} joined the {project} team as tech lead in spring.",
        "{person} is on parental leave until the end of the month.",
        "{project} runs on {tool} in the production cluster.",
    ],
    "Style": [
        "{person} writes design docs with a one-paragraph summary first.",
        "{person} names branches after the ticket number and a short verb phrase.",
        "The {project} codebase formats SQL keywords in upper case.",
    ],
    "Memory": [
        "Met {person} to discuss the {project} roadmap and the {tool} migration.",
        "{person} demoed the new {project} onboarding flow at the {day} all-hands.",
        "Paired with {person} on the {tool} outage post-mortem for {project}.",
        "{person} asked for a one-page summary of the {project} incident review.",
    ],
}
# Near-identical restatements: detection reports them as duplicates.
DUPLICATES = [
    (
        "Ana prefers green tea during long planning meetings.",
        "Ana prefers green tea during long planning meetings!",
    ),
    (
        "The Atlas release checklist lives in the team wiki under Operations.",
        "The Atlas release checklist lives in the team wiki, under Operations.",
    ),
    (
        "Bruno refreshes the staging database snapshot every night.",
        "Bruno refreshes the staging database snapshot every single night.",
    ),
    (
        "Customer data for Beacon must stay in the EU region.",
        "Customer data for Beacon must stay inside the EU region.",
    ),
]
# Opposite statements about the same thing made at the same moment: detection reports them as
# contradictions (the later of two such statements would replace the earlier one instead).
CONTRADICTIONS = [
    (
        "Chen is available for on-call duty in December.",
        "Chen is not available for on-call duty in December.",
    ),
    (
        "The Cobalt API supports pagination with cursors.",
        "The Cobalt API does not support pagination with cursors.",
    ),
    ("Dara can approve production deploys for Delta.", "Dara cannot approve production deploys for Delta."),
    ("The Ember mobile app works offline.", "The Ember mobile app does not work offline."),
    ("Fjord uses feature flags for every release.", "Fjord never uses feature flags for releases."),
]
SOURCES = [
    ("user_input", True, 0.45),
    ("user_input", False, 0.25),
    ("agent", False, 0.15),
    ("tool_output", False, 0.1),
    ("bootstrapped", False, 0.05),
]
PROJECT_OVERVIEWS = {
    "Atlas": "Atlas is the customer analytics platform; it turns product events into weekly usage reports.",
    "Beacon": "Beacon is the notification service that sends email, push and in-app messages to customers.",
    "Cobalt": "Cobalt is the public REST API that partners use to sync orders and invoices.",
    "Delta": "Delta is the internal admin tool the support team uses to look up and fix customer accounts.",
    "Ember": "Ember is the mobile app for field technicians, built offline-first with background sync.",
    "Fjord": "Fjord is the data pipeline that loads partner files into the warehouse every night.",
}
RELATIONS = ["RELATES_TO", "LEADS_TO", "REINFORCES", "EXEMPLIFIES", "DERIVED_FROM", "EVOLVED_INTO"]


@dataclass
class DemoResult:
    memories: int = 0
    associations: int = 0
    findings: dict = field(default_factory=dict)
    runs: list = field(default_factory=list)


def _generate_contents(rng, count):
    """Unique (content, memory_type, project) triples from the templates, deterministically.

    Each template is used at most once per subject (its person, else its project), so two
    memories never differ by a single day or tool name: those would read as duplicates.
    """
    used, rows = set(), []
    templates = [(kind, template) for kind, group in TEMPLATES.items() for template in group]
    attempts = 0
    while len(rows) < count and attempts < count * 50:
        attempts += 1
        kind, template = rng.choice(templates)
        person, project = rng.choice(PEOPLE), rng.choice(PROJECTS)
        key = (template, person if "{person}" in template else project)
        if key in used:
            continue
        used.add(key)
        city, tz = rng.choice(CITIES)
        content = template.format(
            person=person,
            project=project,
            tool=rng.choice(TOOLS),
            day=rng.choice(DAYS),
            purpose=rng.choice(PURPOSES),
            reason=rng.choice(REASONS),
            drink=rng.choice(DRINKS),
            city=city,
            tz=tz,
        )
        rows.append((content, kind, project if "{project}" in template else None))
    return rows


def _age_days(rng):
    """Mostly recent memories, some from the last months, a few old enough to go stale."""
    share = rng.random()
    if share < 0.8:
        return rng.uniform(0, 60)
    if share < 0.93:
        return rng.uniform(60, 150)
    return rng.uniform(150, 260)


def _item(rng, content, memory_type, project, now, age_days=None):
    source_type, explicit, _ = rng.choices(SOURCES, weights=[weight for *_, weight in SOURCES])[0]
    tags = [memory_type.lower()]
    if project:
        tags.append(project.lower())
    if rng.random() < 0.08:
        tags.append(rng.choice(["critical", "reference", "temporary"]))
    age_days = _age_days(rng) if age_days is None else age_days
    return {
        "content": content,
        "tags": tags,
        "memory_type": memory_type,
        "importance": round(rng.uniform(0.2, 0.95), 2),
        "metadata": {"channel": rng.choice(["slack", "meeting", "email"])} if rng.random() < 0.4 else {},
        "source_type": source_type,
        "source_id": f"{source_type}:{rng.randrange(10_000)}" if rng.random() < 0.5 else "",
        "is_explicit": explicit,
        "created_at": now - timedelta(days=age_days, minutes=rng.randrange(1440)),
    }


def _store(owner, items, progress):
    stored = []
    for start in range(0, len(items), BATCH):
        chunk = items[start : start + BATCH]
        stored += [memory for memory, _ in memory_services.store_memories(owner, chunk)]
        if progress:
            progress(len(stored), len(items))
    return stored


def _links(rng, stored, projects, hubs):
    """Each project's overview linked to its project's memories (enough for a boost), plus a
    few cross-links between random memories."""
    links = []
    by_project = {}
    for memory, project in zip(stored, projects, strict=True):
        if project:
            by_project.setdefault(project, []).append(memory)
    for project, members in by_project.items():
        for member in members[: rng.randint(6, 12)]:
            strength = round(rng.uniform(0.6, 0.95), 2)
            links.append(Link(member.pk, hubs[project].pk, "PART_OF", strength, {"role": "member"}))
    for _ in range(len(stored) // 3):
        source, target = rng.sample(stored, 2)
        links.append(Link(source.pk, target.pk, rng.choice(RELATIONS), round(rng.uniform(0.3, 0.9), 2)))
    return links


def _backdate_first_assessments(owner):
    """Date each memory's store-time evaluation at the memory's own creation time, so imported
    history shows up in the trend chart."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE quality_qualityassessment a SET evaluated_at = m.created_at
            FROM memories_memory m
            WHERE a.memory_id = m.id AND m.owner_id = %s AND a.trigger = 'store'
            """,
            [owner.pk],
        )


def clear_demo_data(owner):
    """Remove the owner's memories (with their vertices, edges and history) and snapshots."""
    for memory in Memory.objects.filter(owner=owner).only("pk"):
        memory_services.delete_memory(memory)
    QualitySnapshot.objects.filter(owner=owner).delete()


def seed_demo(owner, count=300, progress=None):
    """Store about `count` memories for `owner`, link them, detect findings and consolidate."""
    rng = random.Random(SEED)
    now = timezone.now()
    rows = _generate_contents(rng, count - len(PROJECT_OVERVIEWS) - 2 * len(DUPLICATES + CONTRADICTIONS))
    overviews = [
        _item(rng, text, "Context", project, now, age_days=rng.uniform(1, 20))
        for project, text in PROJECT_OVERVIEWS.items()
    ]
    items = [_item(rng, content, kind, project, now) for content, kind, project in rows]
    for first, second in DUPLICATES + CONTRADICTIONS:
        items += [_item(rng, first, "Context", None, now), _item(rng, second, "Context", None, now)]
        if (first, second) in CONTRADICTIONS:
            items[-1]["created_at"] = items[-2]["created_at"]  # both claim to hold at once
    stored = _store(owner, overviews + items, progress)
    hubs = dict(zip(PROJECT_OVERVIEWS, stored, strict=False))
    stored = stored[len(overviews) :]
    projects = [project for _, _, project in rows] + [None] * (len(stored) - len(rows))
    by_content = {memory.content: memory for memory in stored}
    links = _links(rng, stored, projects, hubs)
    first, second = CONTRADICTIONS[0]
    links.append(Link(by_content[first].pk, by_content[second].pk, "CONTRADICTS", 0.9, {"reason": "demo"}))
    associate_memories(owner.pk, links, origin=Origin.USER)
    for memory in rng.sample(stored, len(stored) // 10):
        memory_services.corroborate_memory(memory, f"review:{rng.randrange(1000)}")
    _backdate_first_assessments(owner)
    detection = detect_inconsistencies(owner=owner)
    _review_some_findings(owner)
    runs = [
        run_consolidation(dry_run=True, started_by=owner),
        run_consolidation(dry_run=False, started_by=owner),
    ]
    return DemoResult(
        memories=len(stored) + len(hubs), associations=len(links), findings=dict(detection.found), runs=runs
    )


def _review_some_findings(owner):
    """Review a few findings the way a curator would, so the queue shows every status."""
    open_findings = Inconsistency.objects.filter(memory1__owner=owner, status=Inconsistency.Status.OPEN)
    duplicates = list(open_findings.filter(type=Inconsistency.Type.DUPLICATE, memory2__isnull=False)[:2])
    contradiction = open_findings.filter(type=Inconsistency.Type.CONTRADICTION).first()
    outdated = open_findings.filter(type=Inconsistency.Type.OUTDATED).first()
    if duplicates:
        resolve_inconsistency(duplicates[0], Action.MERGE, owner)
    if len(duplicates) > 1:
        dismiss_inconsistency(duplicates[1], owner)
    if contradiction:
        resolve_inconsistency(contradiction, Action.LINK_INVALIDATED_BY, owner, reason="newer statement")
    if outdated:
        dismiss_inconsistency(outdated, owner)
