//! The `ixgen` binary: parse the command line, run it, exit with its code.

use clap::Parser;

fn main() {
    let cli = ixgen::cli::Cli::parse();
    std::process::exit(ixgen::cli::run(cli));
}
