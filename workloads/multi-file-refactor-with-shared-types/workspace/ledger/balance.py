"""Balances and turnover computed from entries."""
from typing import Dict, Iterable

from ledger.models import Entry, EntryKind


def balances(entries: Iterable[Entry]) -> Dict[str, int]:
    """Net signed cents per account, accounts in name order."""
    totals: Dict[str, int] = {}
    for entry in entries:
        totals[entry.account] = totals.get(entry.account, 0) + entry.signed_cents()
    return dict(sorted(totals.items()))


def turnover(entries: Iterable[Entry], kind: EntryKind) -> int:
    """Total cents of one kind of entry: all the debits, or all the credits."""
    return sum(entry.amount_cents for entry in entries if entry.kind is kind)
