//! Rewriting a client config's servers (see `guard install`): placeholder until written.
