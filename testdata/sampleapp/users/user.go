package users

import (
	"context"
	"time"
)

// User is an account holder.
type User struct {
	ID        string
	Email     string
	Name      string
	CreatedAt time.Time
}

// Auditable records when an entity changed.
type Auditable struct {
	UpdatedAt time.Time
}

// Admin is a user with extra rights.
type Admin struct {
	User
	Auditable
	Permissions []string
}

// Reader loads users.
type Reader interface {
	FindByID(ctx context.Context, id string) (*User, error)
}

// Repository loads and stores users.
type Repository interface {
	Reader
	Save(ctx context.Context, u *User) error
}
