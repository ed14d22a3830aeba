//! Data types shared by the userctl commands.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Output format selected with `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One line per user: id, email and name.
    Text,
    /// The user as indented JSON.
    Json,
}

impl Format {
    /// Parses the value of the `--format` flag.
    pub fn parse(value: &str) -> Option<Format> {
        match value {
            "text" => Some(Format::Text),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// An account as returned by `GET /users/{id}`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct User {
    #[serde(rename = "ID")]
    pub id: String,
    #[serde(rename = "Email")]
    pub email: String,
    #[serde(rename = "Name")]
    pub name: String,
}

impl User {
    /// Builds a user from its parts.
    pub fn new(id: impl Into<String>, email: impl Into<String>, name: impl Into<String>) -> Self {
        User { id: id.into(), email: email.into(), name: name.into() }
    }

    /// Returns the part of the email address after the `@`.
    pub fn domain(&self) -> Option<&str> {
        self.email.split_once('@').map(|(_, domain)| domain)
    }
}

/// Checks that a value is well formed before it is shown or sent.
pub trait Validate {
    /// Returns the first problem found, if any.
    fn validate(&self) -> Result<(), String>;

    /// Reports whether `validate` finds no problem.
    fn is_valid(&self) -> bool {
        self.validate().is_ok()
    }
}

/// A validated value with a stable key, printable for humans.
pub trait Record: Validate + fmt::Display {
    /// The key the API knows the value by.
    fn key(&self) -> &str;
}

impl Validate for User {
    fn validate(&self) -> Result<(), String> {
        if self.id.trim().is_empty() {
            return Err("empty id".to_string());
        }
        if self.domain().is_none() {
            return Err(format!("invalid email {:?}", self.email));
        }
        Ok(())
    }
}

impl Record for User {
    fn key(&self) -> &str {
        &self.id
    }
}

impl fmt::Display for User {
    /// Formats the user as one tab-separated line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}\t{}\t{}", self.id, self.email, self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A user with a valid email passes validation.
    #[test]
    fn validates_email() {
        let user = User::new("1", "ada@example.com", "Ada");
        assert!(user.is_valid());
        assert_eq!(user.domain(), Some("example.com"));
        assert_eq!(Format::parse("json"), Some(Format::Json));
    }
}
