//! A training position in ~1.1 KB (19×19): binary planes as bits, the
//! played move and the reply as indices. The shuffle window holds these;
//! they become a [`Sample`] only when a batch is built.

use tengen::features::v7;

use crate::shard::{Sample, HAS_OWNERSHIP, HAS_POLICY, NO_MOVE};

/// See the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct Packed {
    pub size: u8,
    /// `HAS_*` bits (`HAS_OWNERSHIP` only with [`Packed::set_ownership`]:
    /// human records do not know it by themselves).
    pub flags: u8,
    /// V7 spatial planes, one bit each (they are binary).
    pub bits: Vec<u8>,
    pub global: [f32; v7::GLOBAL],
    /// Dense index of the move played (`size²` = pass) or [`NO_MOVE`].
    pub policy: u16,
    /// The opponent's reply, or [`NO_MOVE`].
    pub opp: u16,
    /// +1 the player to move won, -1 lost, 0 draw / unknown.
    pub outcome: i8,
    /// Final margin for the player to move.
    pub score: f32,
    /// Moves played before this position (its game phase).
    pub move_number: u16,
    /// Final ownership from the player to move's view (+1 theirs, −1 the
    /// opponent's, 0 neither), when the game has a label.
    pub ownership: Option<Box<[i8]>>,
}

impl Packed {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        size: usize,
        flags: u8,
        spatial: &[f32],
        global: &[f32],
        policy: u16,
        opp: u16,
        outcome: i8,
        score: f32,
        move_number: u16,
    ) -> Packed {
        let mut bits = vec![0u8; spatial.len().div_ceil(8)];
        for (i, &v) in spatial.iter().enumerate() {
            if v != 0.0 {
                bits[i / 8] |= 1 << (i % 8);
            }
        }
        let mut g = [0.0; v7::GLOBAL];
        g.copy_from_slice(&global[..v7::GLOBAL]);
        Packed {
            size: size as u8,
            flags,
            bits,
            global: g,
            policy,
            opp,
            outcome,
            score,
            move_number,
            ownership: None,
        }
    }

    /// Gives the sample an ownership target (`size²` values, the player to
    /// move's view).
    pub fn set_ownership(&mut self, own: Vec<i8>) {
        debug_assert_eq!(own.len(), self.size as usize * self.size as usize);
        self.flags |= HAS_OWNERSHIP;
        self.ownership = Some(own.into_boxed_slice());
    }

    /// The full sample (one-hot policy; ownership as set, else none).
    pub fn unpack(&self) -> Sample {
        let size = self.size as usize;
        let n = size * size;
        let spatial = (0..v7::SPATIAL * n)
            .map(|i| f32::from((self.bits[i / 8] >> (i % 8)) & 1))
            .collect();
        let mut policy = vec![0.0; n + 1];
        if self.flags & HAS_POLICY != 0 && self.policy != NO_MOVE {
            policy[self.policy as usize] = 1.0;
        }
        Sample {
            size,
            flags: self.flags,
            spatial,
            global: self.global.to_vec(),
            policy,
            opp_move: self.opp,
            outcome: self.outcome,
            score: self.score,
            ownership: self
                .ownership
                .as_deref()
                .map_or_else(|| vec![0; n], <[i8]>::to_vec),
        }
    }
}
