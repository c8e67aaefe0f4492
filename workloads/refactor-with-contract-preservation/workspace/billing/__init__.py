"""Billing helpers; amounts are integer cents."""
