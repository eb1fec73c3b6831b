"""What the computations app tells the rest of the project.

``computation_finished`` is sent (keyword ``computation_id``) after a computation's step
ends it, done or failed; the webhooks app listens to it.
"""

from django.dispatch import Signal

computation_finished = Signal()
