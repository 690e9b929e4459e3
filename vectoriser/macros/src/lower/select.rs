//! The selection and sorting methods of the subset (`any`, `all`, `count`, `first`, `last`,
//! `argmin`, `argmax`, `rev`, `enumerate`, `take`, `skip`, `sort`, `argsort`, `sort_by_key`),
//! lowered to the core IR by
//! `flatland_vectoriser::derived` (which says what each means, the empty array included), and
//! zips of three and four arrays.

use super::{Lower, R, strip, unsupported};
use flatland_vectoriser::derived;
use flatland_vectoriser::ir::{Expr, Lambda, SortOp, Type};

/// `((x0, x1), x2)`, `(((x0, x1), x2), x3)`: the value Rust's `a.zip(b).zip(c)` yields, of the
/// variables `vars`.
pub(super) fn nested_tuple(vars: &[Expr]) -> Expr {
    let mut it = vars.iter().cloned();
    let first = it.next().expect("at least one array");
    it.fold(first, |acc, x| Expr::Tuple(vec![acc, x]))
}

/// The type of [`nested_tuple`] over elements `elems`.
pub(super) fn nested_type(elems: &[Type]) -> Type {
    let mut it = elems.iter().cloned();
    let first = it.next().expect("at least one array");
    it.fold(first, |acc, t| Type::Tuple(vec![acc, t]))
}

fn zip_vars(k: usize) -> Vec<String> {
    (0..k).map(|j| format!("__z{j}")).collect()
}

impl Lower<'_> {
    /// A closure over the elements of a zip of `elems.len() > 2` arrays, as a lambda of one
    /// parameter per array: Rust hands the closure the nested pair `((x, y), z)`, which the
    /// lambda rebuilds for the closure's pattern.
    pub(super) fn zip_lambda_n(&mut self, c: &syn::Expr, elems: &[Type]) -> R<(Lambda, Type)> {
        let (l, t) = self.lambda(c, &[nested_type(elems)])?;
        let vars = zip_vars(elems.len());
        let param = l.params[0].0.clone();
        let value = nested_tuple(&vars.iter().map(|v| Expr::var(v)).collect::<Vec<_>>());
        let body = Expr::let_(&param, value, (*l.body).clone());
        let names: Vec<&str> = vars.iter().map(String::as_str).collect();
        Ok((Lambda::new(&names, body), t))
    }

    /// The array of nested tuples a zip of more than two arrays stands for when it is not
    /// consumed by `map`.
    pub(super) fn zip_array_n(arrays: Vec<(Expr, Type)>) -> (Expr, Type) {
        let vars = zip_vars(arrays.len());
        let el = nested_type(&arrays.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>());
        let names: Vec<&str> = vars.iter().map(String::as_str).collect();
        let value = nested_tuple(&vars.iter().map(|v| Expr::var(v)).collect::<Vec<_>>());
        let e = Expr::map(
            Lambda::new(&names, value),
            arrays.into_iter().map(|(e, _)| e).collect(),
        );
        (e, el)
    }

    /// `m` as a selection method, or `None` if it is not one.
    pub(super) fn select_method(&mut self, m: &syn::ExprMethodCall) -> Option<R<(Expr, Type)>> {
        let name = m.method.to_string();
        let nargs = m.args.len();
        let known = matches!(
            (name.as_str(), nargs),
            ("any" | "all" | "take" | "skip" | "sort_by_key", 1)
                | (
                    "count"
                        | "first"
                        | "last"
                        | "argmin"
                        | "argmax"
                        | "rev"
                        | "enumerate"
                        | "sort"
                        | "argsort",
                    0
                )
        );
        known.then(|| self.select(m, &name))
    }

    fn select(&mut self, m: &syn::ExprMethodCall, name: &str) -> R<(Expr, Type)> {
        if name == "count" {
            // `a.filter(p).count()` counts without building the filtered array.
            if let syn::Expr::MethodCall(f) = strip(&m.receiver)
                && f.method == "filter"
                && f.args.len() == 1
            {
                let (a, el) = self.one_array(f)?;
                let (p, _) = self.lambda(&f.args[0], &[el])?;
                return self.typed(m, derived::count(p, a));
            }
            let (a, _) = self.one_array(m)?;
            return self.typed(m, Expr::length(a));
        }
        let (a, el) = self.one_array(m)?;
        let e = match name {
            "any" | "all" => {
                let (p, _) = self.lambda(&m.args[0], &[el])?;
                if name == "any" {
                    derived::any(p, a)
                } else {
                    derived::all(p, a)
                }
            }
            "take" | "skip" => {
                let (n, _) = self.expr(&m.args[0])?;
                if name == "take" {
                    derived::take(a, n)
                } else {
                    derived::skip(a, n)
                }
            }
            "sort" => Expr::sort(SortOp::Values, a),
            "argsort" => Expr::sort(SortOp::Indices, a),
            "sort_by_key" => {
                let (k, _) = self.lambda(&m.args[0], &[el])?;
                derived::sort_by_key(k, a)
            }
            "first" => derived::first(a),
            "last" => derived::last(a),
            "rev" => derived::rev(a),
            "enumerate" => derived::enumerate(a),
            _ => {
                let best = if name == "argmin" {
                    derived::argmin(a, &el)
                } else {
                    derived::argmax(a, &el)
                };
                best.ok_or_else(|| {
                    syn::Error::new(
                        m.method.span(),
                        format!(
                            "#[vectorise]: type error: `{name}` needs an array of i64 or f64, found [{el}]"
                        ),
                    )
                })?
            }
        };
        self.typed(m, e)
    }
}

/// The error for a zip of more arrays than the subset takes.
pub(super) fn too_many(at: &syn::ExprMethodCall) -> syn::Error {
    unsupported(at, "a zip of more than four arrays")
}
