//! Lowering of the imperative statements of a body: assignments to `let mut` variables (a new
//! binding of the name), `for` and `while` loops over them (an IR loop whose state is the
//! variables the body assigns), and, in a `for` loop, `a[idx] op= value` on a `let mut` array
//! that neither `idx` nor `value` reads (a reduction by index, `hist`).

use super::{Lower, R, builtin_fits, strip, unsupported, wrap_lets};
use flatland_vectoriser::ir::{BinaryOp, Expr, Lambda, ReduceOp, Type};
use syn::spanned::Spanned;
use syn::visit::Visit;

/// Whether `e` is a statement this module lowers (an assignment or a loop).
pub(super) fn imperative(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Assign(_) | syn::Expr::ForLoop(_) | syn::Expr::While(_) | syn::Expr::Loop(_) => {
            true
        }
        syn::Expr::Binary(b) => compound(&b.op).is_some(),
        _ => false,
    }
}

/// The operator of a compound assignment (`+=` is `+`).
fn compound(op: &syn::BinOp) -> Option<syn::BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(t) => B::Add(syn::Token![+](t.span())),
        B::SubAssign(t) => B::Sub(syn::Token![-](t.span())),
        B::MulAssign(t) => B::Mul(syn::Token![*](t.span())),
        B::DivAssign(t) => B::Div(syn::Token![/](t.span())),
        B::RemAssign(t) => B::Rem(syn::Token![%](t.span())),
        B::BitAndAssign(t) => B::BitAnd(syn::Token![&](t.span())),
        B::BitOrAssign(t) => B::BitOr(syn::Token![|](t.span())),
        B::BitXorAssign(t) => B::BitXor(syn::Token![^](t.span())),
        B::ShlAssign(t) => B::Shl(syn::Token![<<](t.span())),
        B::ShrAssign(t) => B::Shr(syn::Token![>>](t.span())),
        _ => return None,
    })
}

/// The names a loop body assigns (`x = ..`, `x op= ..`, nested loops included), in order of
/// first assignment, and the arrays it updates by index (`a[i] op= ..`).
#[derive(Default)]
struct Assigned {
    names: Vec<String>,
    indexed: Vec<String>,
}

impl<'ast> Visit<'ast> for Assigned {
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let Some(n) = ident(&a.left)
            && !self.names.contains(&n)
        {
            self.names.push(n);
        }
        syn::visit::visit_expr_assign(self, a);
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if compound(&b.op).is_some() {
            if let Some(n) = ident(&b.left)
                && !self.names.contains(&n)
            {
                self.names.push(n);
            }
            if let syn::Expr::Index(i) = strip(&b.left)
                && let Some(n) = ident(&i.expr)
                && !self.indexed.contains(&n)
            {
                self.indexed.push(n);
            }
        }
        syn::visit::visit_expr_binary(self, b);
    }

    // Closures cannot assign (reported where they try); their bodies are not the loop's.
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
}

/// The name of a plain variable expression.
fn ident(e: &syn::Expr) -> Option<String> {
    match strip(e) {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident().map(ToString::to_string),
        _ => None,
    }
}

/// Whether `e` reads the variable `name` (closures included).
fn reads(e: &syn::Expr, name: &str) -> bool {
    struct Reads<'n>(&'n str, bool);
    impl<'ast> Visit<'ast> for Reads<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if p.path.is_ident(self.0) {
                self.1 = true;
            }
        }
    }
    let mut r = Reads(name, false);
    r.visit_expr(e);
    r.1
}

/// The built-in reduction of a compound assignment operator on `t`, with its identity.
fn reduction(op: &syn::BinOp, t: &Type) -> Option<(ReduceOp, Expr)> {
    use syn::BinOp as B;
    Some(match (op, t) {
        (B::AddAssign(_), Type::I64) => (ReduceOp::Add, Expr::i64(0)),
        (B::AddAssign(_), Type::F64) => (ReduceOp::Add, Expr::f64(0.0)),
        (B::MulAssign(_), Type::I64) => (ReduceOp::Mul, Expr::i64(1)),
        (B::MulAssign(_), Type::F64) => (ReduceOp::Mul, Expr::f64(1.0)),
        (B::BitAndAssign(_), Type::Bool) => (ReduceOp::And, Expr::bool(true)),
        (B::BitOrAssign(_), Type::Bool) => (ReduceOp::Or, Expr::bool(false)),
        _ => return None,
    })
}

