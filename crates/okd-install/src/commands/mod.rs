//! One module per subcommand: each parses nothing itself, calls a library, prints.

pub mod analyze;
pub mod create;
pub mod gather;
pub mod misc;
pub mod verify;
pub mod waitfor;
