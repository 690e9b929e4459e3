//! The benchmark harness behind `flatland bench`.
pub mod answer;
pub mod baselines;
pub mod inputs;
pub mod measure;
