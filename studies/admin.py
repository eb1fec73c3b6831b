"""The Django admin: declarative pages; every multi-step write goes through a service.

Annotations and their change log are read-only here: labels are written through the API
(or imports), which records every change. Tokens are created here with their secret shown
once, in a message after saving; only its hash is stored.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, ForeignKey, QuerySet
from django.forms import ModelChoiceField
from django.http import HttpRequest
from django.utils import timezone
from django.utils.html import format_html, format_html_join

# The study and round pages gather actions of the computations and exchange apps: the one
# place the core app refers to them.
from computations.admin import compute_agreement_for_rounds, compute_agreement_for_studies
from exchange.admin import StudyImportAdminMixin
from studies.exceptions import ApplicationError
from studies.kinds import kind_of
from studies.labels import CategoryRow, LabelScheme
from studies.models import (
    GRRAS_STUDY_FIELDS,
    Annotation,
    AnnotationChange,
    ApiToken,
    Category,
    Coder,
    Item,
    Membership,
    ModelCoderRound,
    Question,
    Role,
    Round,
    RoundStatus,
    SpanUnit,
    Study,
)
from studies.services import admin_actions
from studies.services.roster import extent_errors
from studies.services.rounds import round_close, round_reopen
from studies.services.scheme import UNDIRECTED_ONLY, undirected_problem
from studies.services.study import study_delete
from studies.services.tokens import personal_token_create, study_token_create, token_revoke


def category_path(category: Category) -> str:
    """The codes from the root to this category, ``root/child/leaf``."""
    codes = [category.code]
    seen = {category.pk}
    parent = category.parent
    while parent is not None and parent.pk not in seen:
        codes.append(parent.code)
        seen.add(parent.pk)
        parent = parent.parent
    return "/".join(reversed(codes))


_LAST_MANAGER = (
    "The study's last manager cannot be removed or demoted; make someone else manager first."
)


def _has_other_managers(membership: Membership) -> bool:
    return (
        Membership.objects.filter(study_id=membership.study_id, role=Role.MANAGER)
        .exclude(pk=membership.pk)
        .exists()
    )


class MembershipInlineFormSet(forms.BaseInlineFormSet):
    """A study that has a manager keeps one after the inline's changes and deletions."""

    def clean(self) -> None:
        super().clean()
        study = self.instance
        if study.pk is None or not study.memberships.filter(role=Role.MANAGER).exists():
            return
        kept = [
            form.cleaned_data
            for form in self.forms
            if form.cleaned_data and not form.cleaned_data.get("DELETE")
        ]
        if not any(data.get("role") == Role.MANAGER for data in kept):
            raise forms.ValidationError(_LAST_MANAGER)


class MembershipAdminForm(forms.ModelForm):
    class Meta:
        model = Membership
        fields = ("study", "user", "role")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        before = self.instance
        if before.pk is None:
            return cleaned
        original = Membership.objects.get(pk=before.pk)
        leaves = cleaned.get("role") != Role.MANAGER or cleaned.get("study") != original.study
        if original.role == Role.MANAGER and leaves and not _has_other_managers(original):
            raise forms.ValidationError(_LAST_MANAGER)
        return cleaned


class MembershipInline(admin.TabularInline):
    model = Membership
    formset = MembershipInlineFormSet
    extra = 0
    autocomplete_fields = ("user",)
    fields = ("user", "role", "created_at")
    readonly_fields = ("created_at",)


class QuestionAdminForm(forms.ModelForm):
    """A question as the services see it: ``span_unit`` for span questions only (characters
    when left blank), fixed once units are stored; no kind without undirected labels while
    some of its categories are undirected."""

    class Meta:
        model = Question
        fields = ("study", "key", "text", "kind", "min_value", "max_value", "span_unit", "position")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        kind, span_unit = cleaned.get("kind"), cleaned.get("span_unit") or ""
        if (
            kind
            and self.instance.pk is not None
            and not kind_of(kind).undirected_categories
            and self.instance.categories.filter(undirected=True).exists()
        ):
            self.add_error("kind", f"Some categories are undirected. {UNDIRECTED_ONLY}")
        if not kind or not kind_of(kind).takes_span_unit:
            if span_unit:
                self.add_error("span_unit", "Only span questions take a span unit.")
            return cleaned
        cleaned["span_unit"] = span_unit or SpanUnit.CHARACTER.value
        instance = self.instance
        if (
            instance.pk is not None
            and instance.label_kind.takes_span_unit
            and (instance.span_unit or SpanUnit.CHARACTER) != cleaned["span_unit"]
            and Annotation.objects.filter(
                round__study_id=instance.study_id, question_id=instance.pk
            ).exists()
        ):
            self.add_error("span_unit", "The span unit cannot change once units are stored.")
        return cleaned


