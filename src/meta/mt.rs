//! MT19937 exactly as NumPy's `numpy.random.MT19937` (the bit generator of the legacy
//! `RandomState`): the same twist, tempering and 53-bit doubles, continuing from a state
//! read from NumPy (`key`, `pos`) and handing back the state NumPy must continue from.

/// Words in the state.
pub const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER: u32 = 0x8000_0000;
const LOWER: u32 = 0x7fff_ffff;

/// The generator: `key` as NumPy holds it and `pos`, the index of the next word
/// (`N` means the next word needs a twist first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mt19937 {
    key: [u32; N],
    pos: usize,
}

#[inline(always)]
fn mix(upper: u32, lower: u32) -> u32 {
    let y = (upper & UPPER) | (lower & LOWER);
    (y >> 1) ^ (0u32.wrapping_sub(y & 1) & MATRIX_A)
}

#[inline(always)]
fn temper(mut y: u32) -> u32 {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c_5680;
    y ^= (y << 15) & 0xefc6_0000;
    y ^ (y >> 18)
}

impl Mt19937 {
    /// From NumPy's state (`bit_generator.state["state"]`): 624 key words and `pos` (0 to 624).
    pub fn from_state(key: &[u32], pos: usize) -> Result<Self, String> {
        if key.len() != N {
            return Err(format!(
                "MT19937 state must have {N} words, got {}",
                key.len()
            ));
        }
        if pos > N {
            return Err(format!("MT19937 position must be at most {N}, got {pos}"));
        }
        let mut state = Mt19937 { key: [0; N], pos };
        state.key.copy_from_slice(key);
        Ok(state)
    }

    /// The state to give back to NumPy.
    pub fn key(&self) -> &[u32; N] {
        &self.key
    }

    /// The index of the next word (see [`Mt19937::from_state`]).
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// NumPy's `mt19937_gen`, written over two buffers so that each loop vectorises.
    fn twist(&mut self) {
        let cur = self.key;
        let next = &mut self.key;
        for i in 0..N - M {
            next[i] = cur[i + M] ^ mix(cur[i], cur[i + 1]);
        }
        // next[i] for i in N-M..N-1 reads next[i - (N - M)], written 227 words earlier
        let (done, rest) = next.split_at_mut(N - M);
        for (i, slot) in rest[..N - M].iter_mut().enumerate() {
            let k = i + (N - M);
            *slot = done[i] ^ mix(cur[k], cur[k + 1]);
        }
        let (done, rest) = next.split_at_mut(2 * (N - M));
        for (i, slot) in rest[..N - 1 - 2 * (N - M)].iter_mut().enumerate() {
            let k = i + 2 * (N - M);
            *slot = done[i + (N - M)] ^ mix(cur[k], cur[k + 1]);
        }
        next[N - 1] = next[M - 1] ^ mix(cur[N - 1], next[0]);
        self.pos = 0;
    }

    /// NumPy's `mt19937_next32`.
    pub fn next_u32(&mut self) -> u32 {
        if self.pos == N {
            self.twist();
        }
        let y = temper(self.key[self.pos]);
        self.pos += 1;
        y
    }

    /// Fills `out` with the next words, as that many `next_u32` calls.
    pub fn fill_u32(&mut self, out: &mut [u32]) {
        let mut done = 0;
        while done < out.len() {
            if self.pos == N {
                self.twist();
            }
            let take = (N - self.pos).min(out.len() - done);
            let src = &self.key[self.pos..self.pos + take];
            for (o, &k) in out[done..done + take].iter_mut().zip(src) {
                *o = temper(k);
            }
            self.pos += take;
            done += take;
        }
    }

    /// NumPy's `mt19937_next_double` (`random_sample`): two words, 53 bits.
    pub fn next_double(&mut self) -> f64 {
        let a = self.next_u32() >> 5;
        let b = self.next_u32() >> 6;
        double(a, b)
    }

