"""Forms behind the dashboard's POST actions."""

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef

from memories.models import Memory
from portability.formats import FORMATS
from quality.models import Inconsistency
from quality.services import RECLASSIFIABLE, Action

DISMISS = "dismiss"


def resolution_choices(finding):
    """The (value, label, hint) buttons offered for an open finding.

    A value is `action` or `action:side`, where side 1 or 2 names memory A or B of the finding.
    """
    if finding.memory2_id is None:
        if finding.memory1.archived_at is not None:
            return [(f"{Action.ARCHIVE}:1", "Keep it archived", "Close the finding; it stays archived")]
        return [(f"{Action.ARCHIVE}:1", "Archive it", "Archive this memory; it can be restored later")]
    choices = [(Action.KEEP_BOTH, "Keep both", "Both memories are right; close the finding")]
    if finding.type == Inconsistency.Type.SUPERSEDED:
        return [
            (
                Action.APPLY,
                "Apply: the newer replaces the older",
                "Link the older memory as INVALIDATED_BY the newer",
            ),
            *choices,
        ]
    if finding.type == Inconsistency.Type.DUPLICATE:
        choices += [
            (f"{Action.MERGE}:1", "Merge into A", "Keep A, archive B and count B's source as corroboration"),
            (f"{Action.MERGE}:2", "Merge into B", "Keep B, archive A and count A's source as corroboration"),
        ]
    else:
        choices += [
            (
                f"{Action.LINK_CONTRADICTS}:1",
                "Link as contradicting",
                "Record a CONTRADICTS association A → B",
            ),
            (f"{Action.LINK_INVALIDATED_BY}:1", "A is outdated by B", "Record that B invalidates A"),
            (f"{Action.LINK_INVALIDATED_BY}:2", "B is outdated by A", "Record that A invalidates B"),
        ]
    for side, name, memory in (("1", "A", finding.memory1), ("2", "B", finding.memory2)):
        if memory.archived_at is None:
            hint = f"Archive memory {name}; it can be restored later"
            choices.append((f"{Action.ARCHIVE}:{side}", f"Archive {name}", hint))
    return choices


NOTE_MAX = 500
BULK_MAX = 100
ID_MAX = 2**31 - 1


class ResolveForm(forms.Form):
    action = forms.CharField(max_length=40)
    note = forms.CharField(max_length=NOTE_MAX, required=False, strip=True)

    def __init__(self, finding, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.finding = finding

    def clean_action(self):
        value = self.cleaned_data["action"]
        allowed = {choice for choice, _, _ in resolution_choices(self.finding)} | {DISMISS}
        if value not in allowed:
            raise forms.ValidationError("This action does not apply to this finding.")
        return value

    def resolution(self):
        """(action, memory_id or None) for the service."""
        action, _, side = self.cleaned_data["action"].partition(":")
        memory_id = {"1": self.finding.memory1_id, "2": self.finding.memory2_id}.get(side)
        return action, memory_id


class ReclassifyForm(forms.Form):
    type = forms.ChoiceField(choices=[(value, value) for value in sorted(RECLASSIFIABLE)])


class IdListField(forms.Field):
    """Several finding ids from checkboxes (or hidden inputs): distinct, sorted, at most BULK_MAX."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value):
        try:
            ids = sorted({int(item) for item in value or []})
        except (TypeError, ValueError):
            raise forms.ValidationError("Finding ids are whole numbers.") from None
        if not ids:
            raise forms.ValidationError("Select findings first.")
        if not all(0 < item <= ID_MAX for item in ids):
            raise forms.ValidationError("Those are not finding ids.")
        if len(ids) > BULK_MAX:
            raise forms.ValidationError(f"Select at most {BULK_MAX} findings at a time.")
        return ids


class BulkFindingsForm(forms.Form):
    """Findings chosen on the review page and one action for all of them; `confirmed` is set by
    the confirmation page."""

    ACTIONS = {
        DISMISS: "Dismiss",
        Action.KEEP_BOTH: "Resolve as keep both",
        Action.ARCHIVE: "Archive the memory",
    }
    ids = IdListField()
    action = forms.ChoiceField(choices=list(ACTIONS.items()))
    note = forms.CharField(max_length=NOTE_MAX, required=False, strip=True)
    confirmed = forms.BooleanField(required=False)


class StartConsolidationForm(forms.Form):
    mode = forms.ChoiceField(choices=[("dry_run", "dry run"), ("apply", "apply")])

    @property
    def dry_run(self):
        return self.cleaned_data["mode"] == "dry_run"


class RecallExplorerForm(forms.Form):
    """Whose memories the explorer recalls, and the memory "why not?" asks about. The recall
    options themselves are read from the same query string by the API's own parser."""

    owner = forms.ModelChoiceField(
        queryset=get_user_model()
        .objects.filter(Exists(Memory.objects.filter(owner=OuterRef("pk"))))
        .order_by("username"),
        empty_label="Choose an owner",
    )
    why_not = forms.UUIDField(required=False, label="Why not?")


class OwnerField(forms.ModelChoiceField):
    """The owner to export or import for; only staff are offered anyone but themselves."""

    def __init__(self, user, **kwargs):
        users = get_user_model().objects.order_by("username")
        super().__init__(
            queryset=users if user.is_staff else users.filter(pk=user.pk),
            to_field_name="username",
            initial=user.get_username(),
            empty_label=None,
            **kwargs,
        )
        self.label_from_instance = lambda owner: owner.get_username()


class ExportForm(forms.Form):
    def __init__(self, user, *args, **kwargs):
        # Its own ids: it shares the page with the import form, which has an owner too.
        super().__init__(*args, auto_id="id_export_%s", **kwargs)
        self.fields["owner"] = OwnerField(user)


class ImportForm(forms.Form):
    file = forms.FileField()
    format = forms.ChoiceField(choices=[(name, name) for name in FORMATS], initial="memsite")
    dry_run = forms.BooleanField(required=False, help_text="Report what would happen; write nothing.")

    def __init__(self, user, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["owner"] = OwnerField(user)
