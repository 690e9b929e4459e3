use flatland_macros::vectorise;

#[vectorise]
mod kernels {
    pub fn first(xs: &[(usize, i64)]) -> i64 {
        xs.len()
    }
}

fn main() {}
