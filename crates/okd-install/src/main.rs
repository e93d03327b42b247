//! okd-install: the command-line front end. It parses flags, calls the libraries, prints, and
//! turns errors into the documented exit codes.

mod bootstrap_host;
mod cli;
mod commands;
mod console;
mod coreos_stream;
mod diagnosis_output;
mod download;
mod examples;
mod exit;
mod logging;
mod release;
mod survey;

use clap::Parser;

use crate::cli::{Cli, Command, GatherCommand};
use crate::commands::{
    analyze, completion, coreos, create, explain, gather, graph, verify, version, waitfor,
};
use crate::exit::Exit;

fn main() {
    let cli = Cli::parse();
    let writes_log = matches!(
        cli.command,
        Command::Create(_) | Command::WaitFor(_) | Command::Gather(_) | Command::Verify(_)
    );
    if let Err(e) = logging::init(cli.log_level, writes_log.then_some(cli.dir.as_path())) {
        eprintln!("error: {e:#}");
        std::process::exit(exit::GENERIC);
    }
    if matches!(cli.command, Command::Create(_) | Command::Gather(_)) {
        exit_on_interrupt();
    }
    if let Err(exit) = dispatch(&cli) {
        tracing::error!("{}", exit.render());
        std::process::exit(exit.code);
    }
}

/// Ctrl-C during `create` or `gather` ends the process with exit code 8. That is safe at any
/// moment: every file is written to a temporary name and renamed into place, and the
/// temporary file of a write still going (a live ISO's gigabyte) is removed first.
fn exit_on_interrupt() {
    std::thread::spawn(|| {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        if rt.block_on(tokio::signal::ctrl_c()).is_ok() {
            let _no_more_renames = atomic_file::abandon_in_flight();
            eprintln!("interrupted; files already written are complete, nothing is half-written");
            std::process::exit(exit::INTERRUPTED);
        }
    });
}

fn dispatch(cli: &Cli) -> Result<(), Exit> {
    let dir = cli.dir.as_path();
    match &cli.command {
        Command::Create(cmd) => Ok(create::run(dir, cmd)?),
        Command::Explain { resource } => Ok(explain::explain(resource)?),
        Command::ExplainIgnition { file } => Ok(explain::explain_ignition(file)?),
        Command::Graph { dot } => Ok(graph::graph(*dot)?),
        Command::WaitFor(cmd) => waitfor::run(dir, cmd),
        Command::Gather(GatherCommand::Bootstrap(args)) => gather::run(dir, args),
        Command::Analyze { bundle, output } => analyze::run(bundle, *output),
        Command::Verify(args) => verify::run(dir, args),
        Command::Coreos(cmd) => Ok(coreos::run(cmd)?),
        Command::Version => {
            version::version();
            Ok(())
        }
        Command::Completion { shell } => {
            completion::completion(*shell);
            Ok(())
        }
    }
}
