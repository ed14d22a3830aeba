package users

import (
	"context"
	"errors"
	"fmt"

	"example.com/sampleapp/internal/db"
)

// ErrNotFound is returned when no user has the requested id.
var ErrNotFound = errors.New("user not found")

// UserRepository is the SQL implementation of Repository.
type UserRepository struct {
	conn *db.Conn
}

// NewUserRepository returns a repository over conn.
func NewUserRepository(conn *db.Conn) *UserRepository {
	return &UserRepository{conn: conn}
}

// FindByID loads one user by its id.
func (r *UserRepository) FindByID(ctx context.Context, id string) (*User, error) {
	var u User
	row := r.conn.QueryRow(ctx, "SELECT id, email, name FROM users WHERE id = ?", id)
	if err := row.Scan(&u.ID, &u.Email, &u.Name); err != nil {
		return nil, fmt.Errorf("find user %s: %w", id, ErrNotFound)
	}
	return &u, nil
}

// Save inserts or updates a user.
func (r *UserRepository) Save(ctx context.Context, u *User) error {
	if u.ID == "" {
		return errors.New("save user: empty id")
	}
	return r.conn.Exec(ctx, "INSERT OR REPLACE INTO users(id, email, name) VALUES(?, ?, ?)", u.ID, u.Email, u.Name)
}