class QuestionInline(admin.TabularInline):
    model = Question
    form = QuestionAdminForm
    extra = 0
    show_change_link = True
    fields = ("key", "kind", "text", "min_value", "max_value", "span_unit", "position")


@admin.register(Study)
class StudyAdmin(StudyImportAdminMixin, admin.ModelAdmin):
    list_display = ("name", "created_at", "updated_at")
    search_fields = ("name", "description")
    date_hierarchy = "created_at"
    readonly_fields = ("created_at", "updated_at")
    fieldsets = (
        (
            None,
            {"fields": ("name", "description", "benchmark_scale", "created_at", "updated_at")},
        ),
        (
            "Reliability report (GRRAS, Kottner et al. 2011)",
            {
                "description": "What the report cannot read from the annotations; an empty "
                "field is named as missing in the study's and each round's reliability report.",
                "fields": tuple(GRRAS_STUDY_FIELDS),
            },
        ),
    )
    inlines = (QuestionInline, MembershipInline)
    actions = (compute_agreement_for_studies,)

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        # Deleting a study deletes all it holds through its service, which clears the
        # protected references (labels, category parents) first; labels and their log are
        # read-only here, which must not block it either (the study's own delete
        # permission is what is checked).
        deleted, counts, _perms_needed, _protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), []

    def delete_model(self, request: HttpRequest, obj: Study) -> None:
        study_delete(study=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Study]) -> None:
        for study in queryset:
            study_delete(study=study)


class CategoryAdminForm(forms.ModelForm):
    """A category as the scheme service checks it: ``undirected`` only for a relation
    question's labels, and fixed once the question has annotations."""

    class Meta:
        model = Category
        fields = ("question", "code", "label", "position", "parent", "undirected")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        question = cleaned.get("question")
        if question is None:
            return cleaned
        undirected = bool(cleaned.get("undirected"))
        changed = self.instance.pk is not None and undirected != self.instance.undirected
        problem = undirected_problem(question, undirected=undirected, changed=changed)
        if problem:
            self.add_error("undirected", problem)
        return cleaned


