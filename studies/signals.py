"""What the core app tells the rest of the project.

``round_closed`` is sent (keyword ``round``) inside the transaction that closes a round;
the computations app listens to it to compute the round's agreement.
"""

from django.dispatch import Signal

round_closed = Signal()
