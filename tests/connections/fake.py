"""A Label Studio in memory, standing in for ``connections.client.LabelStudioClient`` in the
tests that need no real one: a project, its users, its tasks with their annotations."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from connections.client import LabelStudioError
from tests.connections.helpers import LABEL_CONFIG


class FakeLabelStudio:
    def __init__(self, *, project_id: int = 7, users: int = 3) -> None:
        self.project_id = project_id
        self.users_list = [{"id": n + 1, "email": f"user{n + 1}@example.org"} for n in range(users)]
        self.tasks: dict[int, dict[str, Any]] = {}
        self.webhooks: dict[int, dict[str, Any]] = {}
        self.predictions: list[dict[str, Any]] = []
        self.next_annotation = 100
        self.down = False
        self.calls: list[str] = []

    # what the tests do in "Label Studio"
    def add_task(self, task_id: int, text: str) -> None:
        self.tasks[task_id] = {
            "id": task_id,
            "project": self.project_id,
            "data": {"text": text, "image": f"https://img.example.org/{task_id}.png"},
            "meta": {},
            "annotations": [],
            "predictions": [],
        }

    def annotate(self, task_id: int, user: int, result: list[dict[str, Any]]) -> int:
        self.next_annotation += 1
        self.tasks[task_id]["annotations"].append(
            {
                "id": self.next_annotation,
                # The task API gives the user as an object (the export: its id).
                "completed_by": {"id": user, "email": f"user{user}@example.org"},
                "result": result,
                "was_cancelled": False,
                "updated_at": f"2026-01-01T00:00:{self.next_annotation % 60:02d}Z",
            }
        )
        return self.next_annotation

    def update(self, annotation_id: int, result: list[dict[str, Any]]) -> None:
        for task in self.tasks.values():
            for annotation in task["annotations"]:
                if annotation["id"] == annotation_id:
                    annotation["result"] = result

    def delete(self, annotation_id: int) -> None:
        for task in self.tasks.values():
            task["annotations"] = [a for a in task["annotations"] if a["id"] != annotation_id]

    # the client's interface
    def _check(self, what: str) -> None:
        self.calls.append(what)
        if self.down:
            raise LabelStudioError("Label Studio did not answer at http://ls.example.org: down.")

    def project(self, project_id: int) -> dict[str, Any]:
        self._check("project")
        if project_id != self.project_id:
            raise LabelStudioError(f"Label Studio has no project {project_id}.", status=404)
        return {"id": project_id, "title": "Fake", "label_config": LABEL_CONFIG}

    def users(self) -> list[dict[str, Any]]:
        self._check("users")
        return list(self.users_list)

    def task(self, task_id: int) -> dict[str, Any] | None:
        self._check(f"task {task_id}")
        task = self.tasks.get(task_id)
        return dict(task) if task else None

    def task_pages(self, project_id: int, *, page_size: int) -> Iterator[list[dict[str, Any]]]:
        ordered = [self.tasks[key] for key in sorted(self.tasks)]
        for start in range(0, len(ordered), page_size):
            self._check(f"page {start // page_size + 1}")
            yield [dict(task) for task in ordered[start : start + page_size]]

    def webhook_create(
        self, *, project_id: int, url: str, headers: dict[str, str], actions: list[str]
    ) -> int:
        self._check("webhook_create")
        webhook_id = len(self.webhooks) + 1
        self.webhooks[webhook_id] = {"url": url, "headers": headers, "actions": actions}
        return webhook_id

    def webhook_delete(self, webhook_id: int) -> None:
        self._check("webhook_delete")
        self.webhooks.pop(webhook_id, None)

    def task_create(self, *, project_id: int, data: dict[str, Any]) -> int:
        self._check("task_create")
        task_id = max(self.tasks, default=0) + 1000
        self.tasks[task_id] = {"id": task_id, "project": project_id, "data": data, "meta": {},
                               "annotations": [], "predictions": []}  # fmt: skip
        return task_id

    def prediction_create(
        self, *, task_id: int, model_version: str, result: list[dict[str, Any]]
    ) -> None:
        self._check("prediction_create")
        prediction = {"model_version": model_version, "result": result}
        self.tasks[task_id]["predictions"].append(prediction)
        self.predictions.append({"task": task_id, **prediction})
