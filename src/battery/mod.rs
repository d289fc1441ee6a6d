//! The battery: named disk profiles and presets, the plan (passes as
//! rounds, pauses, the control series) and the runner that executes it into
//! a Run. It must not format results (reports do) nor judge them (findings do).

pub mod engines;
pub mod groups;
pub mod launch;
pub mod plan;
pub mod presets;
pub mod profiles;
pub mod progress;
pub mod runner;

pub use groups::BatteryGroup;
pub use plan::{BatteryPlan, Overrides, Step};
pub use presets::{ControlRequest, Preset};
