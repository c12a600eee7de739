//! Where the net runs, chosen at run time: `cpu` (the fast CPU path,
//! [`super::fast`]), `cpu-burn` (burn's flex backend, for comparison and
//! training), `wgpu` (any GPU through Vulkan/Metal/DX12, when built with
//! the `wgpu` feature), or `auto` (wgpu if available, else the fast CPU
//! path, saying so).
//!
//! [`select`] gives the burn device to build the net on (flex for both
//! CPU choices); [`backend`] also says whether to pack it for the fast
//! path.

use burn::tensor::Device;

use super::error::NetError;

/// Which device to run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    Auto,
    /// The fast CPU path (burn flex for training, which needs burn).
    Cpu,
    /// burn's flex CPU backend.
    CpuBurn,
    Wgpu,
}

impl std::str::FromStr for DeviceChoice {
    type Err = NetError;
    fn from_str(s: &str) -> Result<Self, NetError> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(DeviceChoice::Auto),
            "cpu" => Ok(DeviceChoice::Cpu),
            "cpu-burn" | "flex" => Ok(DeviceChoice::CpuBurn),
            "wgpu" | "gpu" => Ok(DeviceChoice::Wgpu),
            other => Err(NetError::Device(format!(
                "unknown device {other:?} (auto, cpu, cpu-burn, wgpu)"
            ))),
        }
    }
}

/// The device for `choice`. `auto` falls back to the CPU with a note on
/// stderr when this build or machine has no GPU.
pub fn select(choice: DeviceChoice) -> Result<Device, NetError> {
    match choice {
        DeviceChoice::Cpu | DeviceChoice::CpuBurn => Ok(Device::flex()),
        DeviceChoice::Wgpu => {
            wgpu().ok_or_else(|| NetError::Device("no wgpu support in this build".into()))
        }
        DeviceChoice::Auto => match wgpu() {
            Some(d) => Ok(d),
            None => {
                eprintln!("tengen: no GPU backend available, running the net on the CPU");
                Ok(Device::flex())
            }
        },
    }
}

/// The device named `name` (`auto`, `cpu`, `cpu-burn` or `wgpu`, as on
/// the command line).
pub fn from_name(name: &str) -> Result<Device, NetError> {
    select(name.parse()?)
}

/// How a net runs for inference.
#[derive(Clone, Debug, PartialEq)]
pub struct Backend {
    /// The burn device to build the net on.
    pub device: Device,
    /// Pack the net for the fast CPU path ([`super::fast::FastNet`]).
    pub fast: bool,
}

impl Backend {
    /// A short description for logs and reports.
    pub fn describe(&self) -> String {
        if self.fast {
            "the CPU (fast path)".into()
        } else if self.device == Device::flex() {
            "the CPU (burn flex)".into()
        } else {
            format!("{:?}", self.device)
        }
    }
}

/// The inference backend for `choice`: `cpu`, and `auto` without a GPU,
/// use the fast CPU path.
pub fn backend(choice: DeviceChoice) -> Result<Backend, NetError> {
    let device = select(choice)?;
    let fast = match choice {
        DeviceChoice::Cpu => true,
        DeviceChoice::Auto => device == Device::flex(),
        DeviceChoice::CpuBurn | DeviceChoice::Wgpu => false,
    };
    Ok(Backend { device, fast })
}

/// [`backend`] for a command-line name.
pub fn backend_named(name: &str) -> Result<Backend, NetError> {
    backend(name.parse()?)
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
