//! The disk I/O engine (in progress).
