use flatland_macros::vectorise;

#[vectorise]
mod kernels {
    pub fn scale(xs: &[i64]) -> Vec<i64> {
        xs.map(|x| x * 2.5)
    }

    pub fn count(xs: &[f64]) -> f64 {
        xs.len()
    }

    pub fn caller(xs: &[f64]) -> Vec<i64> {
        scale(xs)
    }
}

fn main() {}
