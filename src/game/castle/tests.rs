//! Castle conquest tests.
