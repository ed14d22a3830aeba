package com.example.users;

import java.util.Objects;

/**
 * An account holder, as stored in the {@code users} table.
 *
 * @param id    database id
 * @param email login and contact address
 * @param name  display name
 * @param role  what the user may do
 */
public record User(long id, String email, String name, Role role) {

    /** What a user may do. */
    public enum Role {
        /** A regular account. */
        MEMBER,
        /** An account that may manage other users. */
        ADMIN;

        /** Reports whether this role may rename or remove other users. */
        public boolean canManageUsers() {
            return this == ADMIN;
        }
    }

    /** Checks the components: the email must look like an address. */
    public User {
        Objects.requireNonNull(email, "email");
        Objects.requireNonNull(role, "role");
        if (!email.contains("@")) {
            throw new IllegalArgumentException("invalid email: " + email);
        }
    }

    /** Returns a copy of this user with another display name. */
    public User withName(String newName) {
        return new User(id, email, newName, role);
    }
}
