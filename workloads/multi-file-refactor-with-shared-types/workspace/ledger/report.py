"""Plain-text reports."""
from typing import List

import ledger.models as models
from ledger.balance import balances


def _money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return "%s%d.%02d" % ((sign,) + divmod(abs(cents), 100))


def render_balances(entries: "List[models.Entry]") -> str:
    """One `account amount` row per account in name order, then the total of all balances."""
    per_account = balances(entries)
    rows = ["%-12s %10s" % (account, _money(cents)) for account, cents in per_account.items()]
    rows.append("%-12s %10s" % ("total", _money(sum(per_account.values()))))
    return "\n".join(rows) + "\n"


def largest(entries: "List[models.Entry]") -> "models.Entry":
    """The entry with the largest amount; the earliest one on a tie."""
    if not entries:
        raise ValueError("no entries")
    return max(entries, key=lambda entry: entry.amount_cents)
