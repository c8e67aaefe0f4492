"""The ledger's value types. Amounts are integer cents, so sums never pick up float rounding errors."""
from dataclasses import dataclass
from enum import Enum


class EntryKind(Enum):
    """Which side of an account an amount is posted to."""

    DEBIT = "debit"
    CREDIT = "credit"


@dataclass(frozen=True)
class Entry:
    """One ledger line: an amount posted to an account as a debit or a credit."""

    account: str
    amount_cents: int
    kind: EntryKind
    memo: str = ""

    def signed_cents(self) -> int:
        """The amount as it moves the account's balance: debits add, credits subtract."""
        return self.amount_cents if self.kind is EntryKind.DEBIT else -self.amount_cents
