"""Parses ledger lines such as `debit cash 12.50 coffee beans`."""
from __future__ import annotations

from ledger.models import Entry, EntryKind


def parse_amount(text: str) -> int:
    """Cents from a non-negative decimal string with at most two decimals ("12.5" is 1250)."""
    whole, dot, frac = text.partition(".")
    if not whole.isdigit() or len(frac) > 2 or (dot and not frac.isdigit()):
        raise ValueError("bad amount: %r" % text)
    return int(whole) * 100 + int(frac.ljust(2, "0") or "0")


def parse_line(line: str) -> Entry:
    """The Entry for `<debit|credit> <account> <amount> [memo...]`."""
    parts = line.split(None, 3)
    if len(parts) < 3:
        raise ValueError("expected '<kind> <account> <amount> [memo]': %r" % line)
    kind, account, amount = parts[:3]
    memo = parts[3] if len(parts) == 4 else ""
    return Entry(account=account, amount_cents=parse_amount(amount), kind=EntryKind(kind), memo=memo)
