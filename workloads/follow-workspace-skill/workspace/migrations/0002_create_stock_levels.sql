-- migration: 0002_create_stock_levels
-- +up
CREATE TABLE stock_levels (
    sku TEXT NOT NULL REFERENCES products (sku),
    location TEXT NOT NULL,
    quantity INTEGER NOT NULL DEFAULT 0 CHECK (quantity >= 0),
    PRIMARY KEY (sku, location)
);
CREATE INDEX ix_stock_levels__location ON stock_levels (location);
-- +down
DROP INDEX ix_stock_levels__location;
DROP TABLE stock_levels;
