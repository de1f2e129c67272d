"""What the API's request serializers share: their strict flag field and how a view runs one."""

from rest_framework import serializers


class JsonBooleanField(serializers.BooleanField):
    """A flag in a JSON body: only true or false. DRF's BooleanField also takes 0, 1, "yes" and
    the like, which makes a destructive flag such as `dry_run: 0` ambiguous."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


def validated(serializer_class, data):
    """The serializer's validated data for `data` (a body or query parameters); a 400 otherwise."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