class CategoryInline(admin.TabularInline):
    """A question's declared values; ``parent`` builds the tree of a hierarchy question,
    ``undirected`` marks a relation question's symmetric labels."""

    model = Category
    form = CategoryAdminForm
    extra = 0
    fk_name = "question"
    fields = ("code", "label", "position", "parent", "undirected", "path")
    readonly_fields = ("path",)

    def get_formset(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> Any:
        self._question = obj
        return super().get_formset(request, obj, **kwargs)

    def formfield_for_foreignkey(
        self, db_field: ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> ModelChoiceField | None:
        if db_field.name == "parent":
            # A parent is one of the same question's categories (never another question's).
            question = getattr(self, "_question", None)
            kwargs["queryset"] = (
                Category.objects.filter(question=question)
                if question is not None
                else Category.objects.none()
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    @admin.display(description="path")
    def path(self, obj: Category) -> str:
        return category_path(obj) if obj.pk else ""


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    form = QuestionAdminForm
    list_display = ("key", "study", "kind", "span_unit", "position", "category_count")
    list_select_related = ("study",)
    list_filter = ("kind",)
    search_fields = ("key", "text", "study__name")
    autocomplete_fields = ("study",)
    inlines = (CategoryInline,)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Question]:
        return super().get_queryset(request).annotate(n_categories=Count("categories"))

    @admin.display(description="categories", ordering="n_categories")
    def category_count(self, obj: Question) -> int:
        return int(getattr(obj, "n_categories", 0))


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    form = CategoryAdminForm
    list_display = ("code", "label", "question", "parent", "path", "position", "undirected")
    # The path walks up to three ancestors without a query each.
    list_select_related = ("question__study", "parent__parent__parent")
    list_filter = ("question__kind",)
    search_fields = ("code", "label", "question__key")
    autocomplete_fields = ("question", "parent")
    readonly_fields = ("path",)

    @admin.display(description="path")
    def path(self, obj: Category) -> str:
        return category_path(obj)


class ModelCoderRoundInline(admin.TabularInline):
    """A model coder's versions per round (the history shows them)."""

    model = ModelCoderRound
    extra = 0
    raw_id_fields = ("round",)
    fields = ("round", "model_version", "prompt_version", "recorded_at")
    readonly_fields = ("recorded_at",)


@admin.register(Coder)
class CoderAdmin(admin.ModelAdmin):
    list_display = (
        "key",
        "name",
        "kind",
        "model_name",
        "prompt_version",
        "study",
        "user",
        "is_active",
        "created_at",
    )
    list_select_related = ("study", "user")
    list_filter = ("is_active", "kind")
    search_fields = ("key", "name", "model_name", "study__name", "user__username")
    autocomplete_fields = ("study", "user")
    readonly_fields = ("created_at",)
    fieldsets = (
        (None, {"fields": ("study", "key", "name", "user", "is_active", "created_at")}),
        (
            "Model coder",
            {
                "fields": ("kind", "model_name", "model_version", "prompt_version"),
                "description": "A model's name, version and current prompt version; each "
                "round records the versions it was labelled with (below).",
            },
        ),
    )
    inlines = (ModelCoderRoundInline,)
    actions = ("activate", "deactivate")

    @admin.action(description="Activate the selected coders")
    def activate(self, request: HttpRequest, queryset: QuerySet[Coder]) -> None:
        count = admin_actions.coders_set_active(coders=queryset, is_active=True)
        self.message_user(request, f"{count} coder(s) activated.", messages.SUCCESS)

    @admin.action(description="Deactivate the selected coders")
    def deactivate(self, request: HttpRequest, queryset: QuerySet[Coder]) -> None:
        count = admin_actions.coders_set_active(coders=queryset, is_active=False)
        self.message_user(request, f"{count} coder(s) deactivated.", messages.SUCCESS)


class ItemAdminForm(forms.ModelForm):
    """An item's extent: both ends or neither, finite, begin not after end."""

    class Meta:
        model = Item
        fields = ("study", "external_id", "text", "metadata", "extent_begin", "extent_end")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for field, error in extent_errors(
            cleaned.get("extent_begin"), cleaned.get("extent_end")
        ).items():
            self.add_error(field, error)
        return cleaned


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    form = ItemAdminForm
    list_display = ("external_id", "study", "short_text", "extent", "created_at")
    list_select_related = ("study",)
    search_fields = ("=external_id", "external_id", "text")
    autocomplete_fields = ("study",)
    readonly_fields = ("created_at",)
    list_per_page = 100

    @admin.display(description="text")
    def short_text(self, obj: Item) -> str:
        return obj.text if len(obj.text) <= 80 else obj.text[:79] + "…"

    @admin.display(description="extent")
    def extent(self, obj: Item) -> str:
        """``[begin, end)`` when set; else what span measures take, in parentheses."""
        if obj.extent_begin is not None and obj.extent_end is not None:
            return f"[{obj.extent_begin:g}, {obj.extent_end:g})"
        return f"(0 – {len(obj.text)}, the text)" if obj.text else "(unknown)"

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Item], search_term: str
    ) -> tuple[QuerySet[Item], bool]:
        """``key=value`` searches the metadata (``source=forum``); anything else the ids."""
        key, sep, value = search_term.partition("=")
        if sep and key.strip() and " " not in key.strip():
            return queryset.filter(**{f"metadata__{key.strip()}": value.strip()}), False
        return super().get_search_results(request, queryset, search_term)


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("name", "study", "position", "status", "opened_at", "closed_at")
    list_select_related = ("study",)
    list_filter = ("status",)
    search_fields = ("name", "study__name")
    autocomplete_fields = ("study",)
    readonly_fields = ("status", "closed_at")
    actions = ("close", "reopen", compute_agreement_for_rounds)

    def _apply(self, request: HttpRequest, rounds: QuerySet[Round], service: Any) -> None:
        done = 0
        for round_ in rounds:
            try:
                service(round=round_)
            except ApplicationError as error:
                self.message_user(request, error.message, messages.WARNING)
            else:
                done += 1
        if done:
            self.message_user(request, f"{done} round(s) updated.", messages.SUCCESS)

    @admin.action(description="Close the selected rounds")
    def close(self, request: HttpRequest, queryset: QuerySet[Round]) -> None:
        self._apply(request, queryset.filter(status=RoundStatus.OPEN), round_close)

    @admin.action(description="Reopen the selected rounds")
    def reopen(self, request: HttpRequest, queryset: QuerySet[Round]) -> None:
        self._apply(request, queryset.filter(status=RoundStatus.CLOSED), round_reopen)


