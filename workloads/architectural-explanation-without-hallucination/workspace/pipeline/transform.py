class Normalizer:
    """Trims whitespace, lowercases the `email` column and drops rows without an `id`."""

    def apply(self, rows):
        for row in rows:
            clean = {k.strip(): (v or "").strip() for k, v in row.items()}
            if not clean.get("id"):
                continue
            if "email" in clean:
                clean["email"] = clean["email"].lower()
            yield clean
