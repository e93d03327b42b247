//! okd-install: the command-line front end. Parses flags, calls the libraries, prints.
fn main() {
    println!("okd-install: under construction");
}
