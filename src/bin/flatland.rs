//! The `flatland` command.

fn main() {
    println!("flatland {}", env!("CARGO_PKG_VERSION"));
}
