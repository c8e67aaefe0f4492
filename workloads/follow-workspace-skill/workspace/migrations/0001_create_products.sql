-- migration: 0001_create_products
-- +up
CREATE TABLE products (
    sku TEXT PRIMARY KEY,
    name TEXT NOT NULL
);
-- +down
DROP TABLE products;
