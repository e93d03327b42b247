//! One module per subcommand: each parses nothing itself, calls a library, prints.

pub(crate) mod analyze;
pub(crate) mod completion;
pub(crate) mod coreos;
pub(crate) mod create;
pub(crate) mod explain;
pub(crate) mod gather;
pub(crate) mod graph;
pub(crate) mod media;
pub(crate) mod verify;
pub(crate) mod version;
pub(crate) mod waitfor;
