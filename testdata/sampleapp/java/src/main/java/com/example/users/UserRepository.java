package com.example.users;

import java.util.List;
import java.util.Optional;

/**
 * Loads and stores {@link User} records.
 *
 * <p>Implementations hold database resources and must be closed when the
 * application shuts down.
 */
public interface UserRepository extends AutoCloseable {

    /**
     * Finds the user with the given id.
     *
     * @param id the user's id
     * @return the user, or empty when no user has that id
     */
    Optional<User> findById(long id);

    /** Returns every user, ordered by id. */
    List<User> findAll();

    /**
     * Inserts a user, or replaces the user with the same id.
     *
     * @param user the user to store
     */
    void save(User user);

    /** Returns the number of stored users. */
    default int count() {
        return findAll().size();
    }

    /** Releases the repository's resources without a checked exception. */
    @Override
    void close();
}
