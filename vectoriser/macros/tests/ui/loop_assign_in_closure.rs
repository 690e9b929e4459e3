use flatland_macros::vectorise;

#[vectorise]
mod kernels {
    pub fn running(xs: &[i64]) -> Vec<i64> {
        let mut s = 0;
        xs.map(|x| {
            s += x;
            s
        })
    }
}

fn main() {}
