//! `okd-install completion SHELL`: a shell completion script from the clap types.

use clap::CommandFactory;

use crate::cli::Cli;

/// `okd-install completion SHELL`.
pub(crate) fn completion(shell: clap_complete::Shell) {
    let mut cmd = Cli::command();
    clap_complete::generate(shell, &mut cmd, "okd-install", &mut std::io::stdout());
}
