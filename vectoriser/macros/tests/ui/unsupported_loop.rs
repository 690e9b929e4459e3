use flatland_macros::vectorise;

#[vectorise]
mod kernels {
    pub fn total(xs: &[i64]) -> i64 {
        let mut s = 0;
        loop {
            s += xs.len();
            if s > 3 {
                break;
            }
        }
        s
    }
}

fn main() {}
