-- migration: 0003_add_products_price_cents
-- Prices are whole cents; 0 means "not priced yet".
-- +up
ALTER TABLE products ADD COLUMN price_cents INTEGER NOT NULL DEFAULT 0 CHECK (price_cents >= 0);
-- +down
ALTER TABLE products DROP COLUMN price_cents;
