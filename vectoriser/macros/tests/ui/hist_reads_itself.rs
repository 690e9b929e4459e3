use flatland_macros::vectorise;

#[vectorise]
mod kernels {
    pub fn chained(keys: &[i64]) -> Vec<i64> {
        let mut c = vec![0; 4];
        for &k in keys {
            c[k] += c[0];
        }
        c
    }

    pub fn maxed(keys: &[i64]) -> Vec<i64> {
        let mut c = vec![0; 4];
        for &k in keys {
            c[k] -= 1;
        }
        c
    }
}

fn main() {}
