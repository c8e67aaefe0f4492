"""stockroom: a small product and stock-level store on SQLite."""
