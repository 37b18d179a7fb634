//! The aho-corasick crate (0.7, Debian's librust-aho-corasick-dev) behind a
//! C ABI, so that bench_match can scan the same haystack with it in the same
//! process and run as with Hyperscan and herald::match.
//!
//! The crate is configured as a user after speed would: its DFA (`dfa(true)`,
//! with its default byte classes and premultiplied ids, and its prefilter),
//! and the smallest state id type the automaton fits (u16, then u32, then
//! usize), since the id width is the table's entry width.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind, StateID};

/// One built automaton, whatever its state id type.
pub enum Peer {
    U16(AhoCorasick<u16>),
    U32(AhoCorasick<u32>),
    Usize(AhoCorasick<usize>),
}

fn builder(kind: u32, dfa: bool) -> AhoCorasickBuilder {
    let mut b = AhoCorasickBuilder::new();
    b.match_kind(match kind {
        1 => MatchKind::LeftmostFirst,
        2 => MatchKind::LeftmostLongest,
        _ => MatchKind::Standard,
    })
    .dfa(dfa);
    b
}

fn count<S: StateID>(ac: &AhoCorasick<S>, hay: &[u8]) -> u64 {
    if *ac.match_kind() == MatchKind::Standard {
        ac.find_overlapping_iter(hay).count() as u64
    } else {
        ac.find_iter(hay).count() as u64
    }
}

/// Builds an automaton over `n` patterns (`pats[i]`, `lens[i]` octets).
/// `kind`: 0 all matches (overlapping), 1 leftmost-first, 2 leftmost-longest.
/// Returns null when no state id type fits.
///
/// # Safety
/// `pats` and `lens` point to `n` entries each; `pats[i]` to `lens[i]`
/// readable octets.
#[no_mangle]
pub unsafe extern "C" fn herald_ac_build(
    pats: *const *const u8,
    lens: *const usize,
    n: usize,
    kind: u32,
    dfa: bool,
) -> *mut Peer {
    let patterns: Vec<&[u8]> = (0..n)
        .map(|i| std::slice::from_raw_parts(*pats.add(i), *lens.add(i)))
        .collect();
    let b = builder(kind, dfa);
    let peer = if let Ok(ac) = b.build_with_size::<u16, _, _>(&patterns) {
        Peer::U16(ac)
    } else if let Ok(ac) = b.build_with_size::<u32, _, _>(&patterns) {
        Peer::U32(ac)
    } else if let Ok(ac) = b.build_with_size::<usize, _, _>(&patterns) {
        Peer::Usize(ac)
    } else {
        return std::ptr::null_mut();
    };
    Box::into_raw(Box::new(peer))
}

/// Matches in `hay`: every occurrence for kind 0, the leftmost
/// non-overlapping ones otherwise.
///
/// # Safety
/// `p` comes from `herald_ac_build`; `hay` points to `len` readable octets.
#[no_mangle]
pub unsafe extern "C" fn herald_ac_count(p: *const Peer, hay: *const u8, len: usize) -> u64 {
    let hay = std::slice::from_raw_parts(hay, len);
    match &*p {
        Peer::U16(ac) => count(ac, hay),
        Peer::U32(ac) => count(ac, hay),
        Peer::Usize(ac) => count(ac, hay),
    }
}

/// The automaton's heap bytes, as the crate counts them.
///
/// # Safety
/// `p` comes from `herald_ac_build`.
#[no_mangle]
pub unsafe extern "C" fn herald_ac_heap_bytes(p: *const Peer) -> usize {
    match &*p {
        Peer::U16(ac) => ac.heap_bytes(),
        Peer::U32(ac) => ac.heap_bytes(),
        Peer::Usize(ac) => ac.heap_bytes(),
    }
}

/// The width of a state id (2, 4 or 8 octets).
///
/// # Safety
/// `p` comes from `herald_ac_build`.
#[no_mangle]
pub unsafe extern "C" fn herald_ac_state_id_bytes(p: *const Peer) -> u32 {
    match &*p {
        Peer::U16(_) => 2,
        Peer::U32(_) => 4,
        Peer::Usize(_) => 8,
    }
}

/// # Safety
/// `p` comes from `herald_ac_build` and is not used after.
#[no_mangle]
pub unsafe extern "C" fn herald_ac_free(p: *mut Peer) {
    if !p.is_null() {
        drop(Box::from_raw(p));
    }
}
