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

/// The 13×13 net.
pub const NET_13X13: ShippedNet = ShippedNet {
    name: "tengen-13x13-v1",
    bytes: include_bytes!("../../models/tengen-13x13-v1.safetensors"),
};

/// The 19×19 net.
pub const NET_19X19: ShippedNet = ShippedNet {
    name: "tengen-19x19-v4",
    bytes: include_bytes!("../../models/tengen-19x19-v4.safetensors"),
};

/// Which net plays which boards: each plays the boards up to its bound
/// (by increasing bound), and the last one every larger board too.
pub const ROUTES: &[(usize, ShippedNet)] = &[(11, NET_9X9), (16, NET_13X13), (19, NET_19X19)];

/// Every shipped net.
pub const ALL: &[ShippedNet] = &[NET_9X9, NET_13X13, NET_19X19];

impl ShippedNet {
    /// Builds the net on `device`.
    pub fn load(&self, device: &Device) -> Result<Net, NetError> {
        let path = Path::new(self.name);
        let (config, weights) = io::parse(self.bytes, path)?;
        io::build(&config, weights, device, path)
    }

    /// The shipped net that plays boards of `size`.
    pub fn for_board(size: usize) -> ShippedNet {
        let route = crate::eval::by_size::route_for(ROUTES.iter().map(|r| r.0), size);
        ROUTES[route].1
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

    #[test]
    fn each_board_size_has_its_net() {
        let name = |size| ShippedNet::for_board(size).name;
        for size in 2..=11 {
            assert_eq!(name(size), NET_9X9.name);
        }
        for size in 12..=16 {
            assert_eq!(name(size), NET_13X13.name);
        }
        for size in 17..=25 {
            assert_eq!(name(size), NET_19X19.name);
        }
        assert!(ROUTES.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(ROUTES.len(), ALL.len());
    }
}
