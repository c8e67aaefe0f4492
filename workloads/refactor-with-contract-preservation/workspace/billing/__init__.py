"""Billing arithmetic on integer cents: rates, tax, discounts, fees, commission and interest."""
from billing.rates import ROUNDING_MODES, apply_rate
from billing.tax import TAX_PCT, gross, tax_due
from billing.discount import member_discount, member_price
from billing.fees import card_fee
from billing.batch import apply_rates
from billing.commission import commission
from billing.interest import monthly_interest
from billing.report import statement_line

__all__ = [
    "ROUNDING_MODES",
    "TAX_PCT",
    "apply_rate",
    "apply_rates",
    "card_fee",
    "commission",
    "gross",
    "member_discount",
    "member_price",
    "monthly_interest",
    "statement_line",
    "tax_due",
]
