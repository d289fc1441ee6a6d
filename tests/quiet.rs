//! candor's integration tests that measure the disk or time what they run:
//! the planted-condition truth table and block stack, the findings' sweep,
//! job files run against fio (rates, overlap, placement on CPUs), devices
//! and verification. Each such test takes its turn
//! (`common::plant::one_at_a_time`); they are a binary of their own so that
//! no test of tests/integration.rs runs beside them and reaches their
//! figures (a foreign writer is a finding of its own, and a busy CPU slows
//! a rate).

mod common;

mod device_jobs;
mod findings;
mod jobfile;
mod jobfile_data;
mod jobfile_placement;
mod jobfile_sizes;
mod stack;
mod truth;
mod verify;
