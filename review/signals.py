"""What the review app tells the rest of the project.

``review_items_added`` is sent (keywords ``study_id``, ``round_id``, ``question_id``,
``entry_ids``, and ``event_id`` and ``data`` describing them for the webhook event
``review.items_added``) after items entered a round's review queue; the webhooks app
listens to it.
"""

from django.dispatch import Signal

review_items_added = Signal()
