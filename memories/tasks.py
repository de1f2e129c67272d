"""Background jobs of the memories app: access counters, re-embedding large sets of memories and
the planner's statistics."""

from procrastinate.contrib.django import app

from memories import planner, services
from memories.models import Memory
from memsite.jobs import TRANSIENT_RETRY


@app.task(queue="maintenance", lock="reembed", retry=TRANSIENT_RETRY)
def reembed_memories(memory_ids=None, batch_size=256):
    """Recompute the vectors of these memories (all of them when `memory_ids` is None)."""
    memories = Memory.objects.all() if memory_ids is None else Memory.objects.filter(pk__in=memory_ids)
    return services.reembed_memories(memories, batch_size)


@app.task(queue="maintenance", queueing_lock="apply-accesses", retry=TRANSIENT_RETRY)
def apply_accesses():
    """Fold the accesses recalls recorded into the memories' counters (queued by recall)."""
    return services.apply_accesses()


@app.task(queue="maintenance", queueing_lock="analyze-memories", retry=TRANSIENT_RETRY)
def analyze_memories():
    """Refresh the planner's statistics of the memory table (queued when an owner outgrew them)."""
    planner.analyze()
