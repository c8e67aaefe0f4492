"""Small text helpers for the site generator."""
