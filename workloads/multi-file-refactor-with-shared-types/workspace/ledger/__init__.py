"""A tiny ledger: parse lines into entries, keep them in a journal, report balances, export CSV."""
from ledger.models import Entry, EntryKind
from ledger.parse import parse_line
from ledger.journal import Journal
from ledger.balance import balances, turnover
from ledger.report import largest, render_balances
from ledger.export import from_csv_row, to_csv_row

__all__ = [
    "Entry",
    "EntryKind",
    "Journal",
    "balances",
    "from_csv_row",
    "largest",
    "parse_line",
    "render_balances",
    "to_csv_row",
    "turnover",
]
