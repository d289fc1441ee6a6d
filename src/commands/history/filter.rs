//! Which Runs `history list` and `history export` take.

/// Which Runs (list, export).
#[derive(Debug, Clone, clap::Args)]
pub struct FilterArgs {
    /// Only this host (its name in the history, or its hostname).
    #[arg(long, value_name = "HOST")]
    pub host: Option<String>,
    /// Only Runs with this label.
    #[arg(long, value_name = "LABEL")]
    pub label: Option<String>,
    /// Only Runs that started on or after this day (2026-01-31) or time (RFC 3339).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Only Runs that started on or before this day (2026-12-31, the whole day) or time.
    #[arg(long, value_name = "DATE")]
    pub until: Option<String>,
}

impl FilterArgs {
    pub fn filter(&self) -> anyhow::Result<crate::history::query::Filter> {
        crate::history::query::Filter::from_words(
            self.host.clone(),
            self.label.clone(),
            self.since.as_deref(),
            self.until.as_deref(),
        )
    }
}
