//! The nets shipped in `models/`, compiled into the binary so that
//! `tengen gtp` plays with them from any directory and with no files
//! beside it. Their model cards (`models/NAME.md`) say how each was
//! trained and how strong it measured.

use std::path::Path;

use burn::tensor::Device;

use super::{io, Net, NetError};

/// A shipped net: its name (the file name without `.safetensors`) and
/// bytes.
#[derive(Clone, Copy, Debug)]
pub struct ShippedNet {
    pub name: &'static str,
    pub bytes: &'static [u8],
}

/// The 9×9 net.
pub const NET_9X9: ShippedNet = ShippedNet {
    name: "tengen-9x9-v9",
    bytes: include_bytes!("../../models/tengen-9x9-v9.safetensors"),
};

/// The 19×19 net.
pub const NET_19X19: ShippedNet = ShippedNet {
    name: "tengen-19x19-v4",
    bytes: include_bytes!("../../models/tengen-19x19-v4.safetensors"),
};

/// Boards up to this size are played with [`NET_9X9`], larger ones with
/// [`NET_19X19`].
pub const MAX_SMALL_BOARD: usize = 11;

/// Every shipped net.
pub const ALL: &[ShippedNet] = &[NET_9X9, NET_19X19];

impl ShippedNet {
    /// Builds the net on `device`.
    pub fn load(&self, device: &Device) -> Result<Net, NetError> {
        let path = Path::new(self.name);
        let (config, weights) = io::parse(self.bytes, path)?;
        io::build(&config, weights, device, path)
    }

    /// The shipped net that plays boards of `size`.
    pub fn for_board(size: usize) -> ShippedNet {
        if size <= MAX_SMALL_BOARD {
            NET_9X9
        } else {
            NET_19X19
        }
    }

    /// The shipped net called `name`, if any.
    pub fn named(name: &str) -> Option<ShippedNet> {
        ALL.iter().copied().find(|n| n.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_net_loads_and_is_small() {
        for net in ALL {
            assert!(net.bytes.len() < 30 << 20, "{} is over 30 MiB", net.name);
            net.load(&Device::flex())
                .unwrap_or_else(|e| panic!("{}: {e}", net.name));
            assert_eq!(ShippedNet::named(net.name).unwrap().name, net.name);
        }
    }
}
