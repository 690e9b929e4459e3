//! The IR checker on arbitrary IR (ill-typed, unbound names, wrong arities, calls of missing
//! functions): it accepts or names the problem, never panics. A program it accepts also
//! pretty-prints and fuses without panicking.

use super::bytes::Bytes;
use flatland::vectoriser::ir::{
    BinaryOp, Expr, Function, Lambda, Program, ReduceOp, Type, UnaryOp,
};

const NAMES: [&str; 6] = ["a", "b", "x", "k", "f", "main"];

fn ty(b: &mut Bytes, depth: usize) -> Type {
    match b.below(if depth == 0 { 3 } else { 5 }) {
        0 => Type::I64,
        1 => Type::F64,
        2 => Type::Bool,
        3 => Type::array(ty(b, depth - 1)),
        _ => Type::Tuple((0..b.below(3)).map(|_| ty(b, depth - 1)).collect()),
    }
}

fn name(b: &mut Bytes) -> &'static str {
    NAMES[b.below(NAMES.len())]
}

fn lambda(b: &mut Bytes, depth: usize) -> Lambda {
    let params: Vec<&str> = (0..b.below(3)).map(|_| name(b)).collect();
    Lambda::new(&params, expr(b, depth))
}

fn op(b: &mut Bytes, depth: usize) -> ReduceOp {
    match b.below(7) {
        0 => ReduceOp::Add,
        1 => ReduceOp::Mul,
        2 => ReduceOp::Min,
        3 => ReduceOp::Max,
        4 => ReduceOp::And,
        5 => ReduceOp::Or,
        _ => ReduceOp::Lambda(lambda(b, depth)),
    }
}

fn exprs(b: &mut Bytes, depth: usize, max: usize) -> Vec<Expr> {
    (0..b.below(max + 1)).map(|_| expr(b, depth)).collect()
}

fn expr(b: &mut Bytes, depth: usize) -> Expr {
    if depth == 0 || b.is_empty() {
        return match b.below(4) {
            0 => Expr::var(name(b)),
            1 => Expr::i64(i64::from(b.byte() as i8)),
            2 => Expr::f64(f64::from(b.byte() as i8) * 0.5),
            _ => Expr::bool(b.byte() % 2 == 0),
        };
    }
    let d = depth - 1;
    let e = |b: &mut Bytes| std::sync::Arc::new(expr(b, d));
    match b.below(26) {
        0 => Expr::var(name(b)),
        1 => Expr::i64(i64::from(b.byte() as i8)),
        2 => Expr::Tuple(exprs(b, d, 3)),
        3 => Expr::Proj(e(b), b.below(4)),
        4 => Expr::Let(name(b).into(), e(b), e(b)),
        5 => Expr::If(e(b), e(b), e(b)),
        6 => Expr::Unary(UnaryOp::ALL[b.below(UnaryOp::ALL.len())], e(b)),
        7 => Expr::Binary(BinaryOp::ALL[b.below(BinaryOp::ALL.len())], e(b), e(b)),
        8 => Expr::ArrayLit(ty(b, 2), exprs(b, d, 3)),
        9 => Expr::Index(e(b), e(b)),
        10 => Expr::Length(e(b)),
        11 => Expr::iota(expr(b, d), expr(b, d), expr(b, d)),
        12 => Expr::Replicate(e(b), e(b)),
        13 => Expr::Slice(e(b), e(b), e(b)),
        14 => Expr::Append(e(b), e(b)),
        15 => Expr::Concat(e(b)),
        16 => Expr::Scatter(e(b), e(b), e(b)),
        17 => Expr::Map(lambda(b, d), exprs(b, d, 2)),
        18 => Expr::Reduce(op(b, d), e(b), e(b)),
        19 => Expr::Scan(op(b, d), e(b), e(b)),
        20 => Expr::Filter((0..b.below(4)).map(|_| lambda(b, d)).collect(), e(b)),
        21 => {
            let classes = b.below(20);
            let interest = (0..b.below(4)).map(|_| b.below(20)).collect();
            Expr::partition(classes, interest, lambda(b, d), expr(b, d))
        }
        22 => Expr::Redomap(op(b, d), e(b), lambda(b, d), exprs(b, d, 2)),
        23 => Expr::Call(name(b).into(), exprs(b, d, 3)),
        _ => Expr::f64(f64::from(b.byte() as i8) * 0.25),
    }
}

pub fn run(data: &[u8]) {
    super::budget();
    let mut b = Bytes::new(data);
    let functions = (0..=b.below(3))
        .map(|_| {
            let fname = name(&mut b);
            let params: Vec<(String, Type)> = (0..b.below(3))
                .map(|_| (name(&mut b).to_owned(), ty(&mut b, 2)))
                .collect();
            let ret = ty(&mut b, 2);
            Function::new(fname, params, ret, expr(&mut b, 5))
        })
        .collect();
    let p = Program::new(functions);
    if flatland::vectoriser::check::check_program(&p).is_ok() {
        let _ = p.to_string();
        let _ = flatland::vectoriser::fuse::fuse(&p);
    }
}
