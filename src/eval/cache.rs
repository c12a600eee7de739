//! [`CachedEvaluator`]: a bounded, thread-safe evaluation cache in front of
//! any [`Evaluator`].
//!
//! A batch is looked up entry by entry; only the misses go to the inner
//! evaluator, as one batch (split at its `max_batch`), and their outputs
//! are stored. Identical inputs within one batch are evaluated once.
//!
//! # The key
//!
//! Everything the net's inputs depend on, so a hit returns exactly what
//! the inner evaluator would have (up to its own randomness, such as a
//! random symmetry):
//!
//! - [`Position::hash`](crate::rules::Position::hash): the stones and the
//!   player to move, and the board size;
//! - the rules: ko rule, suicide, komi, handicap-bonus rule, and the
//!   input's [`EvalInput::handicap_bonus`] and `friendly_pass_ok`;
//! - the simple-ko point, the number of consecutive passes, and (under a
//!   superko rule) the set of earlier positions of the history segment,
//!   which decide the ko-banned points;
//! - the [`EvalInput::recent`] moves with their colours and the hashes of
//!   the [`EvalInput::prev_boards`] (the move-history and ladder planes).
//!
//! The key is 128 bits: the position hash and a hash of the rest. Two
//! different inputs share a key only by a 64-bit hash collision on both
//! halves at once, which is ignored.
//!
//! # Memory
//!
//! At most `capacity` entries (rounded up to a multiple of the shard
//! count), in [`SHARDS`] mutex-guarded shards picked by key; each shard
//! evicts its oldest entry first (FIFO). An entry costs its `EvalOutput`
//! (about `2 × size²` floats with ownership: ~3 KB on 19×19).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use super::{evaluate_all, EvalInput, EvalOutput, Evaluator};
use crate::rules::{mix, Color, KoRule, Move};

/// How many independently locked parts the cache has.
pub const SHARDS: usize = 16;

/// The engine's cache size in front of a net (GTP, and each tengen player
/// of `tengen-train match`, so matches search the way the engine does):
/// about 60 MiB on 19×19.
pub const ENGINE_ENTRIES: usize = 20_000;

/// The cache key of one input; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey {
    pub position: u64,
    pub context: u64,
}

impl CacheKey {
    /// The key of `input`.
    pub fn of(input: &EvalInput) -> CacheKey {
        let pos = &input.position;
        let rules = pos.rules();
        let mut h = Hasher::new(pos.size() as u64);
        h.add(rules.komi.to_bits() as u64);
        h.add(input.handicap_bonus.to_bits() as u64);
        h.add(match rules.ko {
            KoRule::Simple => 1,
            KoRule::Positional => 2,
            KoRule::Situational => 3,
        });
        h.add(rules.suicide_allowed as u64);
        h.add(rules.handicap_bonus as u64);
        h.add(input.friendly_pass_ok as u64);
        h.add(input.policy_optimism.to_bits() as u64);
        h.add(input.random_symmetry as u64);
        h.add(
            pos.board()
                .ko_point()
                .map_or(u64::MAX, |p| p.index() as u64),
        );
        h.add(pos.passes() as u64);
        if rules.ko != KoRule::Simple {
            // Superko bans depend on the set of earlier positions, not on
            // their order: combine them order-independently.
            let set = pos
                .history()
                .iter()
                .fold(0u64, |acc, &(b, c)| acc.wrapping_add(mix(b, color_code(c))));
            h.add(set);
        }
        h.add(input.recent.len() as u64);
        for &(c, mv) in &input.recent {
            let m = match mv {
                Move::Place(p) => p.index() as u64,
                Move::Pass => u64::MAX - 1,
            };
            h.add(m ^ color_code(c) << 32);
        }
        h.add(input.prev_boards.len() as u64);
        for b in &input.prev_boards {
            h.add(b.hash());
        }
        CacheKey {
            position: pos.hash(),
            context: h.finish(),
        }
    }

    fn shard(&self) -> usize {
        (mix(self.position, self.context) % SHARDS as u64) as usize
    }
}

