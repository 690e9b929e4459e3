use flatland_macros::vectorise;

#[vectorise]
mod kernels {
    pub fn first_big(xs: &[i64]) -> i64 {
        let mut found = -1;
        for &x in xs {
            if x > 10 {
                found = x;
                break;
            }
        }
        found
    }
}

fn main() {}
