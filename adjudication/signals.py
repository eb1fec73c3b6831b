"""What the adjudication app tells the rest of the project.

``items_adjudicated`` is sent (keywords ``round_id``, ``question_id``, ``item_ids``,
``note`` and ``user``) inside the transaction that records adjudications; the review app
listens to it and takes the items out of its queue.
"""

from django.dispatch import Signal

items_adjudicated = Signal()