/// What a `for` loop iterates over: a range `a..b` or the elements of an array.
enum Over {
    Range { lo: String },
    Elements { array: String },
}

impl Lower<'_> {
    /// The type of the variable `name` in scope.
    fn var_type(&self, name: &str) -> Option<Type> {
        self.env
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
    }

    /// The element type of the array variable `name` (one the lowering bound itself).
    fn bound_elem(&self, name: &str) -> Type {
        self.var_type(name)
            .and_then(|t| t.elem().cloned())
            .expect("the array iterated is bound")
    }

    /// Whether `name` may be assigned here: a `let mut` of the current closure.
    fn check_mutable(&self, at: &impl Spanned, name: &str) -> R<Type> {
        let t = self.var_type(name);
        let mine = self
            .mutable
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, d)| *d);
        match (t, mine) {
            (None, _) => Err(syn::Error::new(
                at.span(),
                format!("#[vectorise]: unknown variable `{name}` assigned"),
            )),
            (Some(_), Some(d)) if d != self.closures => Err(unsupported(
                at,
                &format!(
                    "assigning to `{name}` from inside a closure (a closure cannot change the variables around it)"
                ),
            )),
            (Some(t), Some(_)) => Ok(t),
            (Some(_), None) => Err(syn::Error::new(
                at.span(),
                format!(
                    "#[vectorise]: cannot assign twice to immutable variable `{name}` (declare it `let mut`)"
                ),
            )),
        }
    }

    /// Binds `name` (of type `t`) to `value` for the statements after: pushes it on the
    /// environment, still mutable, and records the `let`.
    fn rebind(&mut self, name: &str, value: Expr, t: Type, binds: &mut Vec<(String, Expr)>) {
        binds.push((name.to_string(), value));
        self.env.push((name.to_string(), t));
        self.mutable.push((name.to_string(), self.closures));
    }

    /// An imperative statement `e` followed by `rest` (a block that ends in a value).
    pub(super) fn imperative_then(
        &mut self,
        e: &syn::Expr,
        rest: &[syn::Stmt],
        at: &impl Spanned,
    ) -> R<(Expr, Type)> {
        if rest.is_empty() {
            return Err(unsupported(
                e,
                "a block ending in a statement (a block must end in a value)",
            ));
        }
        let depth = (self.env.len(), self.mutable.len());
        let mut binds = Vec::new();
        let r = self
            .statement(e, &mut binds)
            .and_then(|()| self.stmts(rest, at));
        self.env.truncate(depth.0);
        self.mutable.truncate(depth.1);
        let (body, t) = r?;
        Ok((wrap_lets(binds, body), t))
    }

    /// Lowers one imperative statement into `binds` (the names it assigns bound anew).
    fn statement(&mut self, e: &syn::Expr, binds: &mut Vec<(String, Expr)>) -> R<()> {
        match e {
            syn::Expr::Assign(a) => {
                let Some(name) = ident(&a.left) else {
                    return Err(unsupported(
                        &a.left,
                        "assigning to anything but a variable (`a[i] op= v` in a `for` loop is a histogram)",
                    ));
                };
                let t = self.check_mutable(&a.left, &name)?;
                let (v, tv) = self.expr(&a.right)?;
                if tv != t {
                    return Err(syn::Error::new(
                        a.right.span(),
                        format!("#[vectorise]: type error: `{name}` has type {t}, assigned {tv}"),
                    ));
                }
                self.rebind(&name, v, t, binds);
                Ok(())
            }
            syn::Expr::Binary(b) if compound(&b.op).is_some() => {
                let Some(name) = ident(&b.left) else {
                    return Err(unsupported(
                        &b.left,
                        "`a[i] op= v` outside a `for` loop (inside one it is a histogram)",
                    ));
                };
                let t = self.check_mutable(&b.left, &name)?;
                let mut plain = b.clone();
                plain.op = compound(&b.op).expect("a compound operator");
                let (v, _) = self.binary(&plain)?;
                self.rebind(&name, v, t, binds);
                Ok(())
            }
            syn::Expr::ForLoop(f) => self.for_loop(f, binds),
            syn::Expr::If(i) => self.if_statement(i, binds),
            syn::Expr::Loop(l) => Err(unsupported(
                &l.loop_token,
                "`loop` (write `while cond { .. }` or `for`; `break` and `continue` are not supported)",
            )),
            syn::Expr::While(w) => self.while_loop(w, binds),
            other => Err(unsupported(other, "this statement")),
        }
    }

    /// The state of a loop whose body is `body`: the variables it assigns, with their types.
    fn loop_state(&self, at: &impl Spanned, body: &syn::Block) -> R<Vec<(String, Type)>> {
        let mut a = Assigned::default();
        a.visit_block(body);
        a.names
            .iter()
            .map(|n| Ok((n.clone(), self.check_mutable(at, n)?)))
            .collect()
    }

    /// The state as one value: the variable itself, or a tuple of them.
    fn state_value(state: &[(String, Type)]) -> (Expr, Type) {
        if let [(n, t)] = state {
            return (Expr::var(n), t.clone());
        }
        (
            Expr::Tuple(state.iter().map(|(n, _)| Expr::var(n)).collect()),
            Type::Tuple(state.iter().map(|(_, t)| t.clone()).collect()),
        )
    }

    /// Binds each state variable from the state value `s` (a variable).
    fn unpack_state(&mut self, s: &str, state: &[(String, Type)], binds: &mut Vec<(String, Expr)>) {
        if let [(n, t)] = state {
            self.rebind(n, Expr::var(s), t.clone(), binds);
            return;
        }
        for (k, (n, t)) in state.iter().enumerate() {
            self.rebind(n, Expr::proj(Expr::var(s), k), t.clone(), binds);
        }
    }

    /// A lambda over the state (and `extra` parameters) whose body is `body` lowered with the
    /// state variables bound from its parameter.
    fn state_lambda(
        &mut self,
        state: &[(String, Type)],
        extra: &[(String, Type)],
        body: &mut dyn FnMut(&mut Self) -> R<Expr>,
    ) -> R<Lambda> {
        let (_, st) = Self::state_value(state);
        let s = self.fresh("s");
        let depth = (self.env.len(), self.mutable.len());
        self.env.push((s.clone(), st));
        self.env.extend(extra.iter().cloned());
        let mut binds = Vec::new();
        self.unpack_state(&s, state, &mut binds);
        let r = body(self);
        self.env.truncate(depth.0);
        self.mutable.truncate(depth.1);
        let mut params = vec![s.as_str()];
        params.extend(extra.iter().map(|(n, _)| n.as_str()));
        Ok(Lambda::new(&params, wrap_lets(binds, r?)))
    }

    /// The statements of a loop body, then the state they leave.
    fn body_stmts(&mut self, stmts: &[syn::Stmt], state: &[(String, Type)]) -> R<Expr> {
        let Some((first, rest)) = stmts.split_first() else {
            return Ok(Self::state_value(state).0);
        };
        let depth = (self.env.len(), self.mutable.len());
        let mut binds = Vec::new();
        let r = match first {
            syn::Stmt::Local(l) => {
                let Some(init) = &l.init else {
                    return Err(unsupported(l, "`let` without a value"));
                };
                if init.diverge.is_some() {
                    return Err(unsupported(l, "`let ... else`"));
                }
                self.expr(&init.expr)
                    .and_then(|(v, t)| self.bind_pat(&l.pat, v, t, &mut binds))
            }
            syn::Stmt::Expr(e, _) if imperative(e) || matches!(e, syn::Expr::If(_)) => {
                self.statement(e, &mut binds)
            }
            syn::Stmt::Expr(e, _) => Err(unsupported(
                e,
                "this statement in a loop (a loop body holds `let`s, assignments to `let mut` variables, `if`s of them and loops)",
            )),
            other => Err(unsupported(other, "this statement in a loop")),
        };
        let r = r.and_then(|()| self.body_stmts(rest, state));
        self.env.truncate(depth.0);
        self.mutable.truncate(depth.1);
        Ok(wrap_lets(binds, r?))
    }

    /// `if c { .. } else { .. }` as a statement: each branch leaves the state (the variables
    /// either branch assigns), and the `if` chooses.
    fn if_statement(&mut self, i: &syn::ExprIf, binds: &mut Vec<(String, Expr)>) -> R<()> {
        let mut a = Assigned::default();
        a.visit_expr_if(i);
        let state: Vec<(String, Type)> = a
            .names
            .iter()
            .map(|n| Ok((n.clone(), self.check_mutable(i, n)?)))
            .collect::<R<_>>()?;
        if state.is_empty() {
            return Err(unsupported(
                i,
                "an `if` statement that assigns no `let mut` variable",
            ));
        }
        let (c, _) = self.expr(&i.cond)?;
        let then = self.branch_stmts(&i.then_branch.stmts, &state)?;
        let other = match &i.else_branch {
            None => Self::state_value(&state).0,
            Some((_, e)) => match strip(e) {
                syn::Expr::Block(b) => self.branch_stmts(&b.block.stmts, &state)?,
                syn::Expr::If(inner) => {
                    let depth = (self.env.len(), self.mutable.len());
                    let mut inner_binds = Vec::new();
                    let r = self.if_statement(inner, &mut inner_binds);
                    let tail = Self::state_value(&state).0;
                    self.env.truncate(depth.0);
                    self.mutable.truncate(depth.1);
                    r?;
                    wrap_lets(inner_binds, tail)
                }
                other => return Err(unsupported(other, "this `else`")),
            },
        };
        self.bind_result(i, Expr::if_(c, then, other), &state, binds)
    }

    /// The statements of one branch of an `if` statement, then the state they leave.
    fn branch_stmts(&mut self, stmts: &[syn::Stmt], state: &[(String, Type)]) -> R<Expr> {
        let depth = (self.env.len(), self.mutable.len());
        let r = self.body_stmts(stmts, state);
        self.env.truncate(depth.0);
        self.mutable.truncate(depth.1);
        r
    }

    /// Binds the state variables to the parts of `value` (the state after a loop or `if`).
    fn bind_result(
        &mut self,
        at: &impl Spanned,
        value: Expr,
        state: &[(String, Type)],
        binds: &mut Vec<(String, Expr)>,
    ) -> R<()> {
        self.typed(at, value.clone())?;
        let r = self.fresh("r");
        let (_, st) = Self::state_value(state);
        binds.push((r.clone(), value));
        self.env.push((r.clone(), st));
        self.unpack_state(&r, state, binds);
        Ok(())
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop, binds: &mut Vec<(String, Expr)>) -> R<()> {
        if f.label.is_some() {
            return Err(unsupported(f, "a labelled loop"));
        }
        if let Some(r) = self.for_hist(f, binds) {
            return r;
        }
        let state = self.loop_state(f, &f.body)?;
        if state.is_empty() {
            return Err(unsupported(
                f,
                "a `for` loop that assigns no `let mut` variable (its body must change the state)",
            ));
        }
        let (count, over) = self.iteration(f, binds)?;
        let (init, _) = Self::state_value(&state);
        let i = self.fresh("i");
        let pat = f.pat.clone();
        let body = self.state_lambda(&state, &[(i.clone(), Type::I64)], &mut |me| {
            let mut pbinds = Vec::new();
            let depth = (me.env.len(), me.mutable.len());
            let r = me
                .bind_iteration(&pat, &over, &i, &mut pbinds)
                .and_then(|()| me.body_stmts(&f.body.stmts, &state));
            me.env.truncate(depth.0);
            me.mutable.truncate(depth.1);
            Ok(wrap_lets(pbinds, r?))
        })?;
        self.bind_result(f, Expr::loop_for(init, count, body), &state, binds)
    }

    /// The number of iterations of a `for` loop and what it binds; the array iterated over (or
    /// the range's start) is bound once, before the loop.
    fn iteration(
        &mut self,
        f: &syn::ExprForLoop,
        binds: &mut Vec<(String, Expr)>,
    ) -> R<(Expr, Over)> {
        let mut over = strip(&f.expr);
        if let syn::Expr::Reference(r) = over {
            over = strip(&r.expr);
        }
        if let syn::Expr::Range(r) = over {
            let (Some(s), Some(e), syn::RangeLimits::HalfOpen(_)) = (&r.start, &r.end, &r.limits)
            else {
                return Err(unsupported(r, "a loop range that is not `start..end`"));
            };
            let (s, ts) = self.expr(s)?;
            let (e, te) = self.expr(e)?;
            if ts != Type::I64 || te != Type::I64 {
                return Err(syn::Error::new(
                    r.span(),
                    format!("#[vectorise]: type error: a range of {ts} and {te}, i64 expected"),
                ));
            }
            let lo = self.fresh("lo");
            binds.push((lo.clone(), s));
            self.env.push((lo.clone(), Type::I64));
            let count = Expr::binary(BinaryOp::Max, e - Expr::var(&lo), Expr::i64(0));
            return Ok((count, Over::Range { lo }));
        }
        let (a, t) = self.expr(over)?;
        let Type::Array(_) = &t else {
            return Err(syn::Error::new(
                f.expr.span(),
                format!(
                    "#[vectorise]: type error: a `for` loop over {t} (a range or an array is iterated)"
                ),
            ));
        };
        let array = self.fresh("xs");
        binds.push((array.clone(), a));
        self.env.push((array.clone(), t));
        Ok((Expr::length(Expr::var(&array)), Over::Elements { array }))
    }

    /// Binds the loop pattern for iteration `i`.
    fn bind_iteration(
        &mut self,
        pat: &syn::Pat,
        over: &Over,
        i: &str,
        binds: &mut Vec<(String, Expr)>,
    ) -> R<()> {
        let (v, t) = match over {
            Over::Range { lo } => (Expr::var(lo) + Expr::var(i), Type::I64),
            Over::Elements { array } => {
                let t = self.bound_elem(array);
                (Expr::index(Expr::var(array), Expr::var(i)), t)
            }
        };
        self.bind_pat(pat, v, t, binds)
    }

    fn while_loop(&mut self, w: &syn::ExprWhile, binds: &mut Vec<(String, Expr)>) -> R<()> {
        if w.label.is_some() {
            return Err(unsupported(w, "a labelled loop"));
        }
        if let syn::Expr::Let(l) = strip(&w.cond) {
            return Err(unsupported(l, "`while let`"));
        }
        let state = self.loop_state(w, &w.body)?;
        if state.is_empty() {
            return Err(unsupported(
                w,
                "a `while` loop that assigns no `let mut` variable (it would never end)",
            ));
        }
        let (init, _) = Self::state_value(&state);
        let cond = self.state_lambda(&state, &[], &mut |me| me.expr(&w.cond).map(|(c, _)| c))?;
        let body =
            self.state_lambda(&state, &[], &mut |me| me.body_stmts(&w.body.stmts, &state))?;
        self.bind_result(w, Expr::loop_while(init, cond, body), &state, binds)
    }

    /// `for pat in xs { a[idx] op= value; .. }` on `let mut` arrays that neither `idx` nor
    /// `value` reads: one `hist` per statement over the iterations, folded into the array
    /// (`a = map(op, a, hist(len(a), identity, op, idx per iteration, value per iteration))`).
    /// `None` when the body is not of this form.
    fn for_hist(&mut self, f: &syn::ExprForLoop, binds: &mut Vec<(String, Expr)>) -> Option<R<()>> {
        let updates: Vec<&syn::ExprBinary> = f
            .body
            .stmts
            .iter()
            .map(|s| match s {
                syn::Stmt::Expr(syn::Expr::Binary(b), _)
                    if compound(&b.op).is_some()
                        && matches!(strip(&b.left), syn::Expr::Index(_)) =>
                {
                    Some(b)
                }
                _ => None,
            })
            .collect::<Option<_>>()?;
        if updates.is_empty() {
            return None;
        }
        Some(self.lower_for_hist(f, &updates, binds))
    }

    fn lower_for_hist(
        &mut self,
        f: &syn::ExprForLoop,
        updates: &[&syn::ExprBinary],
        binds: &mut Vec<(String, Expr)>,
    ) -> R<()> {
        let (count, over) = self.iteration(f, binds)?;
        for b in updates {
            let syn::Expr::Index(ix) = strip(&b.left) else {
                unreachable!("checked by for_hist");
            };
            let Some(name) = ident(&ix.expr) else {
                return Err(unsupported(
                    &ix.expr,
                    "updating by index anything but a `let mut` array variable",
                ));
            };
            let t = self.check_mutable(&ix.expr, &name)?;
            let el = Self::elem_of(&ix.expr, &t, "an update by index")?;
            if reads(&ix.index, &name) || reads(&b.right, &name) {
                return Err(unsupported(
                    b,
                    &format!(
                        "an update of `{name}` by index whose index or value reads `{name}` (a histogram reads neither)"
                    ),
                ));
            }
            let Some((op, z)) = reduction(&b.op, &el) else {
                return Err(unsupported(
                    &b.op,
                    &format!(
                        "this update by index on an array of {el} (`+=` and `*=` on i64/f64, `&=` and `|=` on bool)"
                    ),
                ));
            };
            // The index and the value of every iteration, as maps over the iterations.
            let (source, elem) = match &over {
                Over::Range { lo } => (
                    Expr::iota(count.clone(), Expr::var(lo), Expr::i64(1)),
                    Type::I64,
                ),
                Over::Elements { array } => {
                    let elem = self.bound_elem(array);
                    (Expr::var(array), elem)
                }
            };
            let p = self.fresh("p");
            let per_iteration = |me: &mut Self, e: &syn::Expr| -> R<Expr> {
                let depth = (me.env.len(), me.mutable.len());
                me.env.push((p.clone(), elem.clone()));
                let mut pbinds = Vec::new();
                let r = me
                    .bind_pat(&f.pat, Expr::var(&p), elem.clone(), &mut pbinds)
                    .and_then(|()| me.expr(e));
                me.env.truncate(depth.0);
                me.mutable.truncate(depth.1);
                let (v, _) = r?;
                Ok(Expr::map(
                    Lambda::new(&[&p], wrap_lets(pbinds, v)),
                    vec![source.clone()],
                ))
            };
            let idx = per_iteration(self, &ix.index)?;
            let vals = per_iteration(self, &b.right)?;
            let h = Expr::hist(Expr::length(Expr::var(&name)), z, op.clone(), idx, vals);
            let bop = op.bin_op().expect("a built-in operator");
            debug_assert!(builtin_fits(&op, &el));
            let (x, y) = (self.fresh("x"), self.fresh("y"));
            let combine = Expr::map(
                Lambda::new(&[&x, &y], Expr::binary(bop, Expr::var(&x), Expr::var(&y))),
                vec![Expr::var(&name), h],
            );
            self.typed(b, combine.clone())?;
            self.rebind(&name, combine, t, binds);
        }
        Ok(())
    }
}

