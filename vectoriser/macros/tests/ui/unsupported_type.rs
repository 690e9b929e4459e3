use flatland_macros::vectorise;

#[vectorise]
mod kernels {
    pub fn first(xs: &[String]) -> i64 {
        xs.len()
    }
}

fn main() {}
