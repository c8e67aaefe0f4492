"""Validation of North American Numbering Plan (NANP) phone numbers for the signup form."""
import re

# Too permissive: see SPEC.md.
_PHONE = re.compile(r"^\d{10}$")


def is_nanp(s):
    """True when `s` is a NANP number in one of the formats SPEC.md allows."""
    return bool(_PHONE.fullmatch(s))
