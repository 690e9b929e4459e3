use flatland_macros::vectorise;

#[vectorise]
mod kernels {
    use flatland_runtime::elt::Nested;

    pub fn rows(xs: &Nested<u8>) -> i64 {
        xs.len()
    }
}

fn main() {}
