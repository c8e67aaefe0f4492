"""An append-only journal."""
from __future__ import annotations

from typing import Iterator, List

from ledger.models import Entry


class Journal:
    """Entries in the order they were posted."""

    def __init__(self) -> None:
        self._entries: List[Entry] = []

    def post(self, entry: Entry) -> None:
        """Appends one entry; anything that is not an Entry is a TypeError."""
        if not isinstance(entry, Entry):
            raise TypeError("Journal.post takes Entry objects, not %s" % type(entry).__name__)
        self._entries.append(entry)

    def for_account(self, account: str) -> List[Entry]:
        """The account's entries, oldest first."""
        return [entry for entry in self._entries if entry.account == account]

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)
