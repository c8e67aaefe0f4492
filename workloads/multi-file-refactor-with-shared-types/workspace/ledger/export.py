"""CSV rows for the accountant's spreadsheet: `account,amount_cents,kind,memo`."""
from ledger.models import Entry, EntryKind


def to_csv_row(entry: Entry) -> str:
    """One CSV row; the memo is quoted when it holds a comma or a double quote."""
    if not isinstance(entry, Entry):
        raise TypeError("to_csv_row takes an Entry, not %s" % type(entry).__name__)
    memo = entry.memo
    if "," in memo or '"' in memo:
        memo = '"%s"' % memo.replace('"', '""')
    return "%s,%d,%s,%s" % (entry.account, entry.amount_cents, entry.kind.value, memo)


def from_csv_row(row: str) -> Entry:
    """The Entry a to_csv_row row came from."""
    account, amount, kind, memo = row.split(",", 3)
    if memo.startswith('"'):
        memo = memo[1:-1].replace('""', '"')
    return Entry(account, int(amount), EntryKind(kind), memo)
