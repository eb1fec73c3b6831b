"""What the review app tells the rest of the project.

``review_items_added`` is sent (keywords ``study_id``, ``round_id``, ``question_id``,
``entry_ids``) when items enter a round's review queue; the webhooks app listens to it.
"""

from django.dispatch import Signal

review_items_added = Signal()