class WithStudyFilter(admin.RelatedFieldListFilter):
    """Choices named "study: name" (rounds, questions), fetched with their study in one query."""

    def field_choices(self, field: Any, request: HttpRequest, model_admin: Any) -> Any:
        ordering = self.field_admin_ordering(field, request, model_admin)
        queryset = field.related_model._default_manager.select_related("study")
        return [(obj.pk, str(obj)) for obj in queryset.order_by(*ordering)]


class ReadOnlyAdmin(admin.ModelAdmin):
    """Viewable, never written here: labels change through the API, which logs them."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def annotation_value(annotation: Annotation, codes: dict[int, str] | None = None) -> str:
    """The label as the labeling tool writes it: a code, a number, ``a|b`` for a set, or a
    span annotation's units ``0-5 PER; 7-9 ORG`` ("nothing found" when it has none)."""
    if annotation.units is not None:
        if not annotation.units:
            return "nothing found"
        if codes is None:
            used = {int(unit[2]) for unit in annotation.units}
            codes = dict(Category.objects.filter(pk__in=used).values_list("pk", "code"))
        scheme = LabelScheme(
            kind=annotation.question.kind,
            categories=[CategoryRow(pk, code, None) for pk, code in codes.items()],
        )
        return scheme.units_text(annotation.units)
    if annotation.category_id is not None:
        return annotation.category.code if annotation.category else ""
    if annotation.number is not None:
        return f"{annotation.number:g}"
    ids = annotation.category_set or []
    if codes is None:
        codes = dict(Category.objects.filter(pk__in=ids).values_list("pk", "code"))
    return "|".join(codes.get(pk, f"#{pk}") for pk in ids)


@admin.register(Annotation)
class AnnotationAdmin(ReadOnlyAdmin):
    list_display = ("item", "coder", "question", "round", "value", "updated_at")
    list_select_related = ("item", "coder", "question__study", "round__study", "category")
    list_filter = (
        "round__study",
        ("round", WithStudyFilter),
        ("question", WithStudyFilter),
        "coder",
    )
    search_fields = ("item__external_id", "coder__key")
    list_per_page = 100

    def get_queryset(self, request: HttpRequest) -> QuerySet[Annotation]:
        # Set values are category ids: one prefetch per page resolves them all to codes.
        return super().get_queryset(request).prefetch_related("question__categories")

    @admin.display(description="value")
    def value(self, obj: Annotation) -> str:
        codes = {category.pk: category.code for category in obj.question.categories.all()}
        return annotation_value(obj, codes)


@admin.register(AnnotationChange)
class AnnotationChangeAdmin(ReadOnlyAdmin):
    list_display = (
        "changed_at",
        "action",
        "item",
        "coder",
        "question",
        "round",
        "old_value",
        "new_value",
        "changed_by",
        "token",
    )
    list_select_related = (
        "item",
        "coder",
        "question__study",
        "round__study",
        "changed_by",
        "token",
    )
    list_filter = (
        "action",
        "study",
        ("round", WithStudyFilter),
        ("question", WithStudyFilter),
        "coder",
    )
    search_fields = ("item__external_id", "coder__key", "changed_by__username")
    date_hierarchy = "changed_at"
    list_per_page = 100
    readonly_fields = ("entries",)
    #: Entries of a batch entry shown a page at a time (``?entries=N``).
    ENTRIES_PER_PAGE = 100

    def get_list_display(self, request: HttpRequest) -> Any:
        return (*self.list_display, "batch_size")

    def get_object(self, request: HttpRequest, object_id: str, from_field: Any = None) -> Any:
        change = super().get_object(request, object_id, from_field)
        if change is not None:
            try:
                change.entries_page = max(int(request.GET.get("entries", "1")), 1)
            except ValueError:
                change.entries_page = 1
        return change

    @admin.display(description="entries it stands for")
    def entries(self, obj: AnnotationChange) -> str:
        """A batch entry (an import logged as one entry): the per-annotation entries it
        stands for, a page at a time, as the API lists them (``annotations.history``)."""
        if obj.batch_size is None:
            return "—"
        from annotations.history import batch_annotations, batch_page

        page = getattr(obj, "entries_page", 1)
        size = self.ENTRIES_PER_PAGE
        total = batch_annotations(obj).count()
        shown = batch_page(obj, (page - 1) * size, page * size, None, None)
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((e.item, e.coder, e.new_value) for e in shown),
        )
        last = (total - 1) // size + 1
        links = format_html_join(
            " ",
            '<a href="?entries={}">{}</a>',
            ((n, n) for n in range(max(page - 5, 1), min(page + 5, last) + 1)),
        )
        return format_html(
            "<p>{} annotations created by this import and unchanged since (each one's later "
            "changes, with its creation, are entries of their own); page {}: {}</p>"
            "<table><tr><th>item</th><th>coder</th><th>value</th></tr>{}</table>",
            total,
            page,
            links,
            rows,
        )


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    form = MembershipAdminForm
    list_display = ("user", "study", "role", "created_at")
    list_select_related = ("user", "study")
    list_filter = ("role",)
    search_fields = ("user__username", "user__email", "study__name")
    autocomplete_fields = ("user", "study")
    readonly_fields = ("created_at",)

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        # A study's last manager is listed as protected: the admin then refuses the delete.
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        chosen = {m.pk for m in objs}
        for membership in objs:
            others = (
                Membership.objects.filter(study_id=membership.study_id, role=Role.MANAGER)
                .exclude(pk__in=chosen)
                .exists()
            )
            if membership.role == Role.MANAGER and not others:
                protected = [*protected, f"{membership}: {_LAST_MANAGER}"]
        return deleted, counts, perms_needed, protected


