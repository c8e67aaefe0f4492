"""Validation of North American Numbering Plan (NANP) phone numbers for the signup form."""
import re

# Only ten bare digits for now; SPEC.md lists the formats the form must accept.
_PHONE = re.compile(r"\d{10}")


def is_nanp(s):
    """True when `s` is a NANP number in one of the formats SPEC.md allows."""
    return bool(_PHONE.fullmatch(s))