/// Whether `z` is the identity of the built-in operator `op` (a literal).
fn is_identity(op: &ReduceOp, z: &Expr) -> bool {
    use flatland_vectoriser::ir::Scalar as S;
    let Expr::Lit(s) = z else {
        return false;
    };
    match (op, s) {
        (ReduceOp::Add, S::I64(0)) | (ReduceOp::Mul, S::I64(1)) => true,
        (ReduceOp::Add, S::F64(x)) => x.to_bits() == 0.0f64.to_bits(),
        (ReduceOp::Mul, S::F64(x)) => *x == 1.0,
        (ReduceOp::Min, S::I64(x)) => *x == i64::MAX,
        (ReduceOp::Max, S::I64(x)) => *x == i64::MIN,
        (ReduceOp::Min, S::F64(x)) => *x == f64::INFINITY,
        (ReduceOp::Max, S::F64(x)) => *x == f64::NEG_INFINITY,
        (ReduceOp::And, S::Bool(b)) => *b,
        (ReduceOp::Or, S::Bool(b)) => !*b,
        _ => false,
    }
}

impl Lower<'_> {
    /// `xs.fold(init, |acc, x| ..)`: a `reduce` when the closure is a built-in operator and
    /// `init` its identity (the canonical association, as `sum()`), else a loop over the
    /// elements with the accumulator as its state (Rust's left-to-right order, bit for bit).
    pub(super) fn fold(&mut self, m: &syn::ExprMethodCall) -> R<(Expr, Type)> {
        let (a, el) = self.one_array(m)?;
        let (z, zt) = self.expr(&m.args[0])?;
        if let Some(op) = super::builtin_for(&m.args[1], &el)
            && zt == el
            && is_identity(&op, &z)
        {
            return self.typed(m, Expr::reduce(op, z, a));
        }
        let (f, _) = self.lambda(&m.args[1], &[zt, el])?;
        let (acc, x) = (f.params[0].0.clone(), f.params[1].0.clone());
        let (xs, i) = (self.fresh("xs"), self.fresh("i"));
        let body = Expr::let_(
            &x,
            Expr::index(Expr::var(&xs), Expr::var(&i)),
            (*f.body).clone(),
        );
        let lp = Expr::loop_for(
            z,
            Expr::length(Expr::var(&xs)),
            Lambda::new(&[&acc, &i], body),
        );
        self.typed(m, Expr::let_(&xs, a, lp))
    }
}