class ApiTokenAddForm(forms.ModelForm):
    class Meta:
        model = ApiToken
        fields = ("name", "user", "study", "role", "expires_at")
        help_texts = {
            "user": "A personal token acts as this user, with the user's rights in each study."
            " Leave empty for a study token.",
            "study": "A study token (for a labeling tool) acts in this study with the role.",
        }

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if (cleaned.get("user") is None) == (cleaned.get("study") is None):
            raise forms.ValidationError("Choose either a user (personal token) or a study.")
        expires_at = cleaned.get("expires_at")
        if expires_at is not None and expires_at <= timezone.now():
            self.add_error("expires_at", "The expiry must be in the future.")
        return cleaned


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "prefix",
        "owner",
        "role",
        "created_at",
        "last_used_at",
        "expires_at",
        "active",
    )
    list_select_related = ("user", "study", "created_by")
    list_filter = ("role", ("revoked_at", admin.EmptyFieldListFilter))
    search_fields = ("name", "prefix", "user__username", "study__name")
    autocomplete_fields = ("user", "study")
    actions = ("revoke",)

    def get_form(
        self, request: HttpRequest, obj: Any | None = None, change: bool = False, **kwargs: Any
    ) -> Any:
        if obj is None:
            kwargs["form"] = ApiTokenAddForm
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ("name", "user", "study", "role", "expires_at")
        # Never the hash, never the secret: only its first characters, to recognise it.
        return (
            "name",
            "prefix",
            "user",
            "study",
            "role",
            "created_by",
            "created_at",
            "last_used_at",
            "expires_at",
            "revoked_at",
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ()
        # Revocation is for good (the revoke action): it cannot be undone here, and the
        # expiry is fixed when the token is made.
        return (
            "prefix",
            "user",
            "study",
            "role",
            "created_by",
            "created_at",
            "last_used_at",
            "expires_at",
            "revoked_at",
        )

    def save_form(self, request: HttpRequest, form: Any, change: bool) -> Any:
        if change:
            return super().save_form(request, form, change)
        data = form.cleaned_data
        if data.get("study") is not None:
            token, secret = study_token_create(
                study=data["study"],
                name=data["name"],
                role=data["role"],
                created_by=request.user,
                expires_at=data.get("expires_at"),
            )
        else:
            token, secret = personal_token_create(
                user=data["user"], name=data["name"], expires_at=data.get("expires_at")
            )
        self.message_user(
            request,
            format_html(
                "The token's secret, shown only this once; copy it now: <code>{}</code>", secret
            ),
            messages.WARNING,
        )
        return token

    def save_model(self, request: HttpRequest, obj: ApiToken, form: Any, change: bool) -> None:
        if change:  # A new token was saved by its service in save_form.
            super().save_model(request, obj, form, change)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        if change:  # A token has no many-to-many fields or inlines to save when created.
            super().save_related(request, form, formsets, change)

    @admin.display(description="owner")
    def owner(self, obj: ApiToken) -> str:
        return f"study {obj.study}" if obj.study_id else f"user {obj.user}"

    @admin.display(description="active", boolean=True)
    def active(self, obj: ApiToken) -> bool:
        return obj.is_active

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        count = 0
        for token in queryset.filter(revoked_at__isnull=True):
            token_revoke(token=token)
            count += 1
        self.message_user(request, f"{count} token(s) revoked.", messages.SUCCESS)


# Registered by their own modules (imported above); named here so the imports are used.
__all__ = ["StudyAdmin"]
