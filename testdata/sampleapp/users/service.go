package users

import (
	"context"
	"fmt"
	"strings"
)

// Service holds the business rules for user accounts.
type Service struct {
	repo Repository
}

// NewService returns a service backed by repo.
func NewService(repo Repository) *Service {
	return &Service{repo: repo}
}

// GetUser returns the user with the given id.
func (s *Service) GetUser(ctx context.Context, id string) (*User, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, fmt.Errorf("get user: empty id")
	}
	return s.repo.FindByID(ctx, id)
}

// Rename changes a user's display name.
func (s *Service) Rename(ctx context.Context, id, name string) error {
	u, err := s.GetUser(ctx, id)
	if err != nil {
		return err
	}
	u.Name = name
	return s.repo.Save(ctx, u)
}