    /// `random_sample(out.len()) > threshold`, one double (two words) per value.
    pub fn fill_above(&mut self, threshold: f64, out: &mut [bool]) {
        let mut words = vec![0u32; 2 * BLOCK.min(out.len())];
        for chunk in out.chunks_mut(BLOCK) {
            let w = &mut words[..2 * chunk.len()];
            self.fill_u32(w);
            above(w, threshold, chunk);
        }
    }
}

/// Doubles per block of words (the words of one block stay in the L1 cache).
pub const BLOCK: usize = 2048;

#[inline(always)]
fn double(a: u32, b: u32) -> f64 {
    (f64::from(a) * 67_108_864.0 + f64::from(b)) / 9_007_199_254_740_992.0
}

/// `double(words[2i] >> 5, words[2i + 1] >> 6) > threshold` for every pair of words.
pub fn above(words: &[u32], threshold: f64, out: &mut [bool]) {
    for (o, pair) in out.iter_mut().zip(words.chunks_exact(2)) {
        *o = double(pair[0] >> 5, pair[1] >> 6) > threshold;
    }
}

/// `value[i] * (1.0 if double(words[2i] >> 5, words[2i + 1] >> 6) > threshold else 0.0)`.
pub fn select(words: &[u32], values: &[f64], threshold: f64, out: &mut [f64]) {
    let n = out.len().min(values.len()).min(words.len() / 2);
    let (words, values, out) = (&words[..2 * n], &values[..n], &mut out[..n]);
    for i in 0..n {
        let u = double(words[2 * i] >> 5, words[2 * i + 1] >> 6);
        out[i] = values[i] * if u > threshold { 1.0 } else { 0.0 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `init_genrand(5489)` (the reference code's default seed).
    fn seeded(seed: u32) -> Mt19937 {
        let mut key = [0u32; N];
        key[0] = seed;
        for i in 1..N {
            key[i] = 1_812_433_253u32
                .wrapping_mul(key[i - 1] ^ (key[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        Mt19937::from_state(&key, N).unwrap()
    }

    #[test]
    fn reference_outputs() {
        // mt19937ar.c with init_genrand(5489): the first outputs, and the 10,000th (C++ std::mt19937)
        let mut g = seeded(5489);
        assert_eq!(g.next_u32(), 3_499_211_612);
        assert_eq!(g.next_u32(), 581_869_302);
        assert_eq!(g.next_u32(), 3_890_346_734);
        let mut g = seeded(5489);
        let mut words = vec![0u32; 10_000];
        g.fill_u32(&mut words);
        assert_eq!(words[9_999], 4_123_659_995);
    }

    #[test]
    fn bulk_equals_one_at_a_time() {
        for (seed, start, len) in [
            (1u32, 0usize, 5000usize),
            (7, 3, 623),
            (99, 623, 1),
            (5, 624, 1249),
            (11, 100, 0),
        ] {
            let mut a = seeded(seed);
            for _ in 0..start {
                a.next_u32();
            }
            let mut b = a.clone();
            let mut bulk = vec![0u32; len];
            a.fill_u32(&mut bulk);
            let single: Vec<u32> = (0..len).map(|_| b.next_u32()).collect();
            assert_eq!(bulk, single);
            assert_eq!(a.key(), b.key());
            assert_eq!(a.pos(), b.pos());
            // after a bulk fill, single draws continue the same stream
            assert_eq!(a.next_u32(), b.next_u32());
        }
    }

    #[test]
    fn above_matches_doubles() {
        let mut a = seeded(42);
        let mut b = a.clone();
        let mut flags = vec![false; 7000];
        a.fill_above(0.5, &mut flags);
        for f in flags {
            assert_eq!(f, b.next_double() > 0.5);
        }
        assert_eq!(a.next_u32(), b.next_u32());
        // the exact half: a = 2^26 << 5, b = 0 gives 0.5, which is not above 0.5
        assert_eq!(double(1 << 26, 0), 0.5);
        assert!(double(1 << 26, 1) > 0.5);
    }

    #[test]
    fn bad_state() {
        assert!(Mt19937::from_state(&[0u32; 10], 0).is_err());
        assert!(Mt19937::from_state(&[0u32; N], N + 1).is_err());
    }
}
