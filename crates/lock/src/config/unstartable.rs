//! Why a configured server cannot be started as its client would start it: the reason it is
//! skipped (and locked as skipped), never a guess at the missing value.

/// One reason a server is skipped; its text is what reports and lockfiles show.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unstartable {
    /// The config disables it.
    #[error("it is disabled in the config")]
    Disabled,
    /// It uses the SSE transport.
    #[error(
        "it uses the SSE transport (2024-11-05), which driftlab does not speak (stdio and \
         Streamable HTTP only)"
    )]
    Sse,
    /// It reads an `envFile`.
    #[error("it reads `envFile`, which driftlab does not read")]
    EnvFile,
    /// It authenticates with OAuth.
    #[error("it authenticates with OAuth, which driftlab cannot do on a user's behalf")]
    OAuth,
    /// `${input:ID}`: a value a person enters in the client.
    #[error("it needs `${{input:{0}}}`, a value a person enters in the client")]
    NeedsInput(String),
    /// A variable (as written, e.g. `${env:TOKEN}`) that is unset and has no default.
    #[error("`{0}` is not set")]
    Unset(String),
    /// An unset variable Codex reads for a header (`what`: `its bearer_token_env_var`,
    /// `header NAME`).
    #[error("`{var}` ({what}) is not set")]
    HeaderUnset {
        /// The variable, as written.
        var: String,
        /// What it was for.
        what: String,
    },
    /// A `${…}` form the client does not expand.
    #[error("`{0}` is not a variable driftlab expands")]
    NotExpanded(String),
}
