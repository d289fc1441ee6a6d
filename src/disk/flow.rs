//! fio's `flow`, `flow_id`, `flow_sleep` (flow.c, fio 3.33): threads that
//! name the same flow share its I/O in the ratio of their weights. A flow
//! keeps a counter (starting at 1) and the weights of the threads in it;
//! before each I/O a thread compares its own count over the flow's with its
//! weight over the flow's total: above it, the thread holds back (waits for
//! its I/O in flight and sleeps `flow_sleep`, when set) and tries again;
//! otherwise it counts the I/O in both. A thread leaving takes its count
//! and weight with it. Flows are the process's, as fio's are: every job of
//! a run with the same `flow_id` shares one.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// fio's FLOW_MAX_WEIGHT.
pub const MAX_WEIGHT: u64 = 1000;

/// A job's place in a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flow {
    pub id: u64,
    pub weight: u64,
    /// How long a thread above its share sleeps (after its I/O in flight completes).
    pub sleep: Duration,
}

impl Flow {
    /// In words, for the Run and `--parse-only`.
    pub fn describe(&self) -> String {
        let sleep = if self.sleep.is_zero() {
            "retries at once".to_string()
        } else {
            format!(
                "waits for its I/O then sleeps {} us",
                self.sleep.as_micros()
            )
        };
        format!(
            "flow {}: each thread's I/O kept to weight {} of the flow's total (above it the thread {sleep})",
            self.id, self.weight
        )
    }
}

/// A flow's shared counts.
struct FlowCounts {
    counter: AtomicU64,
    total_weight: AtomicU64,
}

/// The process's flows by id.
fn flows() -> &'static Mutex<HashMap<u64, Arc<FlowCounts>>> {
    static FLOWS: std::sync::OnceLock<Mutex<HashMap<u64, Arc<FlowCounts>>>> =
        std::sync::OnceLock::new();
    FLOWS.get_or_init(Default::default)
}

/// One thread in a flow: joined when created, left when dropped.
pub struct Member {
    flow: Flow,
    shared: Arc<FlowCounts>,
    own: u64,
}

impl Member {
    /// Joins the flow `flow.id` (made with a counter of 1 if it is new).
    pub fn join(flow: Flow) -> Member {
        let mut all = flows().lock().unwrap_or_else(|e| e.into_inner());
        let shared = all
            .entry(flow.id)
            .or_insert_with(|| {
                Arc::new(FlowCounts {
                    counter: AtomicU64::new(1),
                    total_weight: AtomicU64::new(0),
                })
            })
            .clone();
        shared
            .total_weight
            .fetch_add(flow.weight, Ordering::Relaxed);
        Member {
            flow,
            shared,
            own: 0,
        }
    }

    pub fn sleep(&self) -> Duration {
        self.flow.sleep
    }

    /// Before an I/O: true when this thread is above its share and must
    /// hold back; otherwise the I/O is counted.
    pub fn exceeded(&mut self) -> bool {
        let counter = self.shared.counter.load(Ordering::Relaxed) as f64;
        let total = self.shared.total_weight.load(Ordering::Relaxed) as f64;
        if self.own as f64 / counter > self.flow.weight as f64 / total {
            return true;
        }
        self.shared.counter.fetch_add(1, Ordering::Relaxed);
        self.own += 1;
        false
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        let mut all = flows().lock().unwrap_or_else(|e| e.into_inner());
        self.shared.counter.fetch_sub(self.own, Ordering::Relaxed);
        self.shared
            .total_weight
            .fetch_sub(self.flow.weight, Ordering::Relaxed);
        // The map's reference and this one: the last member leaves.
        if Arc::strong_count(&self.shared) == 2 {
            all.remove(&self.flow.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_members_share_in_their_weights_ratio() {
        let flow = |weight| Flow {
            id: 4242,
            weight,
            sleep: Duration::ZERO,
        };
        let (mut one, mut eight) = (Member::join(flow(1)), Member::join(flow(8)));
        let (mut n1, mut n8) = (0, 0);
        for _ in 0..9000 {
            n1 += u32::from(!one.exceeded());
            n8 += u32::from(!eight.exceeded());
        }
        assert!((n8 as f64 / n1 as f64 - 8.0).abs() < 0.05, "{n1} {n8}");
        drop(one);
        // Alone, a member is never above its share.
        for _ in 0..100 {
            assert!(!eight.exceeded());
        }
        drop(eight);
        assert!(!flows().lock().unwrap().contains_key(&4242));
    }
}
