//! The burn device, chosen at run time: `cpu` (burn's flex backend),
//! `wgpu` (any GPU through Vulkan/Metal/DX12, when built with the `wgpu`
//! feature), or `auto` (wgpu if available, else cpu, saying so).

use burn::tensor::Device;

use super::error::NetError;

/// Which device to run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    Auto,
    Cpu,
    Wgpu,
}

impl std::str::FromStr for DeviceChoice {
    type Err = NetError;
    fn from_str(s: &str) -> Result<Self, NetError> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(DeviceChoice::Auto),
            "cpu" => Ok(DeviceChoice::Cpu),
            "wgpu" | "gpu" => Ok(DeviceChoice::Wgpu),
            other => Err(NetError::Device(format!(
                "unknown device {other:?} (auto, cpu, wgpu)"
            ))),
        }
    }
}

/// The device for `choice`. `auto` falls back to the CPU with a note on
/// stderr when this build or machine has no GPU.
pub fn select(choice: DeviceChoice) -> Result<Device, NetError> {
    match choice {
        DeviceChoice::Cpu => Ok(Device::flex()),
        DeviceChoice::Wgpu => {
            wgpu().ok_or_else(|| NetError::Device("no wgpu support in this build".into()))
        }
        DeviceChoice::Auto => match wgpu() {
            Some(d) => Ok(d),
            None => {
                eprintln!("tengen: no GPU backend available, running the net on the CPU (flex)");
                Ok(Device::flex())
            }
        },
    }
}

/// The device named `name` (`auto`, `cpu` or `wgpu`, as on the command
/// line).
pub fn from_name(name: &str) -> Result<Device, NetError> {
    select(name.parse()?)
}

#[cfg(feature = "wgpu")]
fn wgpu() -> Option<Device> {
    // burn reports adapter failures by panicking at first use; probe with
    // a tiny tensor and fall back when that fails.
    let probe = std::panic::catch_unwind(|| {
        let d = Device::wgpu(burn::tensor::DeviceKind::DefaultDevice);
        let t = burn::tensor::Tensor::<1>::from_data([1.0f32], &d);
        let _ = t.into_data();
        d
    });
    probe.ok()
}

#[cfg(not(feature = "wgpu"))]
fn wgpu() -> Option<Device> {
    None
}
