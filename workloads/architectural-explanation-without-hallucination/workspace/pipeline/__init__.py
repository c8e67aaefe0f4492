"""A small batch ingestion pipeline: CSV files in, normalised rows, SQLite out."""
