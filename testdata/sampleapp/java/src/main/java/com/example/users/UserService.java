package com.example.users;

import java.util.List;
import java.util.NoSuchElementException;
import java.util.stream.Collectors;

/**
 * Business rules for user accounts, on top of a {@link UserRepository}.
 */
public class UserService {

    private final UserRepository repository;

    /**
     * Creates a service backed by {@code repository}.
     *
     * @param repository where users are loaded and stored
     */
    public UserService(UserRepository repository) {
        this.repository = repository;
    }

    /**
     * Returns the user with the given id.
     *
     * @param id the user's id
     * @return the user
     * @throws NoSuchElementException when no user has that id
     */
    public User getUser(long id) {
        return repository.findById(id)
                .orElseThrow(() -> new NoSuchElementException("no user " + id));
    }

    /**
     * Changes a user's display name and stores the result.
     *
     * @return the renamed user
     */
    public User rename(long id, String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("empty name");
        }
        User renamed = getUser(id).withName(name.strip());
        this.repository.save(renamed);
        return renamed;
    }

    /** Returns the emails of every administrator, sorted. */
    public List<String> adminEmails() {
        return repository.findAll().stream()
                .filter(user -> user.role().canManageUsers())
                .map(User::email)
                .sorted()
                .collect(Collectors.toList());
    }
}
