use flatland_macros::vectorise;

#[vectorise]
mod kernels {
    pub fn f(x: i64) -> i64 {
        x
    }

    pub fn try_f(x: i64) -> i64 {
        x + 1
    }
}

fn main() {}
