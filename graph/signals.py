"""What the graph tells the apps above it, without knowing them.

`supersession_changed` is sent, inside the transaction that made the change, when INVALIDATED_BY
associations were written or removed: `memory_ids` are the memories (their sources) whose
validity the database recomputed (graph migration 0007). The quality app re-evaluates them.
"""

from django.dispatch import Signal

supersession_changed = Signal()
