//! userctl looks users up through the users API.
//!
//! Usage: userctl [--server URL] [--format text|json] ID...

mod model;

use std::env;
use std::fmt;
use std::process::ExitCode;

use model::{Format, Record, User, Validate};
use serde::de::DeserializeOwned;

/// Base URL of the users API when `--server` is not given.
const DEFAULT_SERVER: &str = "http://localhost:8080";

/// Result type of the commands.
pub type Result<T> = std::result::Result<T, Error>;

/// Errors reported to the user.
#[derive(Debug)]
pub enum Error {
    /// The command line could not be understood.
    Usage(String),
    /// The API could not be reached or answered with an error.
    Http(String),
    /// The API returned a user that fails validation.
    Invalid { id: String, reason: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(msg) => write!(f, "usage: {msg}"),
            Error::Http(msg) => write!(f, "request failed: {msg}"),
            Error::Invalid { id, reason } => write!(f, "user {id} is invalid: {reason}"),
        }
    }
}

impl std::error::Error for Error {}

/// Parsed command-line options.
struct Options {
    server: String,
    format: Format,
    ids: Vec<String>,
}

impl Options {
    /// Reads options from the process arguments, program name first.
    fn from_args(args: Vec<String>) -> Result<Options> {
        let mut options = Options { server: DEFAULT_SERVER.to_string(), format: Format::Text, ids: Vec::new() };
        let mut args = args.into_iter().skip(1);
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--server" => options.server = args.next().ok_or(Error::Usage("--server needs a URL".into()))?,
                "--format" => {
                    let value = args.next().unwrap_or_default();
                    options.format = Format::parse(&value).ok_or_else(|| Error::Usage(format!("unknown format {value:?}")))?;
                }
                _ => options.ids.push(arg),
            }
        }
        if options.ids.is_empty() {
            return Err(Error::Usage("no user id given".into()));
        }
        Ok(options)
    }
}

/// Sends a GET request and decodes the JSON body.
fn get_json<T: DeserializeOwned>(url: &str) -> Result<T> {
    let response = ureq::get(url).call().map_err(|err| Error::Http(err.to_string()))?;
    response.into_json::<T>().map_err(|err| Error::Http(err.to_string()))
}

/// Fetches one user by id and checks it.
fn fetch_user(server: &str, id: &str) -> Result<User> {
    let url = format!("{}/users/{}", server.trim_end_matches('/'), id);
    let user = get_json::<User>(&url)?;
    user.validate().map_err(|reason| Error::Invalid { id: user.key().to_string(), reason })?;
    Ok(user)
}

/// Prints a user in the selected format.
fn print_user(user: &User, format: Format) -> Result<()> {
    match format {
        Format::Text => println!("{user}"),
        Format::Json => {
            let json = serde_json::to_string_pretty(user).map_err(|err| Error::Http(err.to_string()))?;
            println!("{json}");
        }
    }
    Ok(())
}

/// Looks up every requested user and prints it.
fn run(options: &Options) -> Result<usize> {
    for id in &options.ids {
        let user = fetch_user(&options.server, id)?;
        print_user(&user, options.format)?;
    }
    Ok(options.ids.len())
}

fn main() -> ExitCode {
    let args = env::args().collect::<Vec<_>>();
    match Options::from_args(args).and_then(|options| run(&options)) {
        Ok(_) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("userctl: {err}");
            ExitCode::FAILURE
        }
    }
}
