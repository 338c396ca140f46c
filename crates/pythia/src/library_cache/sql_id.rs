//! Oracle's `sql_id` and `hash_value` of a statement text.
//!
//! Oracle hashes the text with MD5 after appending a NUL byte. The digest read as four
//! little-endian 32-bit words `w0 w1 w2 w3` gives the 64-bit number `w2 << 32 | w3`; the
//! `sql_id` writes it in base 32 with the alphabet `0123456789abcdfghjkmnpqrstuvwxyz` (no
//! e, i, l, o), 13 characters with leading zeros, and `hash_value` (v$sql.hash_value, the
//! library cache bucket's hash) is `w3`, its low 32 bits. `select 'Slavik' from dual`
//! gives `29schpgjyfxux` and 3823597405, as on Oracle.

use md5::{Digest, Md5};

/// Oracle's base-32 alphabet for sql_ids.
const ALPHABET: &[u8; 32] = b"0123456789abcdfghjkmnpqrstuvwxyz";

/// Characters in a sql_id.
pub const SQL_ID_LENGTH: usize = 13;

/// A statement text's identity, as Oracle computes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlId {
    /// The 64 bits the sql_id writes.
    pub value: u64,
    /// The whole digest as four little-endian words (KGLNAHSV, v$db_object_cache's
    /// FULL_HASH_VALUE, what DBMS_SHARED_POOL.MARKHOT takes as `hash`).
    pub words: [u32; 4],
}

impl SqlId {
    /// The id of `text`, exactly as written (case, spaces and literals count).
    pub fn of(text: &str) -> SqlId {
        let mut hasher = Md5::new();
        hasher.update(text.as_bytes());
        hasher.update([0u8]);
        let digest = hasher.finalize();
        let word = |index: usize| {
            u32::from_le_bytes(
                digest[index * 4..index * 4 + 4]
                    .try_into()
                    .expect("4 bytes"),
            )
        };
        SqlId {
            value: (u64::from(word(2)) << 32) | u64::from(word(3)),
            words: [word(0), word(1), word(2), word(3)],
        }
    }

    /// v$sql.hash_value: the low 32 bits.
    pub fn hash_value(&self) -> u32 {
        self.value as u32
    }

    /// The full hash value: 32 hexadecimal digits, each word in turn, so that the last 8
    /// are the hash value and the last 16 the sql_id's number.
    pub fn full_hash_value(&self) -> String {
        self.words
            .iter()
            .map(|word| format!("{word:08x}"))
            .collect()
    }
}

impl std::fmt::Display for SqlId {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut text = [b'0'; SQL_ID_LENGTH];
        let mut value = self.value;
        for slot in text.iter_mut().rev() {
            *slot = ALPHABET[(value % 32) as usize];
            value /= 32;
        }
        formatter.write_str(std::str::from_utf8(&text).expect("ASCII"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sql_id_and_hash_value_are_oracles() {
        // The example the issue gives (Slavik Markovich's, checked on Oracle).
        let id = SqlId::of("select 'Slavik' from dual");
        assert_eq!(id.to_string(), "29schpgjyfxux");
        assert_eq!(id.hash_value(), 3_823_597_405);
        let full = id.full_hash_value();
        assert_eq!(full.len(), 32);
        assert_eq!(u32::from_str_radix(&full[24..], 16).unwrap(), 3_823_597_405);
        assert_eq!(u64::from_str_radix(&full[16..], 16).unwrap(), id.value);
    }

    #[test]
    fn every_character_of_the_text_counts() {
        let ids = [
            SqlId::of("select 'Slavik' from dual"),
            SqlId::of("SELECT 'Slavik' FROM dual"),
            SqlId::of("select 'Slavik'  from dual"),
            SqlId::of("select 'Slavik' from dual "),
        ];
        for (i, a) in ids.iter().enumerate() {
            assert_eq!(a.to_string().len(), SQL_ID_LENGTH);
            for b in &ids[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn small_values_keep_thirteen_characters() {
        assert_eq!(
            SqlId {
                value: 0,
                words: [0; 4]
            }
            .to_string(),
            "0000000000000"
        );
        assert_eq!(
            SqlId {
                value: 33,
                words: [0; 4]
            }
            .to_string(),
            "0000000000011"
        );
        assert_eq!(
            SqlId {
                value: u64::MAX,
                words: [0; 4]
            }
            .to_string(),
            "gzzzzzzzzzzzz"
        );
    }
}
