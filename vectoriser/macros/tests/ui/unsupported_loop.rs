use flatland_macros::vectorise;

#[vectorise]
mod kernels {
    pub fn total(xs: &[i64]) -> i64 {
        let mut s = 0;
        for x in xs {
            s += x;
        }
        s
    }
}

fn main() {}
