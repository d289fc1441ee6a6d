//! The candor binary: parse, dispatch, map errors to exit codes.

use clap::Parser;

fn main() {
    let cli = candor::cli::Cli::parse();
    candor::cancel::install_handlers();
    if let Err(error) = candor::commands::dispatch(cli.command) {
        eprintln!("candor: error: {}", one_line(&error));
        std::process::exit(candor::error::exit_code(&error));
    }
}

/// The error and its causes on one line: "outer: inner: root".
fn one_line(error: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in error.chain() {
        let text = cause.to_string().replace('\n', " ");
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
    }
    parts.join(": ")
}
