use flatland_macros::vectorise;

#[vectorise]
mod kernels {
    pub fn nothing(xs: &[i64]) -> i64 {
        let s = 0;
        for x in xs {
            let y = x + 1;
        }
        s
    }

    pub fn immutable(xs: &[i64]) -> i64 {
        let s = 0;
        for x in xs {
            s += x;
        }
        s
    }
}

fn main() {}
