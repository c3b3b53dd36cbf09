//! reflect: the runtime the six binaries share, each binary a short `main` over [`reflect_app`].
//!
//! This is the one place that prints, reads the command line and exits the process: [`hook`] is
//! the never-hurt-Claude runtime of the hooks (exit 0 on every path, problems to the error log),
//! [`cli_support`] the one exit-code policy of the CLIs (0, 1 operational, 2 usage), and
//! [`capture_support`] the shared `main` of the two transcript miners. It may import every
//! reflect crate but `reflect-lab`, which no binary links (`tests/integration/layout.rs`).

pub mod capture_support;
pub mod cli_support;
pub mod hook;
