package com.example.users;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * {@link UserRepository} backed by the {@code users} table over JDBC.
 */
public class JdbcUserRepository extends BaseRepository implements UserRepository {

    private static final String COLUMNS = "id, email, name, role";

    /** Creates a repository reading from {@code dataSource}. */
    public JdbcUserRepository(DataSource dataSource) {
        super(dataSource);
    }

    @Override
    protected String table() {
        return "users";
    }

    /** Looks the user up by primary key. */
    @Override
    public Optional<User> findById(long id) {
        String sql = "SELECT " + COLUMNS + " FROM users WHERE id = ?";
        try (Connection conn = connect();
                PreparedStatement stmt = prepare(conn, sql, id);
                ResultSet rows = stmt.executeQuery()) {
            return rows.next() ? Optional.of(toUser(rows)) : Optional.empty();
        } catch (SQLException e) {
            throw failure("find user " + id, e);
        }
    }

    /** Loads the whole table, ordered by id. */
    @Override
    public List<User> findAll() {
        List<User> users = new ArrayList<>();
        try (Connection conn = connect();
                PreparedStatement stmt = prepare(conn, "SELECT " + COLUMNS + " FROM users ORDER BY id");
                ResultSet rows = stmt.executeQuery()) {
            while (rows.next()) {
                users.add(toUser(rows));
            }
            return users;
        } catch (SQLException e) {
            throw failure("list users", e);
        }
    }

    /** Upserts the user in one statement. */
    @Override
    public void save(User user) {
        String sql = "INSERT OR REPLACE INTO users(" + COLUMNS + ") VALUES(?, ?, ?, ?)";
        try (Connection conn = connect();
                PreparedStatement stmt = prepare(conn, sql, user.id(), user.email(), user.name(), user.role().name())) {
            stmt.executeUpdate();
        } catch (SQLException e) {
            throw failure("save user " + user.id(), e);
        }
    }

    @Override
    public void close() {
        log.fine("repository closed");
    }

    /** Maps the current row of {@code rows} to a user. */
    private static User toUser(ResultSet rows) throws SQLException {
        return new User(
                rows.getLong("id"),
                rows.getString("email"),
                rows.getString("name"),
                User.Role.valueOf(rows.getString("role")));
    }
}
