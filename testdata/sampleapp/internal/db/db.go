// Package db wraps the SQL connection used by the repositories.
package db

import (
	"context"
	"database/sql"
	"fmt"
)

// Conn is a database connection with query helpers.
type Conn struct {
	sql *sql.DB
	dsn string
}

// Open connects to the database named by dsn.
func Open(ctx context.Context, dsn string) (*Conn, error) {
	handle, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dsn, err)
	}
	if err := handle.PingContext(ctx); err != nil {
		return nil, fmt.Errorf("ping %s: %w", dsn, err)
	}
	return &Conn{sql: handle, dsn: dsn}, nil
}

// QueryRow runs a query expected to return at most one row.
func (c *Conn) QueryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return c.sql.QueryRowContext(ctx, query, args...)
}

// Exec runs a statement that returns no rows.
func (c *Conn) Exec(ctx context.Context, query string, args ...any) error {
	_, err := c.sql.ExecContext(ctx, query, args...)
	return err
}

// Close releases the connection.
func (c *Conn) Close() error {
	return c.sql.Close()
}
