"""A tiny shop: carts, pricing, shipping and invoices."""
from shop.pricing import apply_discount, calc_total
from shop.shipping import calc_total_weight, shipping_cost
from shop.cart import Cart
from shop.invoice import render_invoice

__all__ = ["Cart", "apply_discount", "calc_total", "calc_total_weight", "render_invoice", "shipping_cost"]
