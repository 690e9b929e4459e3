use flatland_macros::vectorise;

#[vectorise]
mod kernels {
    pub fn total(xs: &[i64]) -> i64 {
        xs.iter().peekable().len()
    }

    pub fn pick(xs: &[i64], k: i64) -> i64 {
        match k {
            0 => xs[0],
            _ => 1,
        }
    }
}

fn main() {}
