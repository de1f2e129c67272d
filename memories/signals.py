"""What the memories app tells the apps above it, without knowing them.

`reembedded` is sent, inside the transaction that wrote them, when memories got new vectors from
the configured provider (`services.reembed_memories`, once per batch): `memory_ids` are those
memories. The quality app recomputes the vectors it keeps for them with the same provider.
"""

from django.dispatch import Signal

reembedded = Signal()
