"""Serializer fields shared by the API's request serializers."""

from rest_framework import serializers


class JsonBooleanField(serializers.BooleanField):
    """A flag in a JSON body: only true or false. DRF's BooleanField also takes 0, 1, "yes" and
    the like, which makes a destructive flag such as `dry_run: 0` ambiguous."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data