/// An [`Evaluator`] that remembers outputs; see the module docs.
pub struct CachedEvaluator {
    inner: Arc<dyn Evaluator>,
    shards: Vec<Mutex<Shard>>,
    per_shard: usize,
    hits: AtomicU64,
    misses: AtomicU64,
}

#[derive(Default)]
struct Shard {
    map: HashMap<CacheKey, EvalOutput>,
    /// Keys in insertion order, oldest first.
    order: VecDeque<CacheKey>,
}

impl CachedEvaluator {
    /// A cache of at most `capacity` entries (at least one per shard) in
    /// front of `inner`.
    pub fn new(inner: Arc<dyn Evaluator>, capacity: usize) -> CachedEvaluator {
        let per_shard = capacity.div_ceil(SHARDS).max(1);
        CachedEvaluator {
            inner,
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            per_shard,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The most entries the cache holds.
    pub fn capacity(&self) -> usize {
        self.per_shard * SHARDS
    }

    /// The entries held now.
    pub fn len(&self) -> usize {
        (0..SHARDS).map(|i| self.lock(i).map.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// (hits, misses) since creation or the last [`CachedEvaluator::clear`].
    pub fn stats(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// Forgets every entry (for example when the net changes) and resets
    /// the statistics.
    pub fn clear(&self) {
        for i in 0..SHARDS {
            *self.lock(i) = Shard::default();
        }
        self.hits.store(0, Ordering::Relaxed);
        self.misses.store(0, Ordering::Relaxed);
    }

    fn lock(&self, i: usize) -> MutexGuard<'_, Shard> {
        // A panic elsewhere cannot leave a shard inconsistent in a way
        // that matters for a cache: keep using it.
        self.shards[i].lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, key: &CacheKey) -> Option<EvalOutput> {
        self.lock(key.shard()).map.get(key).cloned()
    }

    fn insert(&self, key: CacheKey, out: EvalOutput) {
        let mut shard = self.lock(key.shard());
        if shard.map.insert(key, out).is_none() {
            shard.order.push_back(key);
            while shard.order.len() > self.per_shard {
                if let Some(old) = shard.order.pop_front() {
                    shard.map.remove(&old);
                }
            }
        }
    }
}

impl Evaluator for CachedEvaluator {
    fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
        let keys: Vec<CacheKey> = batch.iter().map(CacheKey::of).collect();
        let mut outs: Vec<Option<EvalOutput>> = keys.iter().map(|k| self.get(k)).collect();
        // The misses, each distinct key once; `slot[i]` is the index in
        // `todo` that input `i` waits for.
        let mut todo: Vec<EvalInput> = Vec::new();
        let mut todo_keys: Vec<CacheKey> = Vec::new();
        let mut slot: Vec<Option<usize>> = vec![None; batch.len()];
        for i in 0..batch.len() {
            if outs[i].is_some() {
                continue;
            }
            let j = match todo_keys.iter().position(|k| *k == keys[i]) {
                Some(j) => j,
                None => {
                    todo_keys.push(keys[i]);
                    todo.push(batch[i].clone());
                    todo.len() - 1
                }
            };
            slot[i] = Some(j);
        }
        let hits = batch.len() - slot.iter().filter(|s| s.is_some()).count();
        self.hits.fetch_add(hits as u64, Ordering::Relaxed);
        self.misses.fetch_add(todo.len() as u64, Ordering::Relaxed);
        if !todo.is_empty() {
            let fresh = evaluate_all(self.inner.as_ref(), &todo);
            for (i, s) in slot.iter().enumerate() {
                if let Some(j) = *s {
                    outs[i] = Some(fresh[j].clone());
                }
            }
            for (k, out) in todo_keys.into_iter().zip(fresh) {
                self.insert(k, out);
            }
        }
        outs.into_iter()
            .map(|o| o.expect("every input answered"))
            .collect()
    }

    fn max_batch(&self) -> usize {
        self.inner.max_batch()
    }

    fn parallel_calls(&self) -> bool {
        self.inner.parallel_calls()
    }

    fn name(&self) -> String {
        format!("{} (cached)", self.inner.name())
    }
}

fn color_code(c: Color) -> u64 {
    match c {
        Color::Black => 1,
        Color::White => 2,
    }
}

/// An order-dependent hash of a sequence of words.
struct Hasher(u64);

impl Hasher {
    fn new(seed: u64) -> Hasher {
        Hasher(mix(seed, 0x7465_6e67_656e))
    }

    fn add(&mut self, w: u64) {
        self.0 = mix(self.0, w);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::fake::HashEvaluator;
    use crate::rules::{Position, Ruleset};

    /// Counts the positions it is asked to evaluate.
    struct Counting {
        inner: HashEvaluator,
        calls: AtomicU64,
        positions: AtomicU64,
    }

    impl Counting {
        fn new() -> Arc<Counting> {
            Arc::new(Counting {
                inner: HashEvaluator::new(9),
                calls: AtomicU64::new(0),
                positions: AtomicU64::new(0),
            })
        }

        fn positions(&self) -> u64 {
            self.positions.load(Ordering::Relaxed)
        }
    }

    impl Evaluator for Counting {
        fn evaluate(&self, batch: &[EvalInput]) -> Vec<EvalOutput> {
            self.calls.fetch_add(1, Ordering::Relaxed);
            self.positions
                .fetch_add(batch.len() as u64, Ordering::Relaxed);
            self.inner.evaluate(batch)
        }
        fn max_batch(&self) -> usize {
            4
        }
        fn name(&self) -> String {
            "counting".into()
        }
    }

    fn pos(moves: &[&str]) -> Position {
        let mut p = Position::new(9, Ruleset::chinese()).unwrap();
        for m in moves {
            p.play_move(Move::parse_gtp(m, 9).unwrap()).unwrap();
        }
        p
    }

    #[test]
    fn a_hit_skips_the_inner_evaluator() {
        let inner = Counting::new();
        let cache = CachedEvaluator::new(inner.clone(), 100);
        let input = [EvalInput::new(pos(&["E5", "C3"]))];
        let first = cache.evaluate(&input);
        assert_eq!(inner.positions(), 1);
        let second = cache.evaluate(&input);
        assert_eq!(inner.positions(), 1, "served from the cache");
        assert_eq!(first, second);
        assert_eq!(first, inner.inner.evaluate(&input));
        assert_eq!(cache.stats(), (1, 1));
        assert_eq!(cache.max_batch(), 4);
    }

    #[test]
    fn only_misses_are_evaluated_in_one_batch() {
        let inner = Counting::new();
        let cache = CachedEvaluator::new(inner.clone(), 100);
        let a = EvalInput::new(pos(&["E5"]));
        let b = EvalInput::new(pos(&["D4"]));
        let c = EvalInput::new(pos(&["C3"]));
        cache.evaluate(std::slice::from_ref(&a));
        let calls = inner.calls.load(Ordering::Relaxed);
        let out = cache.evaluate(&[b.clone(), a.clone(), c.clone(), b.clone()]);
        assert_eq!(inner.positions(), 3, "b and c once each");
        assert_eq!(inner.calls.load(Ordering::Relaxed), calls + 1);
        assert_eq!(out[0], out[3]);
        assert_eq!(out, inner.inner.evaluate(&[b.clone(), a, c, b]));
    }

    #[test]
    fn context_changes_miss() {
        let base = EvalInput::new(pos(&["E5", "C3"]));
        let key = CacheKey::of(&base);
        let mut variants = Vec::new();

        let mut p = base.position.clone();
        p.set_rules(Ruleset::chinese().with_komi(7.5));
        variants.push(EvalInput::new(p));
        let mut p = base.position.clone();
        p.set_to_move(Color::White);
        variants.push(EvalInput::new(p));
        let mut p = base.position.clone();
        let mut r = Ruleset::chinese();
        r.ko = KoRule::Simple;
        p.set_rules(r);
        variants.push(EvalInput::new(p));
        let mut p = base.position.clone();
        let mut r = Ruleset::chinese();
        r.suicide_allowed = true;
        p.set_rules(r);
        variants.push(EvalInput::new(p));
        variants.push(base.clone().with_handicap_bonus(2.0));
        variants.push(base.clone().with_recent(vec![
            (Color::Black, Move::parse_gtp("E5", 9).unwrap()),
            (Color::White, Move::parse_gtp("C3", 9).unwrap()),
        ]));
        variants.push(
            base.clone()
                .with_recent(vec![(Color::White, Move::parse_gtp("C3", 9).unwrap())]),
        );
        variants.push(
            base.clone()
                .with_prev_boards(vec![pos(&["E5"]).board().clone()]),
        );
        let mut f = base.clone();
        f.friendly_pass_ok = false;
        variants.push(f);
        variants.push(base.clone().with_policy_optimism(1.0));
        // A search asking for random symmetries never gets the fixed
        // symmetry's cached output, nor the other way round.
        variants.push(base.clone().with_random_symmetry(true));
        let mut p = base.position.clone();
        p.play_move(Move::Pass).unwrap();
        p.set_to_move(Color::Black);
        variants.push(EvalInput::new(p));
        variants.push(EvalInput::new(
            Position::new(13, Ruleset::chinese()).unwrap(),
        ));

        for (i, v) in variants.iter().enumerate() {
            assert_ne!(CacheKey::of(v), key, "variant {i}");
        }
        // Same stones by another move order: under simple ko a hit; under
        // superko the earlier positions differ, so do the bans: a miss.
        let simple = |moves: &[&str], ko: KoRule| {
            let mut r = Ruleset::chinese();
            r.ko = ko;
            let mut p = Position::new(9, r).unwrap();
            for m in moves {
                p.play_move(Move::parse_gtp(m, 9).unwrap()).unwrap();
            }
            CacheKey::of(&EvalInput::new(p))
        };
        let (x, y) = (["E5", "C3", "D4", "G7"], ["D4", "C3", "E5", "G7"]);
        assert_eq!(simple(&x, KoRule::Simple), simple(&y, KoRule::Simple));
        assert_ne!(
            simple(&x, KoRule::Positional),
            simple(&y, KoRule::Positional)
        );

        let inner = Counting::new();
        let cache = CachedEvaluator::new(inner.clone(), 100);
        cache.evaluate(std::slice::from_ref(&base));
        cache.evaluate(&variants);
        assert_eq!(inner.positions(), 1 + variants.len() as u64);
    }

    #[test]
    fn size_stays_bounded() {
        let inner = Counting::new();
        let cache = CachedEvaluator::new(inner.clone(), 40);
        assert_eq!(cache.capacity(), 48, "rounded up to whole shards");
        let p = Position::new(9, Ruleset::chinese()).unwrap();
        let mut inputs = Vec::new();
        for mv in p.legal_moves() {
            if let Move::Place(_) = mv {
                let mut q = p.clone();
                q.play_move(mv).unwrap();
                inputs.push(EvalInput::new(q));
            }
        }
        assert_eq!(inputs.len(), 81);
        for chunk in inputs.chunks(7) {
            cache.evaluate(chunk);
            assert!(cache.len() <= cache.capacity());
        }
        assert!(!cache.is_empty());
        // The newest entry is still there; everything evaluated once.
        let before = inner.positions();
        assert_eq!(before, 81);
        cache.evaluate(&inputs[80..]);
        assert_eq!(inner.positions(), before);
        cache.clear();
        assert!(cache.is_empty());
    }

    #[test]
    fn threads_share_the_cache() {
        let inner = Counting::new();
        let cache = Arc::new(CachedEvaluator::new(inner.clone(), 10_000));
        let inputs: Vec<EvalInput> = ["A1", "B2", "C3", "D4", "E5", "F6", "G7", "H8"]
            .iter()
            .map(|m| EvalInput::new(pos(&[m])))
            .collect();
        let expected = inner.inner.evaluate(&inputs);
        std::thread::scope(|s| {
            for t in 0..8 {
                let cache = cache.clone();
                let inputs = &inputs;
                let expected = &expected;
                s.spawn(move || {
                    for r in 0..200 {
                        let i = (t + r) % inputs.len();
                        let out = cache.evaluate(&inputs[i..=i]);
                        assert_eq!(out[0], expected[i]);
                    }
                });
            }
        });
        let (hits, misses) = cache.stats();
        assert_eq!(hits + misses, 8 * 200);
        assert!((8..=64).contains(&misses), "{misses}");
        assert_eq!(cache.len(), 8);
    }
}
