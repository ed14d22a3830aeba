package com.example.users;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Objects;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Shared plumbing for JDBC repositories: connections, statements and
 * error reporting.
 */
public abstract class BaseRepository {

    /** Logger named after the concrete repository class. */
    protected final Logger log = Logger.getLogger(getClass().getName());

    private final DataSource dataSource;

    /**
     * Creates a repository over a data source.
     *
     * @param dataSource where connections come from
     */
    protected BaseRepository(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /** Opens a connection; the caller closes it. */
    protected Connection connect() throws SQLException {
        return dataSource.getConnection();
    }

    /**
     * Prepares a statement and binds its parameters in order.
     */
    protected PreparedStatement prepare(Connection conn, String sql, Object... params)
            throws SQLException {
        PreparedStatement stmt = conn.prepareStatement(sql);
        for (int i = 0; i < params.length; i++) {
            stmt.setObject(i + 1, params[i]);
        }
        return stmt;
    }

    /** Name of the table this repository reads and writes. */
    protected abstract String table();

    /** Logs a SQL failure and wraps it into an unchecked exception. */
    protected RepositoryException failure(String action, SQLException cause) {
        log.warning(() -> action + " failed on " + table() + ": " + cause.getMessage());
        return new RepositoryException(action + " failed", cause);
    }

    /** Thrown when the database cannot serve a request. */
    public static class RepositoryException extends RuntimeException {

        /** Creates an exception with a message and its SQL cause. */
        public RepositoryException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
